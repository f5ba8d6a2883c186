// Oriented bounding extents in the principal frame, with the in-plane angle fixed by a
// minimum-area search wherever the principal axes are not determined (equal eigenvalues).
import { MM_PER_UNIT, type Mesh, type Vec3 } from '../../mesh/mesh';
import type { Pose } from './pose';

/** Relative eigenvalue gap below which two principal axes are treated as arbitrary in their plane. */
const DEGENERATE_GAP = 0.15;

/**
 * Side lengths (mm) of an oriented box around the mesh vertices, sorted descending. The box is
 * aligned with the principal axes; in a plane where two eigenvalues are close (a square plate, a
 * hex nut, a shaft's cross-section) it is turned to the angle of least area, so that the result
 * does not depend on the arbitrary axes PCA returns there.
 */
export function orientedExtents(mesh: Mesh, pose: Pose, maxVertices = 20_000): Vec3 {
  const s = MM_PER_UNIT[mesh.units ?? 'unknown'];
  const p = mesh.positions;
  const nv = p.length / 3;
  const step = Math.max(1, Math.ceil(nv / maxVertices));
  const m = Math.ceil(nv / step);
  const q = [new Float64Array(m), new Float64Array(m), new Float64Array(m)];
  const c = pose.centroid;
  let j = 0;
  for (let i = 0; i < nv; i += step, j++) {
    const x = p[i * 3]! * s - c[0],
      y = p[i * 3 + 1]! * s - c[1],
      z = p[i * 3 + 2]! * s - c[2];
    for (let k = 0; k < 3; k++) {
      const e = pose.axes[k]!;
      q[k]![j] = x * e[0] + y * e[1] + z * e[2];
    }
  }
  const ext: Vec3 = [range(q[0]!, j), range(q[1]!, j), range(q[2]!, j)];
  const l = pose.eigenvalues;
  const l0 = Math.max(l[0], 1e-30);
  for (const [a, b] of [
    [0, 1],
    [1, 2],
  ] as const) {
    if ((l[a]! - l[b]!) / Math.max(l[a]!, 1e-30) > DEGENERATE_GAP && (l[a]! - l[b]!) / l0 > 0.01) continue;
    // Extremes at any angle lie on the convex hull: search over its few vertices, not all of them.
    const [hu, hv] = hull2d(q[a]!, q[b]!, j);
    const best = minAreaAngle(hu, hv, hu.length);
    ext[a] = best[0];
    ext[b] = best[1];
  }
  return ext.sort((x, y) => y - x) as Vec3;
}

function range(v: Float64Array, n: number): number {
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return n ? hi - lo : 0;
}

function extentsAt(u: Float64Array, v: Float64Array, n: number, theta: number): [number, number] {
  const c = Math.cos(theta),
    s = Math.sin(theta);
  let lo1 = Infinity,
    hi1 = -Infinity,
    lo2 = Infinity,
    hi2 = -Infinity;
  for (let i = 0; i < n; i++) {
    const a = c * u[i]! + s * v[i]!;
    const b = -s * u[i]! + c * v[i]!;
    if (a < lo1) lo1 = a;
    if (a > hi1) hi1 = a;
    if (b < lo2) lo2 = b;
    if (b > hi2) hi2 = b;
  }
  return [hi1 - lo1, hi2 - lo2];
}

/** Extents of the least-area rectangle over rotations in the (u, v) plane (coarse grid, then refined). */
function minAreaAngle(u: Float64Array, v: Float64Array, n: number): [number, number] {
  let best = extentsAt(u, v, n, 0);
  let bestTheta = 0;
  const coarse = 36;
  for (let k = 1; k < coarse; k++) {
    const th = ((Math.PI / 2) * k) / coarse;
    const e = extentsAt(u, v, n, th);
    if (e[0] * e[1] < best[0] * best[1] - 1e-12) {
      best = e;
      bestTheta = th;
    }
  }
  let h = Math.PI / 2 / coarse / 2;
  for (let it = 0; it < 6; it++, h /= 2) {
    for (const th of [bestTheta - h, bestTheta + h]) {
      const e = extentsAt(u, v, n, th);
      if (e[0] * e[1] < best[0] * best[1] - 1e-12) {
        best = e;
        bestTheta = th;
      }
    }
  }
  return best;
}

/** Vertices of the 2-D convex hull of (u[i], v[i]), i < n (Andrew's monotone chain). */
function hull2d(u: Float64Array, v: Float64Array, n: number): [Float64Array, Float64Array] {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((i, k) => u[i]! - u[k]! || v[i]! - v[k]!);
  const out = new Uint32Array(2 * n + 1);
  let m = 0;
  const turn = (o: number, a: number, b: number) => (u[a]! - u[o]!) * (v[b]! - v[o]!) - (v[a]! - v[o]!) * (u[b]! - u[o]!);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    while (m >= 2 && turn(out[m - 2]!, out[m - 1]!, i) <= 0) m--;
    out[m++] = i;
  }
  for (let k = n - 2, lower = m + 1; k >= 0; k--) {
    const i = order[k]!;
    while (m >= lower && turn(out[m - 2]!, out[m - 1]!, i) <= 0) m--;
    out[m++] = i;
  }
  const count = n === 0 ? 0 : Math.max(1, Math.min(n, m - 1));
  const hu = new Float64Array(count),
    hv = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    hu[k] = u[out[k]!]!;
    hv[k] = v[out[k]!]!;
  }
  return [hu, hv];
}
