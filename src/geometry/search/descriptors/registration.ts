// Rigid registration helpers: point-to-plane ICP and surface coverage, on samples.
import type { Vec3 } from '../../mesh/mesh';
import { applyRigid, axisAngle, composeRigid, type Rigid } from '../../mesh/transform';
import { KdTree } from './kdtree';
import type { SurfaceSamples } from './sampling';

/** A surface prepared for queries: samples plus a kd-tree and the typical sample spacing. */
export interface IndexedSurface {
  samples: SurfaceSamples;
  tree: KdTree;
  /**
   * √(area / spacingSamples): typical distance between neighbouring samples (mm) at the density
   * that distances in spacings were set at — the samples' own unless the surface is sampled more
   * densely than that (to see narrow faces, not to narrow every search).
   */
  spacing: number;
}

export function indexSurface(samples: SurfaceSamples, spacingSamples = samples.count): IndexedSurface {
  return { samples, tree: new KdTree(samples.points, samples.count), spacing: Math.sqrt(samples.area / Math.max(1, spacingSamples)) };
}

/** Indices 0, k, 2k, … giving about `m` of `n` (systematic subset). */
export function subsetIndices(n: number, m: number): number[] {
  const step = Math.max(1, n / Math.max(1, m));
  const out: number[] = [];
  for (let x = 0; x < n; x += step) out.push(Math.floor(x));
  return out;
}

/**
 * Share of the chosen `src` samples (placed by `m`) that lie on `dst`'s surface: a dst sample
 * within `1.5 · spacing + tol` whose normal agrees (cos > 0.5) and that lies within `tol` along the
 * bisector of the two normals.
 * Returns the fraction 0..1; with `beat`, NaN as soon as the fraction cannot exceed it (a ranking
 * that keeps only the best few need not finish the rest).
 */
export function coverage(src: SurfaceSamples, idx: readonly number[], m: Rigid, dst: IndexedSurface, tol: number, beat = -1): number {
  if (!idx.length) return 0;
  const need = beat * idx.length;
  const P = src.points,
    N = src.normals,
    Q = dst.samples.points,
    QN = dst.samples.normals;
  const R = m.R;
  // 1.5 × the mean spacing: low-discrepancy samples on long sliver triangles (cylinders of CAD
  // tessellations) leave gaps of more than one spacing, which would read as missing surface.
  const radius = 1.5 * dst.spacing + tol;
  let hit = 0;
  for (let k = 0; k < idx.length; k++) {
    if (hit + idx.length - k <= need) return NaN;
    const i = idx[k]!;
    const x = P[i * 3]!,
      y = P[i * 3 + 1]!,
      z = P[i * 3 + 2]!;
    const px = R[0]! * x + R[1]! * y + R[2]! * z + m.t[0],
      py = R[3]! * x + R[4]! * y + R[5]! * z + m.t[1],
      pz = R[6]! * x + R[7]! * y + R[8]! * z + m.t[2];
    const nx = R[0]! * N[i * 3]! + R[1]! * N[i * 3 + 1]! + R[2]! * N[i * 3 + 2]!;
    const ny = R[3]! * N[i * 3]! + R[4]! * N[i * 3 + 1]! + R[5]! * N[i * 3 + 2]!;
    const nz = R[6]! * N[i * 3]! + R[7]! * N[i * 3 + 1]! + R[8]! * N[i * 3 + 2]!;
    let ok = false;
    dst.tree.within(px, py, pz, radius, (j) => {
      const qx = QN[j * 3]!,
        qy = QN[j * 3 + 1]!,
        qz = QN[j * 3 + 2]!;
      const cos = nx * qx + ny * qy + nz * qz;
      if (cos < 0.5) return;
      // Distance along the bisector of the two normals: for two points of one smoothly curved
      // surface the chord between them is orthogonal to it (exactly on a circle), so a sparse
      // sample on a bore or a cylinder does not read as a gap the way its tangent plane would.
      const bl = Math.sqrt(2 + 2 * cos);
      const d = ((px - Q[j * 3]!) * (qx + nx) + (py - Q[j * 3 + 1]!) * (qy + ny) + (pz - Q[j * 3 + 2]!) * (qz + nz)) / bl;
      return (ok = Math.abs(d) <= tol);
    });
    if (ok) hit++;
  }
  return hit / idx.length;
}

/**
 * Point-to-plane ICP of `src` samples (subset `idx`) onto `dst`, from `init`. Correspondence is
 * the nearest dst sample within `maxDist` whose normal agrees; the distance gate shrinks towards
 * `minDist`. Returns the refined motion.
 */
export function icp(
  src: SurfaceSamples,
  idx: readonly number[],
  dst: IndexedSurface,
  init: Rigid,
  o: { iterations?: number; maxDist: number; minDist: number },
): Rigid {
  let m = init;
  const P = src.points,
    N = src.normals,
    Q = dst.samples.points,
    QN = dst.samples.normals;
  const iterations = o.iterations ?? 15;
  const d2 = new Float64Array(1);
  // Linearise about the centre of the placed points, not the world origin: a part far from the
  // origin (hundreds of mm) would otherwise turn a small rotation step into a large translation
  // error, and ICP diverges from a start only a few degrees off.
  const c: Vec3 = [0, 0, 0];
  for (const i of idx) {
    const q = applyRigid(m, [P[i * 3]!, P[i * 3 + 1]!, P[i * 3 + 2]!]);
    c[0] += q[0] / idx.length;
    c[1] += q[1] / idx.length;
    c[2] += q[2] / idx.length;
  }
  for (let it = 0; it < iterations; it++) {
    const gate = o.maxDist * Math.pow(o.minDist / o.maxDist, it / Math.max(1, iterations - 1));
    const A = new Float64Array(36);
    const b = new Float64Array(6);
    let used = 0;
    const R = m.R;
    for (const i of idx) {
      const x = P[i * 3]!,
        y = P[i * 3 + 1]!,
        z = P[i * 3 + 2]!;
      const wx = R[0]! * x + R[1]! * y + R[2]! * z + m.t[0],
        wy = R[3]! * x + R[4]! * y + R[5]! * z + m.t[1],
        wz = R[6]! * x + R[7]! * y + R[8]! * z + m.t[2];
      const j = dst.tree.nearest(wx, wy, wz, gate, d2);
      if (j < 0) continue;
      const nx = R[0]! * N[i * 3]! + R[1]! * N[i * 3 + 1]! + R[2]! * N[i * 3 + 2]!;
      const ny = R[3]! * N[i * 3]! + R[4]! * N[i * 3 + 1]! + R[5]! * N[i * 3 + 2]!;
      const nz = R[6]! * N[i * 3]! + R[7]! * N[i * 3 + 1]! + R[8]! * N[i * 3 + 2]!;
      const qx = QN[j * 3]!,
        qy = QN[j * 3 + 1]!,
        qz = QN[j * 3 + 2]!;
      if (nx * qx + ny * qy + nz * qz < 0.5) continue;
      const r = (wx - Q[j * 3]!) * qx + (wy - Q[j * 3 + 1]!) * qy + (wz - Q[j * 3 + 2]!) * qz;
      // d residual / d(rotation ω about c, translation t) = ((p − c) × n, n)
      const px = wx - c[0],
        py = wy - c[1],
        pz = wz - c[2];
      const J = [py * qz - pz * qy, pz * qx - px * qz, px * qy - py * qx, qx, qy, qz];
      for (let a = 0; a < 6; a++) {
        b[a] = b[a]! - J[a]! * r;
        for (let k = 0; k < 6; k++) A[a * 6 + k] = A[a * 6 + k]! + J[a]! * J[k]!;
      }
      used++;
    }
    if (used < 6) break;
    for (let a = 0; a < 6; a++) A[a * 7] = A[a * 7]! * (1 + 1e-9) + 1e-12;
    const x = solve6(A, b);
    if (!x) break;
    const w: Vec3 = [x[0]!, x[1]!, x[2]!];
    const angle = Math.hypot(...w);
    const dR = angle > 0 ? axisAngle([w[0] / angle, w[1] / angle, w[2] / angle], angle) : [1, 0, 0, 0, 1, 0, 0, 0, 1];
    // Step: y ↦ dR (y − c) + c + t.
    const rc = applyRigid({ R: dR, t: [0, 0, 0] }, c);
    m = composeRigid({ R: dR, t: [c[0] - rc[0] + x[3]!, c[1] - rc[1] + x[4]!, c[2] - rc[2] + x[5]!] }, m);
    if (angle < 1e-6 && Math.hypot(x[3]!, x[4]!, x[5]!) < o.minDist * 1e-4) break;
  }
  return m;
}

/** Gaussian elimination with partial pivoting for a 6×6 system. */
function solve6(A: Float64Array, b: Float64Array): Float64Array | undefined {
  const n = 6;
  const M = Float64Array.from(A);
  const x = Float64Array.from(b);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r * n + c]!) > Math.abs(M[piv * n + c]!)) piv = r;
    if (Math.abs(M[piv * n + c]!) < 1e-18) return undefined;
    if (piv !== c) {
      for (let k = 0; k < n; k++) {
        const t = M[c * n + k]!;
        M[c * n + k] = M[piv * n + k]!;
        M[piv * n + k] = t;
      }
      const t = x[c]!;
      x[c] = x[piv]!;
      x[piv] = t;
    }
    for (let r = c + 1; r < n; r++) {
      const f = M[r * n + c]! / M[c * n + c]!;
      if (f === 0) continue;
      for (let k = c; k < n; k++) M[r * n + k] = M[r * n + k]! - f * M[c * n + k]!;
      x[r] = x[r]! - f * x[c]!;
    }
  }
  for (let r = n - 1; r >= 0; r--) {
    let s = x[r]!;
    for (let k = r + 1; k < n; k++) s -= M[r * n + k]! * x[k]!;
    x[r] = s / M[r * n + r]!;
  }
  return x;
}
