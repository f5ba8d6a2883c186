// Proper-rotation registration of two parts (PCA frame hypotheses + point-to-plane ICP), which the
// duplicate rule (duplicate-rule.ts) measures after. Reflections are never tried, so a mirrored
// copy of a chiral part cannot align; scaled copies do not align either.
import type { Mesh, Vec3 } from '../../mesh/mesh';
import { analyseShape, type ShapeAnalysis } from './analysis';
import { globalDescriptorFromAnalysis } from './global-descriptor';
import { PROPER_SIGN_FLIPS } from './pose';
import { coverage, icp, indexSurface, subsetIndices, type IndexedSurface } from './registration';
import { axisAngle, composeRigid, invertRigid, rigidToMat4, type Rigid } from '../../mesh/transform';

/** Everything part-to-part needs about one model (computed once, at ingestion or on demand). */
export interface PreparedPart {
  analysis: ShapeAnalysis;
  surface: IndexedSurface;
  descriptor: Float32Array;
}

export function preparePart(mesh: Mesh, analysis: ShapeAnalysis = analyseShape(mesh)): PreparedPart {
  return { analysis, surface: indexSurface(analysis.samples), descriptor: globalDescriptorFromAnalysis(analysis) };
}

/** Relative eigenvalue gap under which rotations about the remaining axis are searched. */
const GAP = 0.06;

/** Candidate motions taking a's principal frame onto b's (4 sign flips × in-plane turns where axes are undetermined). */
export function poseHypotheses(a: ShapeAnalysis, b: ShapeAnalysis): Rigid[] {
  const Ra = a.pose.axes,
    Rb = b.pose.axes;
  const turns: number[][] = [[1, 0, 0, 0, 1, 0, 0, 0, 1]];
  const degenerate01 = a.pose.gaps[0] < GAP || b.pose.gaps[0] < GAP;
  const degenerate12 = a.pose.gaps[1] < GAP || b.pose.gaps[1] < GAP;
  const steps = 24;
  if (degenerate01) for (let k = 1; k < steps; k++) turns.push(axisAngle([0, 0, 1], (2 * Math.PI * k) / steps));
  if (degenerate12) for (let k = 1; k < steps; k++) turns.push(axisAngle([1, 0, 0], (2 * Math.PI * k) / steps));
  const out: Rigid[] = [];
  const toA: Rigid = { R: [...Ra[0], ...Ra[1], ...Ra[2]], t: [0, 0, 0] };
  toA.t = neg(mul3(toA.R, a.pose.centroid));
  const fromB: Rigid = {
    R: [Rb[0][0], Rb[1][0], Rb[2][0], Rb[0][1], Rb[1][1], Rb[2][1], Rb[0][2], Rb[1][2], Rb[2][2]],
    t: b.pose.centroid,
  };
  for (const f of PROPER_SIGN_FLIPS) {
    const F: Rigid = { R: [f[0], 0, 0, 0, f[1], 0, 0, 0, f[2]], t: [0, 0, 0] };
    for (const G of turns) out.push(composeRigid(fromB, composeRigid({ R: G, t: [0, 0, 0] }, composeRigid(F, toA))));
  }
  return out;
}

export interface Alignment {
  /** a placed in b's frame. */
  motion: Rigid;
  /** Column-major 4×4 of `motion`. */
  transform: number[];
  /** Share of a's surface on b after the motion, and of b's surface on placed a. */
  coverageAB: number;
  coverageBA: number;
  /** The other refined candidates, best first: a coarse mesh (inscribed in its curves) covers little at any motion, so coverage may rank a wrong one first. */
  alternatives: Rigid[];
}

/** Best proper rigid alignment of part a onto part b. */
export function alignParts(a: PreparedPart, b: PreparedPart, o: { tolerance?: number } = {}): Alignment {
  const tol = o.tolerance ?? ALIGN_TOLERANCE * Math.max(a.analysis.rmsRadius, b.analysis.rmsRadius);
  const quick = subsetIndices(a.analysis.samples.count, 200);
  const fine = subsetIndices(a.analysis.samples.count, 600);
  // The three best hypotheses by coverage (the first of equals): one that cannot pass the third
  // is not counted to the end.
  const hyps: { h: Rigid; c: number }[] = [];
  for (const h of poseHypotheses(a.analysis, b.analysis)) {
    const c = coverage(a.analysis.samples, quick, h, b.surface, tol * 3, hyps.length === 3 ? hyps[2]!.c : -1);
    if (Number.isNaN(c) || (hyps.length === 3 && c <= hyps[2]!.c)) continue;
    const at = hyps.findIndex((x) => x.c < c);
    hyps.splice(at < 0 ? hyps.length : at, 0, { h, c });
    hyps.length = Math.min(hyps.length, 3);
  }
  const R = b.analysis.rmsRadius;
  const refined = hyps
    .map(({ h }) => {
      const m = icp(a.analysis.samples, fine, b.surface, h, {
        iterations: 12,
        maxDist: 0.3 * R,
        minDist: Math.max(tol, 2 * b.surface.spacing),
      });
      return { m, c: coverage(a.analysis.samples, subsetIndices(a.analysis.samples.count, 1500), m, b.surface, tol) };
    })
    .sort((x, y) => y.c - x.c);
  const m = refined[0]!.m;
  const coverageBA = coverage(b.analysis.samples, subsetIndices(b.analysis.samples.count, 1500), invertRigid(m), a.surface, tol);
  return { motion: m, transform: rigidToMat4(m), coverageAB: refined[0]!.c, coverageBA, alternatives: refined.slice(1).map((r) => r.m) };
}

/** Surface tolerance of the alignment check, relative to the larger RMS radius. */
export const ALIGN_TOLERANCE = 0.01;

/** Coverage at or above this counts as full agreement (sampling and tessellation leave a little out). */
export const FULL_COVERAGE = 0.98;

function mul3(R: number[], v: Vec3): Vec3 {
  return [
    R[0]! * v[0] + R[1]! * v[1] + R[2]! * v[2],
    R[3]! * v[0] + R[4]! * v[1] + R[5]! * v[2],
    R[6]! * v[0] + R[7]! * v[1] + R[8]! * v[2],
  ];
}

function neg(v: Vec3): Vec3 {
  return [-v[0], -v[1], -v[2]];
}
