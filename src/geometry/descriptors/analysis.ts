// One pass of shared work per model: samples, exact moments, pose, extents, volume.
import type { Mesh, Vec3 } from '../mesh';
import { signedVolume } from '../mesh-facts';
import { MM_PER_UNIT } from '../mesh';
import { orientedExtents } from './extents';
import { normalisePose, surfaceMoments, type Pose, type SurfaceMoments } from './pose';
import { sampleSurface, type SurfaceSamples } from './sampling';

export interface ShapeAnalysis {
  samples: SurfaceSamples;
  moments: SurfaceMoments;
  pose: Pose;
  /** Oriented extents (mm), descending. */
  extents: Vec3;
  /** |signed volume| (mm³); meaningful for closed, consistently oriented meshes. */
  volume: number;
  /** Root-mean-square distance of the surface from its centroid (mm): the scale unit. */
  rmsRadius: number;
}

export interface AnalysisOptions {
  /** Surface samples (default 4096). */
  samples?: number;
  seed?: number;
}

export function analyseShape(mesh: Mesh, o: AnalysisOptions = {}): ShapeAnalysis {
  const samples = sampleSurface(mesh, { count: o.samples ?? 4096, seed: o.seed ?? 1 });
  const moments = surfaceMoments(mesh);
  const pose = normalisePose(moments, samples);
  const extents = orientedExtents(mesh, pose);
  const s = MM_PER_UNIT[mesh.units ?? 'unknown'];
  const volume = Math.abs(signedVolume(mesh)) * s * s * s;
  const cv = moments.covariance;
  const rmsRadius = Math.sqrt(Math.max(cv[0]! + cv[4]! + cv[8]!, 1e-30));
  return { samples, moments, pose, extents, volume, rmsRadius };
}
