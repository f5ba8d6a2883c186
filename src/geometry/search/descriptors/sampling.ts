// Area-weighted surface sampling: the tessellation-independent base of every descriptor here.
import { MM_PER_UNIT, type Mesh } from '../../mesh/mesh';

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). Deterministic per seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Points on a surface with unit outward normals (face normals of the triangle they lie on). */
export interface SurfaceSamples {
  /** x, y, z per sample (length 3n), in millimetres (the mesh's `units` applied). */
  points: Float64Array;
  /** Unit normal per sample (length 3n). */
  normals: Float64Array;
  /** Number of samples. */
  count: number;
  /** Total surface area (mm²) of the sampled mesh. */
  area: number;
  /** The triangle each sample lies on (from {@link sampleSurface}; not kept by copies). */
  triangles?: Uint32Array;
}

export interface SampleOptions {
  /** Samples to draw (default 4096). */
  count?: number;
  /** PRNG seed (default 1). Same mesh + same seed → same samples. */
  seed?: number;
  /** Multiply coordinates by this (default: millimetres per the mesh's unit). */
  scale?: number;
  /** The mesh's {@link triangleTable}, when the caller draws more than once. */
  table?: TriangleTable;
}

// Plastic-number (R2) low-discrepancy sequence constants: well-spread points inside a triangle.
const G = 1.324717957244746;
const A1 = 1 / G;
const A2 = 1 / (G * G);

/** Cumulative areas and unit normals of a mesh's triangles: what every draw from it starts with. */
export interface TriangleTable {
  /** Running sum of triangle areas (mesh units²). */
  cdf: Float64Array;
  /** Unit normal per triangle (zero for degenerate ones). */
  normals: Float64Array;
  /** Total area (mesh units²). */
  total: number;
}

/** The {@link TriangleTable} of a mesh; pass it to several {@link sampleSurface} calls to build it once. */
export function triangleTable(mesh: Mesh): TriangleTable {
  const p = mesh.positions;
  const idx = mesh.indices;
  const nt = Math.floor(idx.length / 3);
  const cdf = new Float64Array(nt);
  const fn = new Float64Array(nt * 3);
  let total = 0;
  for (let t = 0; t < nt; t++) {
    const a = idx[t * 3]! * 3,
      b = idx[t * 3 + 1]! * 3,
      c = idx[t * 3 + 2]! * 3;
    const ux = p[b]! - p[a]!,
      uy = p[b + 1]! - p[a + 1]!,
      uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!,
      vy = p[c + 1]! - p[a + 1]!,
      vz = p[c + 2]! - p[a + 2]!;
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (l > 0 && Number.isFinite(l)) {
      fn[t * 3] = nx / l;
      fn[t * 3 + 1] = ny / l;
      fn[t * 3 + 2] = nz / l;
      total += 0.5 * l;
    }
    cdf[t] = total;
  }
  return { cdf, normals: fn, total };
}

/**
 * Area-weighted surface samples. Triangles are visited in CDF order with systematic sampling
 * (sample i sits at CDF position (i + u)/n), so each triangle gets its expected share of samples
 * within one; inside a triangle successive samples follow a randomly shifted R2 sequence. This
 * has far less variance than independent sampling, so descriptors of two tessellations of the
 * same surface agree closely. Degenerate triangles get no samples.
 */
export function sampleSurface(mesh: Mesh, options: SampleOptions = {}): SurfaceSamples {
  const n = Math.max(1, Math.floor(options.count ?? 4096));
  const rand = prng(options.seed ?? 1);
  const s = options.scale ?? MM_PER_UNIT[mesh.units ?? 'unknown'];
  const p = mesh.positions;
  const idx = mesh.indices;
  const { cdf, normals: fn, total } = options.table ?? triangleTable(mesh);
  const nt = cdf.length;
  const points = new Float64Array(n * 3);
  const normals = new Float64Array(n * 3);
  const triangles = new Uint32Array(n);
  const out: SurfaceSamples = { points, normals, count: n, area: total * s * s, triangles };
  if (!(total > 0)) {
    out.count = 0;
    out.points = new Float64Array(0);
    out.normals = new Float64Array(0);
    return out;
  }
  const u0 = rand();
  let r1 = rand();
  let r2 = rand();
  let t = 0;
  let prevT = -1;
  for (let i = 0; i < n; i++) {
    const target = ((i + u0) / n) * total;
    while (t < nt - 1 && cdf[t]! <= target) t++;
    if (t !== prevT) {
      // New triangle: fresh random shift of the R2 sequence.
      r1 = rand();
      r2 = rand();
      prevT = t;
    }
    r1 = (r1 + A1) % 1;
    r2 = (r2 + A2) % 1;
    let x = r1,
      y = r2;
    if (x + y > 1) {
      x = 1 - x;
      y = 1 - y;
    }
    const a = idx[t * 3]! * 3,
      b = idx[t * 3 + 1]! * 3,
      c = idx[t * 3 + 2]! * 3;
    triangles[i] = t;
    for (let k = 0; k < 3; k++) {
      const pa = p[a + k]!;
      points[i * 3 + k] = s * (pa + x * (p[b + k]! - pa) + y * (p[c + k]! - pa));
      normals[i * 3 + k] = fn[t * 3 + k]!;
    }
  }
  return out;
}

/** Applies a column-major 4×4 rigid transform (rotation + translation) to samples, in a copy. */
export function transformSamples(s: SurfaceSamples, m: ArrayLike<number>): SurfaceSamples {
  const points = new Float64Array(s.count * 3);
  const normals = new Float64Array(s.count * 3);
  const e = (i: number) => m[i] ?? 0;
  for (let i = 0; i < s.count; i++) {
    const x = s.points[i * 3]!,
      y = s.points[i * 3 + 1]!,
      z = s.points[i * 3 + 2]!;
    const nx = s.normals[i * 3]!,
      ny = s.normals[i * 3 + 1]!,
      nz = s.normals[i * 3 + 2]!;
    points[i * 3] = e(0) * x + e(4) * y + e(8) * z + e(12);
    points[i * 3 + 1] = e(1) * x + e(5) * y + e(9) * z + e(13);
    points[i * 3 + 2] = e(2) * x + e(6) * y + e(10) * z + e(14);
    normals[i * 3] = e(0) * nx + e(4) * ny + e(8) * nz;
    normals[i * 3 + 1] = e(1) * nx + e(5) * ny + e(9) * nz;
    normals[i * 3 + 2] = e(2) * nx + e(6) * ny + e(10) * nz;
  }
  return { points, normals, count: s.count, area: s.area };
}
