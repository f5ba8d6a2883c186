// One pass of shared work per model: samples, exact moments, pose, extents, volume.
import type { Mesh, Vec3 } from '../../mesh/mesh';
import { signedVolume } from '../../mesh/mesh-facts';
import { MM_PER_UNIT } from '../../mesh/mesh';
import { orientedExtents } from './extents';
import { normalisePose, principalMoments, surfaceMoments, type Pose, type PrincipalMoments, type SurfaceMoments } from './pose';
import { sampleSurface, triangleTable, type SurfaceSamples } from './sampling';
import type { SampleThickness } from './thickness';

export interface ShapeAnalysis {
  /** Surface samples kept for registration (rescoring, containment); what gets stored. */
  samples: SurfaceSamples;
  /**
   * Denser samples for the descriptor's distributions, whose sampling noise falls with the
   * count. Present right after {@link analyseShape}; not stored.
   */
  statSamples?: SurfaceSamples;
  /** Exact principal-frame moments (chirality, axis signs). Present right after {@link analyseShape}. */
  exact?: PrincipalMoments;
  moments: SurfaceMoments;
  pose: Pose;
  /** Oriented extents (mm), descending. */
  extents: Vec3;
  /** |signed volume| (mm³); meaningful for closed, consistently oriented meshes. */
  volume: number;
  /** Root-mean-square distance of the surface from its centroid (mm): the scale unit. */
  rmsRadius: number;
  /** Chord error (mm) of the mesh where each registration sample lies (see chord.ts); absent means 0. */
  chord?: Float32Array;
  /** Bend (radians) of the mesh where each registration sample lies: how far its normal may be off the curve's. */
  bend?: Float32Array;
  /** Distances given in sample spacings are taken at this many samples' spacing (see indexSurface); absent: the samples' own count. */
  spacingSamples?: number;
  /** Material behind and space in front of each registration sample (mm; see thickness.ts); absent: not measured. */
  thickness?: SampleThickness;
}

export interface AnalysisOptions {
  /** Surface samples kept for registration (default 4096). */
  samples?: number;
  /** Samples behind the descriptor's distributions (default 4 × `samples`). */
  statSamples?: number;
  seed?: number;
  /** Chord error (mesh units) and bend per triangle of `mesh`, carried to the registration samples. */
  triangleChord?: { chord: ArrayLike<number>; bend: ArrayLike<number> };
  /** See {@link ShapeAnalysis.spacingSamples}. */
  spacingSamples?: number;
}

/** Default count of registration samples. */
export const REGISTRATION_SAMPLES = 4096;

export function analyseShape(mesh: Mesh, o: AnalysisOptions = {}): ShapeAnalysis {
  const keep = Math.max(1, Math.floor(o.samples ?? REGISTRATION_SAMPLES));
  const seed = o.seed ?? 1;
  const table = triangleTable(mesh);
  const samples = sampleSurface(mesh, { count: keep, seed, table });
  // A separate draw rather than a subset: every k-th point of the in-triangle low-discrepancy
  // sequence lines up (4·α of the R2 sequence is nearly an integer), which leaves holes that
  // registration coverage then counts as missing surface.
  const nStat = Math.max(keep, Math.floor(o.statSamples ?? 4 * keep));
  const statSamples = nStat === keep ? samples : sampleSurface(mesh, { count: nStat, seed: seed + 7919, table });
  const moments = surfaceMoments(mesh);
  const exact = principalMoments(mesh, moments);
  const pose = normalisePose(moments, samples, exact);
  const extents = orientedExtents(mesh, pose);
  const s = MM_PER_UNIT[mesh.units ?? 'unknown'];
  const volume = Math.abs(signedVolume(mesh)) * s * s * s;
  const cv = moments.covariance;
  const rmsRadius = Math.sqrt(Math.max(cv[0]! + cv[4]! + cv[8]!, 1e-30));
  const out: ShapeAnalysis = {
    samples,
    statSamples,
    exact,
    moments,
    pose,
    extents,
    volume,
    rmsRadius,
    ...(o.spacingSamples ? { spacingSamples: o.spacingSamples } : {}),
  };
  const tc = o.triangleChord;
  if (tc && samples.triangles) {
    out.chord = Float32Array.from(samples.triangles, (t) => (tc.chord[t] ?? 0) * s);
    out.bend = Float32Array.from(samples.triangles, (t) => tc.bend[t] ?? 0);
  }
  return out;
}
