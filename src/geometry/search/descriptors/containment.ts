// Part-in-part: how much of one model's surface is found in another, after placing it there.
// Registration: the known placement when there is one (linked assembly parts), otherwise
// point-pair-feature voting (Drost et al. 2010) for hypotheses, then point-to-plane ICP.
import type { Mesh, Vec3 } from '../../mesh/mesh';
import { analyseShape, type ShapeAnalysis } from './analysis';
import { coverage, icp, indexSurface, subsetIndices, type IndexedSurface } from './registration';
import { applyRigid, axisAngle, composeRigid, invertRigid, mat4ToRigid, rigidToMat4, type Rigid } from '../../mesh/transform';
import { KdTree } from './kdtree';
import { sampleSurface, type SurfaceSamples } from './sampling';

/** A model prepared for containment queries. */
export interface ContainmentModel {
  analysis: ShapeAnalysis;
  surface: IndexedSurface;
}

/** Surface samples for containment: dense enough that a small part inside a large assembly is well covered. */
export function prepareContainment(mesh: Mesh, o: { samples?: number; analysis?: ShapeAnalysis } = {}): ContainmentModel {
  const analysis = o.analysis ?? analyseShape(mesh);
  const samples = o.samples && o.samples !== analysis.samples.count ? sampleSurface(mesh, { count: o.samples, seed: 3 }) : analysis.samples;
  return { analysis: { ...analysis, samples }, surface: indexSurface(samples) };
}

export interface ContainmentResult {
  /** Share of the query's surface found on the other model (0..100). */
  forward: number;
  /** Share of the other model's surface covered by the placed query (0..100). */
  reverse: number;
  /** Column-major 4×4 placing the query in the other's frame. */
  transform: number[];
  /** How the placement was found. */
  method: 'known' | 'ppf';
}

export interface ContainmentOptions {
  /** Known placement of the query in the other's frame (column-major), e.g. from an assembly tree. */
  placement?: ArrayLike<number>;
  /** Surface tolerance (mm); default 1.5 % of the query's RMS radius (at least 0.05 mm). */
  tolerance?: number;
}

export function containment(query: ContainmentModel, other: ContainmentModel, o: ContainmentOptions = {}): ContainmentResult {
  const tol = o.tolerance ?? Math.max(0.05, 0.015 * query.analysis.rmsRadius);
  let motion: Rigid;
  let method: ContainmentResult['method'];
  if (o.placement) {
    motion = mat4ToRigid(o.placement);
    method = 'known';
  } else {
    // Register the smaller surface into the larger one (a part into its assembly), then invert
    // if needed: the placement is the same either way, and voting works from the part's features.
    if (query.analysis.moments.area <= other.analysis.moments.area) motion = register(query, other, tol);
    else motion = invertRigid(register(other, query, Math.max(0.05, 0.015 * other.analysis.rmsRadius)));
    method = 'ppf';
  }
  const qIdx = subsetIndices(query.analysis.samples.count, 2000);
  const forward = coverage(query.analysis.samples, qIdx, motion, other.surface, tol);
  const oIdx = subsetIndices(other.analysis.samples.count, 4000);
  const reverse = coverage(other.analysis.samples, oIdx, invertRigid(motion), query.surface, tol);
  return { forward: 100 * forward, reverse: 100 * reverse, transform: rigidToMat4(motion), method };
}

// --- point pair features --------------------------------------------------------------------

const ANGLE_BINS = 15; // 12°
const ALPHA_BINS = 30; // 12°

interface ModelTable {
  table: Map<number, number[]>; // key → [ref, alphaBin, ref, alphaBin, ...]
  refs: number[];
  distStep: number;
  diameter: number;
}

function ppfKey(p1: Vec3, n1: Vec3, p2: Vec3, n2: Vec3, distStep: number): number {
  const d: Vec3 = [p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]];
  const L = Math.hypot(...d);
  if (L === 0) return -1;
  const u: Vec3 = [d[0] / L, d[1] / L, d[2] / L];
  const q = (c: number) => Math.min(ANGLE_BINS - 1, Math.floor((Math.acos(Math.max(-1, Math.min(1, c))) / Math.PI) * ANGLE_BINS));
  const f1 = Math.floor(L / distStep);
  const f2 = q(n1[0] * u[0] + n1[1] * u[1] + n1[2] * u[2]);
  const f3 = q(n2[0] * u[0] + n2[1] * u[1] + n2[2] * u[2]);
  const f4 = q(n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2]);
  return ((f1 * ANGLE_BINS + f2) * ANGLE_BINS + f3) * ANGLE_BINS + f4;
}

/** Motion taking point p with normal n to the origin with n along +x. */
function toLocal(p: Vec3, n: Vec3): Rigid {
  const c = n[0];
  const axis: Vec3 = [0, n[2], -n[1]]; // n × x
  const s = Math.hypot(axis[1], axis[2]);
  let R: number[];
  if (s < 1e-9) R = c > 0 ? [1, 0, 0, 0, 1, 0, 0, 0, 1] : [-1, 0, 0, 0, -1, 0, 0, 0, 1];
  else R = axisAngle([0, axis[1] / s, axis[2] / s], Math.atan2(s, c));
  const t = applyRigid({ R, t: [0, 0, 0] }, p);
  return { R, t: [-t[0], -t[1], -t[2]] };
}

function alphaOf(local: Rigid, p: Vec3): number {
  const q = applyRigid(local, p);
  return Math.atan2(-q[2], q[1]);
}

const pt = (s: SurfaceSamples, i: number): Vec3 => [s.points[i * 3]!, s.points[i * 3 + 1]!, s.points[i * 3 + 2]!];
const nm = (s: SurfaceSamples, i: number): Vec3 => [s.normals[i * 3]!, s.normals[i * 3 + 1]!, s.normals[i * 3 + 2]!];

function buildModelTable(m: ContainmentModel, count = 250): ModelTable {
  const s = m.analysis.samples;
  const refs = subsetIndices(s.count, count);
  const e = m.analysis.extents;
  const diameter = Math.hypot(e[0], e[1], e[2]);
  const distStep = diameter * 0.05;
  const table = new Map<number, number[]>();
  for (let a = 0; a < refs.length; a++) {
    const i = refs[a]!;
    const pi = pt(s, i),
      ni = nm(s, i);
    const local = toLocal(pi, ni);
    for (const j of refs) {
      if (j === i) continue;
      const key = ppfKey(pi, ni, pt(s, j), nm(s, j), distStep);
      if (key < 0) continue;
      const al = alphaOf(local, pt(s, j));
      let list = table.get(key);
      if (!list) table.set(key, (list = []));
      list.push(a, al);
    }
  }
  return { table, refs, distStep, diameter };
}

/** PPF voting + verification + ICP: the best motion of `query` into `other`. */
function register(query: ContainmentModel, other: ContainmentModel, tol: number): Rigid {
  const mt = buildModelTable(query);
  const os = other.analysis.samples;
  const sceneRefs = subsetIndices(os.count, 250);
  // Pairing partners: a systematic subset of the scene, about as dense as the query's table.
  const density = mt.refs.length / Math.max(query.analysis.moments.area, 1e-12);
  const partnerIdx = subsetIndices(os.count, Math.min(os.count, 1500, Math.max(300, Math.round(density * other.analysis.moments.area))));
  const partnerPts = new Float64Array(partnerIdx.length * 3);
  partnerIdx.forEach((j, k) => partnerPts.set(os.points.subarray(j * 3, j * 3 + 3), k * 3));
  const partners = new KdTree(partnerPts, partnerIdx.length);
  const acc = new Float64Array(mt.refs.length * ALPHA_BINS);
  const candidates: { votes: number; motion: Rigid }[] = [];
  const qs = query.analysis.samples;
  for (const sr of sceneRefs) {
    acc.fill(0);
    const ps = pt(os, sr),
      ns = nm(os, sr);
    const local = toLocal(ps, ns);
    partners.within(ps[0], ps[1], ps[2], mt.diameter, (k) => {
      const j = partnerIdx[k]!;
      if (j === sr) return;
      const pj = pt(os, j);
      const key = ppfKey(ps, ns, pj, nm(os, j), mt.distStep);
      const list = key >= 0 ? mt.table.get(key) : undefined;
      if (!list) return;
      const as = alphaOf(local, pj);
      for (let k = 0; k < list.length; k += 2) {
        let al = list[k + 1]! - as;
        if (al < -Math.PI) al += 2 * Math.PI;
        if (al >= Math.PI) al -= 2 * Math.PI;
        const bin = Math.min(ALPHA_BINS - 1, Math.floor(((al + Math.PI) / (2 * Math.PI)) * ALPHA_BINS));
        acc[list[k]! * ALPHA_BINS + bin]! += 1;
      }
    });
    let best = 0,
      bestK = -1;
    for (let k = 0; k < acc.length; k++) {
      if (acc[k]! > best) {
        best = acc[k]!;
        bestK = k;
      }
    }
    if (bestK < 0) continue;
    const mr = mt.refs[Math.floor(bestK / ALPHA_BINS)]!;
    const alpha = ((bestK % ALPHA_BINS) + 0.5) * ((2 * Math.PI) / ALPHA_BINS) - Math.PI;
    // query point → its local frame → rotate by α about x → scene local frame inverse.
    const motion = composeRigid(
      invertRigid(local),
      composeRigid({ R: axisAngle([1, 0, 0], alpha), t: [0, 0, 0] }, toLocal(pt(qs, mr), nm(qs, mr))),
    );
    candidates.push({ votes: best, motion });
  }
  candidates.sort((a, b) => b.votes - a.votes);
  const quick = subsetIndices(qs.count, 200);
  const scored = candidates
    .slice(0, 60)
    .map((c) => ({ ...c, cov: coverage(qs, quick, c.motion, other.surface, tol * 3) }))
    .sort((a, b) => b.cov - a.cov)
    .slice(0, 4);
  const fine = subsetIndices(qs.count, 600);
  let best: { motion: Rigid; cov: number } | undefined;
  const R = query.analysis.rmsRadius;
  for (const c of scored) {
    const m = icp(qs, fine, other.surface, c.motion, {
      iterations: 15,
      maxDist: 0.2 * R,
      minDist: Math.max(tol, 1.5 * other.surface.spacing),
    });
    const cov = coverage(qs, quick, m, other.surface, tol);
    if (!best || cov > best.cov) best = { motion: m, cov };
  }
  return best?.motion ?? { R: [1, 0, 0, 0, 1, 0, 0, 0, 1], t: [0, 0, 0] };
}
