// Pose normalisation: area centroid, principal axes of the continuous surface covariance,
// axis signs from third moments, always a proper rotation (det = +1).
import { MM_PER_UNIT, type Mesh, type Vec3 } from '../../mesh/mesh';
import type { SurfaceSamples } from './sampling';

/** Exact area moments of a triangle mesh (continuous, so independent of the tessellation of flat faces). */
export interface SurfaceMoments {
  /** Surface area in mm². */
  area: number;
  /** Area centroid (mm). */
  centroid: Vec3;
  /** Covariance about the centroid, per unit area (mm²), row-major 3×3. */
  covariance: number[];
}

/**
 * Area, centroid and covariance by integrating over every triangle: for a uniform density on
 * triangle (a, b, c), E[x xᵀ] = (a aᵀ + b bᵀ + c cᵀ + s sᵀ) / 12 with s = a + b + c.
 */
export function surfaceMoments(mesh: Mesh, scale = MM_PER_UNIT[mesh.units ?? 'unknown']): SurfaceMoments {
  const p = mesh.positions;
  const idx = mesh.indices;
  let area = 0;
  const m1 = [0, 0, 0];
  const m2 = [0, 0, 0, 0, 0, 0]; // xx yy zz xy xz yz
  // Work relative to the first vertex to keep sums well conditioned far from the origin.
  const o = [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const a = idx[t]! * 3,
      b = idx[t + 1]! * 3,
      c = idx[t + 2]! * 3;
    const ax = p[a]! - o[0]!,
      ay = p[a + 1]! - o[1]!,
      az = p[a + 2]! - o[2]!;
    const bx = p[b]! - o[0]!,
      by = p[b + 1]! - o[1]!,
      bz = p[b + 2]! - o[2]!;
    const cx = p[c]! - o[0]!,
      cy = p[c + 1]! - o[1]!,
      cz = p[c + 2]! - o[2]!;
    const ux = bx - ax,
      uy = by - ay,
      uz = bz - az,
      vx = cx - ax,
      vy = cy - ay,
      vz = cz - az;
    const A = 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
    if (!(A > 0)) continue;
    area += A;
    const sx = ax + bx + cx,
      sy = ay + by + cy,
      sz = az + bz + cz;
    m1[0]! += (A * sx) / 3;
    m1[1]! += (A * sy) / 3;
    m1[2]! += (A * sz) / 3;
    const k = A / 12;
    m2[0]! += k * (ax * ax + bx * bx + cx * cx + sx * sx);
    m2[1]! += k * (ay * ay + by * by + cy * cy + sy * sy);
    m2[2]! += k * (az * az + bz * bz + cz * cz + sz * sz);
    m2[3]! += k * (ax * ay + bx * by + cx * cy + sx * sy);
    m2[4]! += k * (ax * az + bx * bz + cx * cz + sx * sz);
    m2[5]! += k * (ay * az + by * bz + cy * cz + sy * sz);
  }
  if (!(area > 0)) return { area: 0, centroid: [o[0]! * scale, o[1]! * scale, o[2]! * scale], covariance: [0, 0, 0, 0, 0, 0, 0, 0, 0] };
  const mx = m1[0]! / area,
    my = m1[1]! / area,
    mz = m1[2]! / area;
  const xx = m2[0]! / area - mx * mx,
    yy = m2[1]! / area - my * my,
    zz = m2[2]! / area - mz * mz;
  const xy = m2[3]! / area - mx * my,
    xz = m2[4]! / area - mx * mz,
    yz = m2[5]! / area - my * mz;
  const s2 = scale * scale;
  return {
    area: area * s2,
    centroid: [(mx + o[0]!) * scale, (my + o[1]!) * scale, (mz + o[2]!) * scale],
    covariance: [xx * s2, xy * s2, xz * s2, xy * s2, yy * s2, yz * s2, xz * s2, yz * s2, zz * s2],
  };
}

/**
 * Eigen-decomposition of a symmetric 3×3 (row-major) by cyclic Jacobi rotations. Returns
 * eigenvalues in descending order and the matching unit eigenvectors.
 */
export function symmetricEigen3(m: readonly number[]): { values: Vec3; vectors: [Vec3, Vec3, Vec3] } {
  const a = [m[0]!, m[1]!, m[2]!, m[3]!, m[4]!, m[5]!, m[6]!, m[7]!, m[8]!];
  const v = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(a[1]!) + Math.abs(a[2]!) + Math.abs(a[5]!);
    const diag = Math.abs(a[0]!) + Math.abs(a[4]!) + Math.abs(a[8]!);
    if (off <= 1e-15 * diag || off === 0) break;
    for (const [pI, qI] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ] as const) {
      const apq = a[pI * 3 + qI]!;
      if (apq === 0) continue;
      const app = a[pI * 3 + pI]!,
        aqq = a[qI * 3 + qI]!;
      const theta = (aqq - app) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k * 3 + pI]!,
          akq = a[k * 3 + qI]!;
        a[k * 3 + pI] = c * akp - s * akq;
        a[k * 3 + qI] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[pI * 3 + k]!,
          aqk = a[qI * 3 + k]!;
        a[pI * 3 + k] = c * apk - s * aqk;
        a[qI * 3 + k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k * 3 + pI]!,
          vkq = v[k * 3 + qI]!;
        v[k * 3 + pI] = c * vkp - s * vkq;
        v[k * 3 + qI] = s * vkp + c * vkq;
      }
    }
  }
  const order = [0, 1, 2].sort((i, j) => a[j * 3 + j]! - a[i * 3 + i]!);
  const values = order.map((i) => a[i * 3 + i]!) as Vec3;
  const vectors = order.map((i) => [v[i]!, v[3 + i]!, v[6 + i]!] as Vec3) as [Vec3, Vec3, Vec3];
  return { values, vectors };
}

/** A canonical pose: world → principal frame is x' = R (x − centroid), R's rows are the axes. */
export interface Pose {
  centroid: Vec3;
  /** Principal axes e1, e2, e3 (rows of R), descending variance, e3 = e1 × e2 (det R = +1). */
  axes: [Vec3, Vec3, Vec3];
  /** Covariance eigenvalues (mm²), descending. */
  eigenvalues: Vec3;
  /** Standardised third moment (skewness) of the samples along each axis, after sign fixing (≥ 0 for e1, e2). */
  skewness: Vec3;
  /**
   * How well each axis sign is determined, 0..1 (|skewness| relative to noise; low for
   * symmetric parts, where the sign is arbitrary and anything built on it must not rely on it).
   */
  signConfidence: Vec3;
  /**
   * Relative eigenvalue gaps (λ1−λ2)/λ1 and (λ2−λ3)/λ1: small gaps mean the axes in that plane
   * are arbitrary (rotational or cubic symmetry).
   */
  gaps: [number, number];
  /**
   * Handedness of the frame fixed by e1, e2: the sign of the skewness along e3 = e1 × e2
   * (+1 / −1; 0 when undetermined). A mirrored copy of a chiral part has the opposite handedness.
   */
  handedness: -1 | 0 | 1;
  /** Column-major 4×4 taking world coordinates (mm) into the principal frame. */
  toCanonical: number[];
}

const SKEW_NOISE = 0.05;

/**
 * Exact surface integrals (per unit area, mm) of the odd and mixed moments the pose signs and the
 * chirality features need, in the frame (e1, e2, e1 × e2) of the covariance eigenvectors about
 * the centroid. Polynomials of degree ≤ 5 are integrated exactly on each triangle (7-point
 * Dunavant rule), so — unlike sample estimates — they carry no sampling noise and depend on the
 * tessellation only through the geometry itself.
 */
export interface PrincipalMoments {
  /** E[x³], E[y³], E[z³]. */
  cubes: Vec3;
  /** E[xyz], E[x³yz], E[xy³z], E[xyz³]. */
  mixed: [number, number, number, number];
  /** E[x n_y n_z], E[n_x y n_z], E[n_x n_y z], E[n_x n_y n_z] (outward normals). */
  normal: [number, number, number, number];
}

// Dunavant degree-5 rule: barycentric points (a, b, b) and permutations, with weights.
const Q_A1 = 0.05971587178977,
  Q_B1 = 0.470142064105115,
  Q_W1 = 0.132394152788506;
const Q_A2 = 0.797426985353087,
  Q_B2 = 0.101286507323456,
  Q_W2 = 0.125939180544827;
const Q_POINTS: readonly [number, number, number, number][] = [
  [1 / 3, 1 / 3, 1 / 3, 0.225],
  [Q_A1, Q_B1, Q_B1, Q_W1],
  [Q_B1, Q_A1, Q_B1, Q_W1],
  [Q_B1, Q_B1, Q_A1, Q_W1],
  [Q_A2, Q_B2, Q_B2, Q_W2],
  [Q_B2, Q_A2, Q_B2, Q_W2],
  [Q_B2, Q_B2, Q_A2, Q_W2],
];

/** Exact principal-frame moments of a mesh (see {@link PrincipalMoments}). */
export function principalMoments(mesh: Mesh, moments: SurfaceMoments, scale = MM_PER_UNIT[mesh.units ?? 'unknown']): PrincipalMoments {
  const { vectors } = symmetricEigen3(moments.covariance);
  const e1 = vectors[0],
    e2 = vectors[1],
    e3 = cross(vectors[0], vectors[1]);
  const c = moments.centroid;
  const p = mesh.positions;
  const idx = mesh.indices;
  const nv = p.length / 3;
  // Vertices in the principal frame (mm), once.
  const q = new Float64Array(nv * 3);
  for (let v = 0; v < nv; v++) {
    const x = p[v * 3]! * scale - c[0],
      y = p[v * 3 + 1]! * scale - c[1],
      z = p[v * 3 + 2]! * scale - c[2];
    q[v * 3] = x * e1[0] + y * e1[1] + z * e1[2];
    q[v * 3 + 1] = x * e2[0] + y * e2[1] + z * e2[2];
    q[v * 3 + 2] = x * e3[0] + y * e3[1] + z * e3[2];
  }
  let area = 0,
    x3 = 0,
    y3 = 0,
    z3 = 0,
    xyz = 0,
    x3yz = 0,
    xy3z = 0,
    xyz3 = 0,
    xnn = 0,
    nyn = 0,
    nnz = 0,
    nnn = 0;
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const a = idx[t]! * 3,
      b = idx[t + 1]! * 3,
      d = idx[t + 2]! * 3;
    const ax = q[a]!,
      ay = q[a + 1]!,
      az = q[a + 2]!;
    const bx = q[b]!,
      by = q[b + 1]!,
      bz = q[b + 2]!;
    const dx = q[d]!,
      dy = q[d + 1]!,
      dz = q[d + 2]!;
    const ux = bx - ax,
      uy = by - ay,
      uz = bz - az,
      vx = dx - ax,
      vy = dy - ay,
      vz = dz - az;
    const cx = uy * vz - uz * vy,
      cy = uz * vx - ux * vz,
      cz = ux * vy - uy * vx;
    const l = Math.sqrt(cx * cx + cy * cy + cz * cz);
    if (!(l > 0)) continue;
    const A = 0.5 * l;
    area += A;
    const nx = cx / l,
      ny = cy / l,
      nz = cz / l;
    let s3x = 0,
      s3y = 0,
      s3z = 0,
      sxyz = 0,
      sx3yz = 0,
      sxy3z = 0,
      sxyz3 = 0;
    for (const [wa, wb, wd, w] of Q_POINTS) {
      const x = wa * ax + wb * bx + wd * dx,
        y = wa * ay + wb * by + wd * dy,
        z = wa * az + wb * bz + wd * dz;
      const m = x * y * z;
      s3x += w * x * x * x;
      s3y += w * y * y * y;
      s3z += w * z * z * z;
      sxyz += w * m;
      sx3yz += w * m * x * x;
      sxy3z += w * m * y * y;
      sxyz3 += w * m * z * z;
    }
    x3 += A * s3x;
    y3 += A * s3y;
    z3 += A * s3z;
    xyz += A * sxyz;
    x3yz += A * sx3yz;
    xy3z += A * sxy3z;
    xyz3 += A * sxyz3;
    // Linear in position, normal constant per triangle: the centroid rule is exact.
    const gx = (ax + bx + dx) / 3,
      gy = (ay + by + dy) / 3,
      gz = (az + bz + dz) / 3;
    xnn += A * gx * ny * nz;
    nyn += A * nx * gy * nz;
    nnz += A * nx * ny * gz;
    nnn += A * nx * ny * nz;
  }
  const k = area > 0 ? 1 / area : 0;
  return {
    cubes: [x3 * k, y3 * k, z3 * k],
    mixed: [xyz * k, x3yz * k, xy3z * k, xyz3 * k],
    normal: [xnn * k, nyn * k, nnz * k, nnn * k],
  };
}

/**
 * Pose from exact surface moments, with the axis signs from third moments: exact ones when
 * given ({@link principalMoments}), else estimated from the samples.
 */
export function normalisePose(moments: SurfaceMoments, samples: SurfaceSamples, exact?: PrincipalMoments): Pose {
  const { values, vectors } = symmetricEigen3(moments.covariance);
  const c = moments.centroid;
  const axes: [Vec3, Vec3, Vec3] = [vectors[0], vectors[1], cross(vectors[0], vectors[1])];
  const skew: Vec3 = [0, 0, 0];
  const n = samples.count;
  for (let k = 0; k < 3; k++) {
    const e = axes[k]!;
    const sd = Math.sqrt(Math.max(values[k]!, 1e-30));
    if (exact) {
      skew[k] = exact.cubes[k]! / (sd * sd * sd);
      continue;
    }
    let m3 = 0;
    for (let i = 0; i < n; i++) {
      const d =
        (samples.points[i * 3]! - c[0]) * e[0] + (samples.points[i * 3 + 1]! - c[1]) * e[1] + (samples.points[i * 3 + 2]! - c[2]) * e[2];
      m3 += d * d * d;
    }
    skew[k] = n ? m3 / n / (sd * sd * sd) : 0;
  }
  // e1, e2 signs from their skewness; e3 follows (proper rotation), its skewness then tells handedness.
  for (const k of [0, 1] as const) {
    if (skew[k]! < 0) {
      axes[k] = neg(axes[k]!);
      skew[k] = -skew[k]!;
    }
  }
  const flip3 = Math.sign(dot(axes[2], cross(axes[0], axes[1]))) || 1;
  axes[2] = cross(axes[0], axes[1]);
  // e3 follows e1 × e2, so its skewness changes sign with it.
  skew[2] = flip3 * skew[2];
  const conf = skew.map((s) => smoothstep(Math.abs(s), SKEW_NOISE, 3 * SKEW_NOISE)) as Vec3;
  const l1 = Math.max(values[0], 1e-30);
  const gaps: [number, number] = [(values[0] - values[1]) / l1, (values[1] - values[2]) / l1];
  const handedness = conf[0] > 0.5 && conf[1] > 0.5 && conf[2] > 0.5 ? (skew[2] > 0 ? 1 : -1) : 0;
  const [e1, e2, e3] = axes;
  const tx = -(e1[0] * c[0] + e1[1] * c[1] + e1[2] * c[2]);
  const ty = -(e2[0] * c[0] + e2[1] * c[1] + e2[2] * c[2]);
  const tz = -(e3[0] * c[0] + e3[1] * c[1] + e3[2] * c[2]);
  const toCanonical = [e1[0], e2[0], e3[0], 0, e1[1], e2[1], e3[1], 0, e1[2], e2[2], e3[2], 0, tx, ty, tz, 1];
  return { centroid: c, axes, eigenvalues: values, skewness: skew, signConfidence: conf, gaps, handedness, toCanonical };
}

/**
 * The four proper rotations that map one principal frame onto another when axis signs are
 * unknown (flip none, or two of the three axes), as sign triples.
 */
export const PROPER_SIGN_FLIPS: readonly Vec3[] = [
  [1, 1, 1],
  [-1, -1, 1],
  [-1, 1, -1],
  [1, -1, -1],
];

export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function neg(a: Vec3): Vec3 {
  return [-a[0], -a[1], -a[2]];
}

export function smoothstep(x: number, lo: number, hi: number): number {
  const t = Math.min(1, Math.max(0, (x - lo) / (hi - lo)));
  return t * t * (3 - 2 * t);
}
