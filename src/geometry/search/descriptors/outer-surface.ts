// The outer surface of a mesh: what can be seen from outside. Exports often carry more than the
// part's skin — bodies cut apart with their shared faces kept, an enclosed body (a die in a
// package), pins running into a housing — and two files of one part then differ only inside.
// Faces lying on another body's face turned the other way (the two sides of a cut; two bodies'
// curved faces touching, within their facets' chord errors: a bolt's shank in its hole) are dropped;
// the rest is rasterised into a voxel grid, the empty space is found as the free space inside no
// body (by the winding number, so a narrow bore the space around cannot reach through the grid
// counts too), and surface with none of it in the cells around is dropped; a triangle partly
// inside is split until its pieces are about a voxel wide. Pure; used for part-to-part comparison
// only (part-in-part keeps every body, since a part inside an assembly is what it looks for).
import type { Mesh, Vec3 } from '../../mesh/mesh';
import { faceNormals, shellRoots } from '../../mesh/mesh-facts';
import type { ChordErrors } from './chord';
import { cross, surfaceMoments, symmetricEigen3 } from './pose';

/** Cells along the longest side of the grid. */
const RESOLUTION = 128;
/** Cells (along each axis) within which exterior space makes a surface point outer. */
const NEAR_EXTERIOR = 1;
/** Off a cell's centre (cells), so a ray along x does not run along a face or edge of an axis-aligned part. */
const RAY_JITTER = 0.0137;

/**
 * Where a triangle is looked at (barycentric u, v): corners, edge midpoints and centroid, pulled a
 * little towards the centroid so a corner on a shared edge reads its own side.
 */
const CLASSIFY_POINTS = (
  [
    [0, 0],
    [1, 0],
    [0, 1],
    [0.5, 0],
    [0, 0.5],
    [0.5, 0.5],
    [1 / 3, 1 / 3],
  ] as const
).map(([u, v]) => [u * 0.96 + 0.0133, v * 0.96 + 0.0133] as const);

export interface OuterSurface {
  mesh: Mesh;
  /** For each output triangle, the input triangle it comes from. */
  source: Uint32Array;
  /** Share of the input area dropped as hidden. */
  hiddenShare: number;
}

/** Whether a welded mesh can hold hidden surface: an edge shared by more than two faces, or several shells. */
export function mayHideSurface(welded: Mesh, shells: number): boolean {
  if (shells > 1) return true;
  const idx = welded.indices;
  const n = welded.positions.length / 3;
  const seen = new Map<number, number>();
  for (let t = 0; t < idx.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = idx[t + k]!,
        b = idx[t + ((k + 1) % 3)]!;
      const key = a < b ? a * n + b : b * n + a;
      const c = (seen.get(key) ?? 0) + 1;
      if (c > 2) return true;
      seen.set(key, c);
    }
  }
  return false;
}

/**
 * Triangles to drop before looking from outside: both faces of a pair that share their three
 * vertices with opposite windings (two bodies touching: the face between them is inside), and
 * all but one of faces repeated with the same winding. Needs welded vertices.
 */
function coincidentFaces(idx: Uint32Array): Uint8Array {
  const nt = idx.length / 3;
  const drop = new Uint8Array(nt);
  // Triangles grouped by their sorted vertices: chained by the lower two (a number key, not a
  // string per triangle), then split by the third. Chains hold their triangles in ascending order.
  let nv = 0;
  for (let i = 0; i < idx.length; i++) if (idx[i]! >= nv) nv = idx[i]! + 1;
  const hi = new Uint32Array(nt);
  const head = new Map<number, number>();
  const next = new Int32Array(nt).fill(-1);
  const tail = new Map<number, number>();
  for (let t = 0; t < nt; t++) {
    const a = idx[t * 3]!,
      b = idx[t * 3 + 1]!,
      c = idx[t * 3 + 2]!;
    const lo = Math.min(a, b, c),
      top = Math.max(a, b, c);
    const mid = a + b + c - lo - top;
    hi[t] = top;
    const key = lo * nv + mid;
    const last = tail.get(key);
    if (last === undefined) head.set(key, t);
    else next[last] = t;
    tail.set(key, t);
  }
  // Winding: a cyclic rotation of the same order is the same orientation.
  const parity = (t: number) => {
    const a = idx[t * 3]!,
      b = idx[t * 3 + 1]!,
      c = idx[t * 3 + 2]!;
    return (a < b ? 1 : 0) + (b < c ? 1 : 0) + (c < a ? 1 : 0) === 2 ? 1 : 0;
  };
  for (const first of head.values()) {
    if (next[first]! < 0) continue;
    const chain: number[] = [];
    for (let t = first; t >= 0; t = next[t]!) chain.push(t);
    for (const third of new Set(chain.map((t) => hi[t]!))) {
      const list = chain.filter((t) => hi[t] === third);
      if (list.length < 2) continue;
      const up = list.filter((t) => parity(t) === 1),
        down = list.filter((t) => parity(t) === 0);
      const pairs = Math.min(up.length, down.length);
      for (let i = 0; i < pairs; i++) drop[up[i]!] = drop[down[i]!] = 1;
      for (const rest of [up.slice(pairs), down.slice(pairs)]) for (const t of rest.slice(1)) drop[t] = 1;
    }
  }
  return drop;
}

/**
 * Normal directions binned per axis (8 bins of 0.25 over [−1, 1]): a face lies on another turned
 * the other way only when their unit normals are within 0.1 of opposite (a dot product of −0.995
 * or less), so the faces worth testing against a point of t have their key in a box of at most
 * 2 bins per axis around −n(t). Cell lists are sorted by this key so a query skips every other
 * direction in a step, and each cell keeps a 64-bit mask of coarser bins (4 per axis) so most
 * cells are skipped outright: with a fixed number of cells along the part, a finely tessellated
 * part (a long bar's thousands of facets in a few hundred cells) otherwise pays every face of a
 * cell for every point looked at, which grows with the square of the triangle count.
 */
const NORMAL_BINS = 8;
const normalBin = (v: number) => Math.min(NORMAL_BINS - 1, Math.max(0, Math.floor((v + 1) * (NORMAL_BINS / 2))));
/** Half-width of the box around −n(t) that holds every normal at a dot product of −0.995 or less (|n − m|² = 2 − 2·0.995), with a margin for rounding. */
const OPPOSITE_REACH = 0.1 + 1e-9;

/**
 * The outer surface, found in the part's own frame ({@link gridFrame}): the grid's cells then lie
 * the same way on the part however the file placed it, and a file turned in space keeps the same
 * surface (a coarse export of an assembly, turned, dropped 0.9 % more of its area than the same
 * mesh unturned: its bolts' narrow clearances fell into other cells).
 */
export function outerSurface(mesh: Mesh, curves?: Curves): OuterSurface {
  const frame = gridFrame(mesh);
  if (!frame) return outerSurfaceInGrid(mesh, curves);
  const out = outerSurfaceInGrid({ ...mesh, positions: turn(mesh.positions, frame, false) }, curves);
  return { ...out, mesh: { ...out.mesh, positions: turn(out.mesh.positions, frame, true) } };
}

/** Faces within this of a direction face it (cos 2°). */
const FACING = Math.cos((2 * Math.PI) / 180);
/** The largest faces are the candidate directions. */
const FRAME_CANDIDATES = 48;
/** At most this many faces (every k-th) vote for a direction. */
const FRAME_VOTERS = 20_000;
/** A direction is the part's own when faces holding this share of the voters' area face it (the first), or this half of it (the second). */
const FRAME_SUPPORT = 0.1;

/**
 * Rows of an orthogonal matrix taking the part into its own frame. The first axis is the direction most of the flat area faces (the
 * largest faces are the candidates), the second the one most of it faces square to that; for a
 * part without such faces, its surface's principal axes. Every step is measured on the part, so a
 * part turned in space has the same frame turned with it.
 */
function gridFrame(mesh: Mesh): number[] | undefined {
  const { normal, area2 } = faceNormals(mesh.positions, mesh.indices);
  const nt = area2.length;
  if (nt === 0) return undefined;
  // The largest faces, largest first (the first of equals kept).
  const candidates: number[] = [];
  for (let t = 0; t < nt; t++) {
    if (!(area2[t]! > 0)) continue;
    if (candidates.length === FRAME_CANDIDATES && !(area2[t]! > area2[candidates[FRAME_CANDIDATES - 1]!]!)) continue;
    let i = Math.min(candidates.length, FRAME_CANDIDATES - 1);
    while (i > 0 && area2[candidates[i - 1]!]! < area2[t]!) {
      candidates[i] = candidates[i - 1]!;
      i--;
    }
    candidates[i] = t;
  }
  const stride = Math.max(1, Math.ceil(nt / FRAME_VOTERS));
  let total = 0;
  for (let t = 0; t < nt; t += stride) total += area2[t]!;
  const support = (c: number) => {
    let s = 0;
    for (let t = 0; t < nt; t += stride)
      if (
        Math.abs(normal[t * 3]! * normal[c * 3]! + normal[t * 3 + 1]! * normal[c * 3 + 1]! + normal[t * 3 + 2]! * normal[c * 3 + 2]!) >=
        FACING
      )
        s += area2[t]!;
    return s;
  };
  const dir = (c: number): Vec3 => [normal[c * 3]!, normal[c * 3 + 1]!, normal[c * 3 + 2]!];
  const bestOf = (accept: (c: number) => boolean) => {
    let best = -1,
      most = 0;
    for (const c of candidates) {
      if (!accept(c)) continue;
      const s = support(c);
      if (s > most) [best, most] = [c, s];
    }
    return { best, most };
  };
  // No face with area among the voters: nothing to measure a frame on.
  if (!(total > 0)) return undefined;
  const principal = symmetricEigen3(surfaceMoments(mesh, 1).covariance).vectors;
  const first = bestOf(() => true);
  const d1 = first.best >= 0 && first.most >= FRAME_SUPPORT * total ? dir(first.best) : principal[0];
  const second = bestOf((c) => Math.abs(dot(dir(c), d1)) <= Math.sqrt(1 - FACING * FACING));
  let d2 =
    second.best >= 0 && second.most >= (FRAME_SUPPORT / 2) * total
      ? dir(second.best)
      : (principal.find((v) => Math.abs(dot(v, d1)) < 0.9) ?? principal[1]);
  d2 = unit(d2.map((x, k) => x - dot(d2, d1) * d1[k]!) as Vec3);
  // Each axis points the way the surface is skewed (faces of equal area can come first in either
  // order once turned, and their normals point either way).
  const corners = cornerSums(mesh);
  return [d1, d2, cross(d1, d2)].flatMap((d) => (skew(corners, area2, d) < 0 ? d.map((x) => -x) : d));
}

/** Each face's three corners summed (x y z): three times its centroid. */
function cornerSums(mesh: Mesh): Float64Array {
  const p = mesh.positions,
    idx = mesh.indices;
  const out = new Float64Array(idx.length);
  for (let t = 0; t < idx.length; t += 3)
    for (let k = 0; k < 3; k++) out[t + k] = p[idx[t]! * 3 + k]! + p[idx[t + 1]! * 3 + k]! + p[idx[t + 2]! * 3 + k]!;
  return out;
}

/** Third moment of the surface (face centroids weighted by `area2`) along `d`, about its mean. */
function skew(corners: Float64Array, area2: Float64Array, d: Vec3): number {
  const along = new Float64Array(area2.length);
  let total = 0,
    mean = 0;
  for (let t = 0; t < along.length; t++) {
    along[t] = (d[0] * corners[t * 3]! + d[1] * corners[t * 3 + 1]! + d[2] * corners[t * 3 + 2]!) / 3;
    total += area2[t]!;
    mean += area2[t]! * along[t]!;
  }
  mean /= total || 1;
  let m3 = 0;
  for (let t = 0; t < along.length; t++) m3 += area2[t]! * (along[t]! - mean) ** 3;
  return m3;
}

const dot = (a: Vec3, b: Vec3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const unit = (a: Vec3): Vec3 => {
  const l = Math.hypot(...a) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
};

/** Positions turned by the rotation with these rows (`back`: by its inverse). */
function turn(p: ArrayLike<number>, r: readonly number[], back: boolean): Float32Array {
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]!,
      y = p[i + 1]!,
      z = p[i + 2]!;
    for (let k = 0; k < 3; k++)
      out[i + k] = back ? r[k]! * x + r[3 + k]! * y + r[6 + k]! * z : r[k * 3]! * x + r[k * 3 + 1]! * y + r[k * 3 + 2]! * z;
  }
  return out;
}

/**
 * Per triangle, how far it may lie off the curve it stands for and how far its normal may turn
 * from its neighbours' (chord.ts, in the mesh's units): where two bodies' curved faces touch.
 */
export type Curves = Pick<ChordErrors, 'chord' | 'bend'>;

/** Beyond their half bends, two curved facets touching face within this of opposite (the flat faces' dot product of −0.995). */
const OPPOSITE_ANGLE = Math.acos(0.995);

/** The outer surface with the grid's axes along the file's: what {@link outerSurface} does once the part is in its own frame. */
export function outerSurfaceInGrid(mesh: Mesh, curves?: Curves): OuterSurface {
  const resolution = RESOLUTION;
  const p = mesh.positions;
  const idx = mesh.indices;
  const dropped = coincidentFaces(idx);
  const nt = idx.length / 3;
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < idx.length; i++) {
    const v = idx[i]! * 3;
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k]!, p[v + k]!);
      max[k] = Math.max(max[k]!, p[v + k]!);
    }
  }
  const h = Math.max(max[0]! - min[0]!, max[1]! - min[1]!, max[2]! - min[2]!) / (resolution - 4) || 1;
  // Two free cells of margin on every side, so the border is exterior and connected.
  const dims = [0, 1, 2].map((k) => Math.ceil((max[k]! - min[k]!) / h) + 5) as [number, number, number];
  const [nx, ny] = dims;
  const origin = [0, 1, 2].map((k) => min[k]! - 2 * h);
  const ox = origin[0]!,
    oy = origin[1]!,
    oz = origin[2]!;
  const cell = (x: number, y: number, z: number) => {
    const i = Math.floor((x - ox) / h),
      j = Math.floor((y - oy) / h),
      k = Math.floor((z - oz) / h);
    return i + nx * (j + ny * k);
  };
  const grid = new Uint8Array(dims[0] * dims[1] * dims[2]); // 0 free, 1 surface, 2 exterior
  // Which triangles touch each cell (pairs, sorted into lists below): to find faces that lie on
  // another face turned the other way.
  let touchCell = new Int32Array(Math.max(16, nt * 4)),
    touchTri = new Int32Array(touchCell.length);
  let touches = 0;
  const touch = (c: number, t: number) => {
    if (touches > 0 && touchCell[touches - 1] === c && touchTri[touches - 1] === t) return;
    if (touches === touchCell.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      touchCell = grow(touchCell);
      touchTri = grow(touchTri);
    }
    touchCell[touches] = c;
    touchTri[touches++] = t;
  };

  // Rasterise: rows of points h/2 apart, parallel to each triangle's longest edge and h/2 apart
  // across it, so a sliver costs what its area does.
  const len = (a: number, b: number) => Math.hypot(p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!);
  for (let t = 0; t < nt; t++) {
    if (dropped[t]) continue;
    const v0 = idx[t * 3]! * 3,
      v1 = idx[t * 3 + 1]! * 3,
      v2 = idx[t * 3 + 2]! * 3;
    // a→b the longest edge (the first of equals, in the order v0v1, v1v2, v2v0), c the apex.
    const l0 = len(v0, v1),
      l1 = len(v1, v2),
      l2 = len(v2, v0);
    let a = v0,
      b = v1,
      c = v2,
      base = l0;
    if (l1 > base) [a, b, c, base] = [v1, v2, v0, l1];
    if (l2 > base) [a, b, c, base] = [v2, v0, v1, l2];
    const ux = p[b]! - p[a]!,
      uy = p[b + 1]! - p[a + 1]!,
      uz = p[b + 2]! - p[a + 2]!;
    const wx = p[c]! - p[a]!,
      wy = p[c + 1]! - p[a + 1]!,
      wz = p[c + 2]! - p[a + 2]!;
    const cross = Math.hypot(uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx);
    const height = base > 0 ? cross / base : 0;
    const rows = Math.max(1, Math.ceil((2 * height) / h));
    for (let r = 0; r <= rows; r++) {
      const tt = r / rows;
      // The row from a + tt·(c − a) to b + tt·(c − b).
      const sx0 = p[a]! + tt * wx,
        sy0 = p[a + 1]! + tt * wy,
        sz0 = p[a + 2]! + tt * wz;
      const steps = Math.max(1, Math.ceil((2 * base * (1 - tt)) / h));
      for (let i = 0; i <= steps; i++) {
        const f = ((1 - tt) * i) / steps;
        touch(cell(sx0 + f * ux, sy0 + f * uy, sz0 + f * uz), t);
      }
    }
  }

  const unit = faceNormals(p, idx).normal;
  const key = new Uint16Array(nt);
  for (let t = 0; t < nt; t++)
    key[t] = normalBin(unit[t * 3]!) * NORMAL_BINS * NORMAL_BINS + normalBin(unit[t * 3 + 1]!) * NORMAL_BINS + normalBin(unit[t * 3 + 2]!);
  const lists = cellLists(touchCell, touchTri, touches, grid.length, key);
  const planeTolerance = 1e-4 * h * (resolution - 4);
  const planeReach = planeTolerance * (1 + 1e-9);
  // Each list entry's face plane (unit normal, offset), in list order.
  const plane = new Float64Array(lists.tri.length * 4);
  for (let q = 0; q < lists.tri.length; q++) {
    const u = lists.tri[q]!,
      a = idx[u * 3]! * 3;
    const ux = unit[u * 3]!,
      uy = unit[u * 3 + 1]!,
      uz = unit[u * 3 + 2]!;
    plane[q * 4] = ux;
    plane[q * 4 + 1] = uy;
    plane[q * 4 + 2] = uz;
    plane[q * 4 + 3] = ux * p[a]! + uy * p[a + 1]! + uz * p[a + 2]!;
  }
  // The box of keys around −n(t) (per axis, lowest and highest bin), and its coarse-bin mask.
  let qt = -1;
  const box = new Int32Array(6);
  let maskLo = 0,
    maskHi = 0;
  // Triangle t's corners (every point looked at is on t), and the cells already found to hold no
  // face of the opposite box whose plane comes within reach of t: a triangle's points, and its
  // pieces' when it is split, look at the same few cells again and again.
  const corner = new Float64Array(9);
  let cornerReach = 0;
  const clear = new Int32Array(64);
  let clearCount = 0;
  const opposite = (t: number) => {
    if (qt === t) return;
    qt = t;
    clearCount = 0;
    let size = 0;
    for (let v = 0; v < 3; v++) {
      for (let k = 0; k < 3; k++) {
        corner[v * 3 + k] = p[idx[t * 3 + v]! * 3 + k]!;
        size += Math.abs(corner[v * 3 + k]!);
      }
    }
    cornerReach = planeReach + 1e-9 * size;
    for (let k = 0; k < 3; k++) {
      box[k * 2] = normalBin(-unit[t * 3 + k]! - OPPOSITE_REACH);
      box[k * 2 + 1] = normalBin(-unit[t * 3 + k]! + OPPOSITE_REACH);
    }
    maskLo = maskHi = 0;
    for (let x = box[0]! >> 1; x <= box[1]! >> 1; x++) {
      for (let y = box[2]! >> 1; y <= box[3]! >> 1; y++) {
        for (let z = box[4]! >> 1; z <= box[5]! >> 1; z++) {
          const bit = x * 16 + y * 4 + z;
          if (bit < 32) maskLo |= 1 << bit;
          else maskHi |= 1 << (bit - 32);
        }
      }
    }
  };
  /** Whether triangle t's opposite box may hold faces of cell c, and if so, whether one of them holds (x, y, z). */
  const onOppositeIn = (c: number, x: number, y: number, z: number, t: number) => {
    if (!((lists.maskLo[c]! & maskLo) | (lists.maskHi[c]! & maskHi))) return false;
    for (let i = 0; i < clearCount; i++) if (clear[i] === c) return false;
    let near = false;
    const end = lists.start[c + 1]!;
    for (let k = lists.start[c]!; k < end;) {
      const u0 = lists.tri[k]!;
      const kk = key[u0]!;
      const bx = kk >> 6,
        by = (kk >> 3) & 7,
        bz = kk & 7;
      const runEnd = lists.runEnd[k]!;
      if (bx >= box[0]! && bx <= box[1]! && by >= box[2]! && by <= box[3]! && bz >= box[4]! && bz <= box[5]!) {
        for (let q = k; q < runEnd; q++) {
          // The plane first, from the entry's own copy of normal and offset (read in order, not
          // gathered from the mesh): a margin far above rounding keeps it a pure pre-filter of
          // onTriangle's own test.
          const ex = plane[q * 4]!,
            ey = plane[q * 4 + 1]!,
            ez = plane[q * 4 + 2]!,
            ed = plane[q * 4 + 3]!;
          // The plane's signed distance is affine, so over t it lies between its corners'.
          const s0 = ex * corner[0]! + ey * corner[1]! + ez * corner[2]! - ed,
            s1 = ex * corner[3]! + ey * corner[4]! + ez * corner[5]! - ed,
            s2 = ex * corner[6]! + ey * corner[7]! + ez * corner[8]! - ed;
          const reach = cornerReach + 1e-9 * Math.abs(ed);
          if (Math.min(s0, s1, s2) > reach || Math.max(s0, s1, s2) < -reach) continue;
          near = true;
          if (Math.abs(ex * x + ey * y + ez * z - ed) > planeReach + 1e-9 * (Math.abs(ed) + Math.abs(x) + Math.abs(y) + Math.abs(z)))
            continue;
          const u = lists.tri[q]!;
          if (
            u === t ||
            dropped[u] ||
            unit[u * 3]! * unit[t * 3]! + unit[u * 3 + 1]! * unit[t * 3 + 1]! + unit[u * 3 + 2]! * unit[t * 3 + 2]! > -0.995
          )
            continue;
          if (onTriangle(p, idx, u, unit, x, y, z, planeTolerance)) return true;
        }
      }
      k = runEnd;
    }
    if (!near && clearCount < clear.length) clear[clearCount++] = c;
    return false;
  };
  /**
   * Whether a point of curved triangle t lies on a curved face of another body turned the other
   * way: a bolt's shank in its hole, a pin in a bore. Each body's facets are chords of one curve,
   * so where the two tessellations' vertices differ (a coarse export, another system's) neither
   * lies on the other within the flat faces' tolerance; they lie within their two chord errors of
   * each other (at most half a cell: more the grid sees), facing opposite within their half
   * bends. Between bodies only: a thin curved wall's two faces are one body's.
   */
  const shell = curves ? shellRoots(idx, p.length / 3) : undefined;
  // The cells where curved facets of two bodies meet: the only ones worth looking in (most
  // exports are one body, or bodies whose curves touch in a few places).
  let curvesMeet: Uint8Array | undefined;
  if (curves && shell) {
    const meet = new Uint8Array(grid.length);
    let any = false;
    for (let c = 0; c < grid.length; c++) {
      let first = -1;
      for (let k = lists.start[c]!; k < lists.start[c + 1]!; k++) {
        const u = lists.tri[k]!;
        if (!(curves.chord[u]! > 0)) continue;
        const su = shell[idx[u * 3]!]!;
        if (first < 0) first = su;
        else if (su !== first) {
          meet[c] = 1;
          any = true;
          break;
        }
      }
    }
    if (any) curvesMeet = meet;
  }
  const onOppositeCurveIn = (c: number, x: number, y: number, z: number, t: number) => {
    if (!curvesMeet![c]) return false;
    const st = shell![idx[t * 3]!]!,
      ct = curves!.chord[t]!,
      bt = curves!.bend[t]!;
    const end = lists.start[c + 1]!;
    for (let k = lists.start[c]!; k < end; k++) {
      // The plane first (the entry's own copy), within the most any pair may be apart.
      if (Math.abs(plane[k * 4]! * x + plane[k * 4 + 1]! * y + plane[k * 4 + 2]! * z - plane[k * 4 + 3]!) > 0.5 * h) continue;
      const u = lists.tri[k]!;
      const cu = curves!.chord[u]!;
      // A face dropped as lying on this one still marks where its body is: the pieces of a shank
      // running out of its hole are judged after the hole's wall, wholly on the shank, was dropped.
      if (!(cu > 0) || (dropped[u] && !contact[u]) || shell![idx[u * 3]!] === st) continue;
      const cos = unit[u * 3]! * unit[t * 3]! + unit[u * 3 + 1]! * unit[t * 3 + 1]! + unit[u * 3 + 2]! * unit[t * 3 + 2]!;
      if (cos > -Math.cos(Math.min(Math.PI / 2, OPPOSITE_ANGLE + (bt + curves!.bend[u]!) / 2))) continue;
      if (onTriangle(p, idx, u, unit, x, y, z, Math.min(0.5 * h, planeTolerance + ct + cu))) return true;
    }
    return false;
  };
  /** The point's cell and, half a cell either way along each axis, the cells around it. */
  const around = (
    x: number,
    y: number,
    z: number,
    t: number,
    inCell: (c: number, x: number, y: number, z: number, t: number) => boolean,
  ) => {
    // The cells around the point too: a triangle crossing a corner of the point's cell may not
    // have been recorded there.
    // Half a cell either way stays in the point's own cell on one side of each axis: that cell
    // is looked in once.
    const d = 0.5 * h;
    const c0 = cell(x, y, z);
    if (inCell(c0, x, y, z, t)) return true;
    for (let k = 0; k < 6; k++) {
      const s = k & 1 ? -d : d;
      const c = k < 2 ? cell(x + s, y, z) : k < 4 ? cell(x, y + s, z) : cell(x, y, z + s);
      if (c !== c0 && inCell(c, x, y, z, t)) return true;
    }
    return false;
  };
  /**
   * Whether a point of triangle t lies on another triangle whose normal is opposite: two bodies
   * touching along a face, the face between them kept on both (a part cut apart, each side
   * tessellated on its own), or along a curve (onOppositeCurveIn). Such faces are inside however
   * close to the skin they are.
   */
  const onOppositeFace = (x: number, y: number, z: number, t: number) => {
    opposite(t);
    if (around(x, y, z, t, onOppositeIn)) return true;
    return !!curvesMeet && curves!.chord[t]! > 0 && around(x, y, z, t, onOppositeCurveIn);
  };

  // Faces lying wholly on a face of another body turned the other way are dropped before the
  // flood, so they neither hide nor show what is next to them (both of the pair: marked, then
  // dropped). One lying there in part (a plate's top under a nut) is split and judged below.
  // Which of its points were found on an opposite face is kept: dropping faces only removes
  // candidates, so a point found on none here is on none when the triangle is judged below.
  const contact = new Uint8Array(nt);
  const onBits = new Uint8Array(nt);
  for (let t = 0; t < nt; t++) {
    if (dropped[t]) continue;
    const a = idx[t * 3]! * 3,
      b = idx[t * 3 + 1]! * 3,
      c = idx[t * 3 + 2]! * 3;
    let on = 0;
    for (let i = 0; i < CLASSIFY_POINTS.length; i++) {
      const [u, v] = CLASSIFY_POINTS[i]!;
      const w = 1 - u - v;
      if (
        onOppositeFace(
          w * p[a]! + u * p[b]! + v * p[c]!,
          w * p[a + 1]! + u * p[b + 1]! + v * p[c + 1]!,
          w * p[a + 2]! + u * p[b + 2]! + v * p[c + 2]!,
          t,
        )
      ) {
        on++;
        onBits[t]! |= 1 << i;
      }
    }
    if (on === CLASSIFY_POINTS.length) contact[t] = 1;
  }
  for (let t = 0; t < nt; t++) if (contact[t]) dropped[t] = 1;
  for (let i = 0; i < touches; i++) if (!dropped[touchTri[i]!]) grid[touchCell[i]!] = 1;

  // Free space is outside when no body holds it: the space around the part (the grid's margin
  // is free on every side), and empty space the outside cannot reach through the grid — a bore of a
  // few cells turned against it, its rasterised wall a staircase that closes it off. A region of
  // free space is inside a body when a ray from it crosses the bodies' faces with a nonzero winding
  // (a body enclosed in another counts twice).
  markOutside(grid, dims, (cells) => windingsAlongX(p, idx, dropped, unit, origin, h, dims, cells));

  /**
   * A surface point is outer when exterior space lies within NEAR_EXTERIOR cells of it (a cube
   * around its cell). Looking along the normal instead fails on a part turned against the grid:
   * a tilted face's own cells form a staircase up to √3 cells thick, so along concave corners a
   * band several cells wide read as hidden. Internal faces within that distance of the skin read
   * as outer; faces between touching bodies were dropped above.
   */
  const seen = (x: number, y: number, z: number) => {
    const i = Math.floor((x - ox) / h),
      j = Math.floor((y - oy) / h),
      k = Math.floor((z - oz) / h);
    for (let dz = -NEAR_EXTERIOR; dz <= NEAR_EXTERIOR; dz++) {
      for (let dy = -NEAR_EXTERIOR; dy <= NEAR_EXTERIOR; dy++) {
        const row = i + nx * (j + dy + ny * (k + dz));
        for (let dx = -NEAR_EXTERIOR; dx <= NEAR_EXTERIOR; dx++) if (grid[row + dx] === 2) return true;
      }
    }
    return false;
  };

  let outPos = new Float32Array(Math.max(9, nt * 9));
  let outCount = 0;
  const source: number[] = [];
  let hidden = 0,
    total = 0;
  const area = (q: ArrayLike<number>) =>
    0.5 *
    Math.hypot(
      (q[4]! - q[1]!) * (q[8]! - q[2]!) - (q[5]! - q[2]!) * (q[7]! - q[1]!),
      (q[5]! - q[2]!) * (q[6]! - q[0]!) - (q[3]! - q[0]!) * (q[8]! - q[2]!),
      (q[3]! - q[0]!) * (q[7]! - q[1]!) - (q[4]! - q[1]!) * (q[6]! - q[0]!),
    );
  const flags = new Uint8Array(CLASSIFY_POINTS.length);
  /**
   * Classifies a triangle (9 coordinates) by its corners, edge midpoints and centroid; splits
   * mixed ones. `known`: bits of the points already found on no opposite face (the whole triangle
   * at depth 0, its points those the contact pass looked at).
   */
  const visit = (q: Float64Array, t: number, depth: number, known: number) => {
    let count = 0;
    for (let i = 0; i < CLASSIFY_POINTS.length; i++) {
      const [uu, vv] = CLASSIFY_POINTS[i]!;
      const ww = 1 - uu - vv;
      const x = ww * q[0]! + uu * q[3]! + vv * q[6]!,
        y = ww * q[1]! + uu * q[4]! + vv * q[7]!,
        z = ww * q[2]! + uu * q[5]! + vv * q[8]!;
      flags[i] = seen(x, y, z) && (known & (1 << i) || !onOppositeFace(x, y, z, t)) ? 1 : 0;
      count += flags[i]!;
    }
    const all = count === CLASSIFY_POINTS.length,
      none = count === 0;
    const longest = Math.max(
      Math.hypot(q[3]! - q[0]!, q[4]! - q[1]!, q[5]! - q[2]!),
      Math.hypot(q[6]! - q[0]!, q[7]! - q[1]!, q[8]! - q[2]!),
      Math.hypot(q[6]! - q[3]!, q[7]! - q[4]!, q[8]! - q[5]!),
    );
    if (all || none || longest < 2 * h || depth > 4) {
      const keep = all || (!none && count * 2 >= CLASSIFY_POINTS.length);
      if (keep) {
        if (outCount + 9 > outPos.length) {
          const grown = new Float32Array(outPos.length * 2);
          grown.set(outPos);
          outPos = grown;
        }
        outPos.set(q, outCount);
        outCount += 9;
        source.push(t);
      } else hidden += area(q);
      return;
    }
    // Split at the longest edge's midpoint (the first of equals, in the order 01, 12, 20).
    const l01 = Math.hypot(q[3]! - q[0]!, q[4]! - q[1]!, q[5]! - q[2]!),
      l12 = Math.hypot(q[6]! - q[3]!, q[7]! - q[4]!, q[8]! - q[5]!),
      l20 = Math.hypot(q[0]! - q[6]!, q[1]! - q[7]!, q[2]! - q[8]!);
    let ei = 0,
      ej = 1,
      ek = 2,
      l = l01;
    if (l12 > l) [ei, ej, ek, l] = [1, 2, 0, l12];
    if (l20 > l) [ei, ej, ek] = [2, 0, 1];
    const m = [0, 1, 2].map((k) => (q[ei * 3 + k]! + q[ej * 3 + k]!) / 2);
    const first = new Float64Array(9),
      second = new Float64Array(9);
    for (let k = 0; k < 3; k++) {
      first[k] = q[ei * 3 + k]!;
      first[3 + k] = m[k]!;
      first[6 + k] = q[ek * 3 + k]!;
      second[k] = m[k]!;
      second[3 + k] = q[ej * 3 + k]!;
      second[6 + k] = q[ek * 3 + k]!;
    }
    visit(first, t, depth + 1, 0);
    visit(second, t, depth + 1, 0);
  };
  const all = (1 << CLASSIFY_POINTS.length) - 1;
  const q = new Float64Array(9);
  for (let t = 0; t < nt; t++) {
    const a = idx[t * 3]! * 3,
      b = idx[t * 3 + 1]! * 3,
      c = idx[t * 3 + 2]! * 3;
    for (let k = 0; k < 3; k++) {
      q[k] = p[a + k]!;
      q[3 + k] = p[b + k]!;
      q[6 + k] = p[c + k]!;
    }
    total += area(q);
    if (dropped[t]) hidden += area(q);
    else visit(q, t, 0, all & ~onBits[t]!);
  }
  const positions = outPos.slice(0, outCount);
  const indices = new Uint32Array(positions.length / 3);
  for (let i = 0; i < indices.length; i++) indices[i] = i;
  const out: Mesh = { positions, indices };
  if (mesh.units) out.units = mesh.units;
  return { mesh: out, source: Uint32Array.from(source), hiddenShare: total > 0 ? hidden / total : 0 };
}

/**
 * Triangles by cell (CSR) from the first `count` (cell, triangle) pairs, each cell's sorted by the
 * triangles' normal key (runs of one key end at `runEnd`), with the cell's coarse-bin mask.
 */
function cellLists(
  cells: Int32Array,
  tris: Int32Array,
  count: number,
  size: number,
  key: Uint16Array,
): { start: Int32Array; tri: Int32Array; runEnd: Int32Array; maskLo: Int32Array; maskHi: Int32Array } {
  // Counting sort by key, then (stably) by cell.
  const keys = NORMAL_BINS ** 3;
  const byKey = new Int32Array(keys + 1);
  for (let i = 0; i < count; i++) byKey[key[tris[i]!]! + 1]!++;
  for (let k = 0; k < keys; k++) byKey[k + 1]! += byKey[k]!;
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[byKey[key[tris[i]!]!]!++] = i;
  const start = new Int32Array(size + 1);
  for (let i = 0; i < count; i++) start[cells[i]! + 1]!++;
  for (let c = 0; c < size; c++) start[c + 1]! += start[c]!;
  const next = start.slice(0, size);
  const tri = new Int32Array(count);
  for (const i of order) tri[next[cells[i]!]!++] = tris[i]!;
  const runEnd = new Int32Array(count);
  const maskLo = new Int32Array(size),
    maskHi = new Int32Array(size);
  for (let c = 0; c < size; c++) {
    const s = start[c]!,
      e = start[c + 1]!;
    for (let k = e - 1; k >= s; k--) runEnd[k] = k + 1 < e && key[tri[k + 1]!] === key[tri[k]!] ? runEnd[k + 1]! : k + 1;
    for (let k = s; k < e; k = runEnd[k]!) {
      const kk = key[tri[k]!]!;
      const bit = (kk >> 7) * 16 + ((kk >> 4) & 3) * 4 + ((kk >> 1) & 3);
      if (bit < 32) maskLo[c]! |= 1 << bit;
      else maskHi[c]! |= 1 << (bit - 32);
    }
  }
  return { start, tri, runEnd, maskLo, maskHi };
}

/** Whether (x, y, z) lies on triangle u: within `tolerance` of its plane and inside its edges. */
function onTriangle(
  p: ArrayLike<number>,
  idx: ArrayLike<number>,
  u: number,
  unit: Float64Array,
  x: number,
  y: number,
  z: number,
  tolerance: number,
): boolean {
  const a = idx[u * 3]! * 3,
    b = idx[u * 3 + 1]! * 3,
    c = idx[u * 3 + 2]! * 3;
  const nx = unit[u * 3]!,
    ny = unit[u * 3 + 1]!,
    nz = unit[u * 3 + 2]!;
  if (Math.abs((x - p[a]!) * nx + (y - p[a + 1]!) * ny + (z - p[a + 2]!) * nz) > tolerance) return false;
  // Inside: the point is on the inner side of each edge (within the tolerance).
  for (const [i, j] of [
    [a, b],
    [b, c],
    [c, a],
  ] as const) {
    const ex = p[j]! - p[i]!,
      ey = p[j + 1]! - p[i + 1]!,
      ez = p[j + 2]! - p[i + 2]!;
    // The edge's inward direction in the plane: n × e.
    const ix = ny * ez - nz * ey,
      iy = nz * ex - nx * ez,
      iz = nx * ey - ny * ex;
    const l = Math.hypot(ix, iy, iz);
    if (l === 0) return false;
    if (((x - p[i]!) * ix + (y - p[i + 1]!) * iy + (z - p[i + 2]!) * iz) / l < -tolerance) return false;
  }
  return true;
}

/**
 * Labels the free cells (0) by 6-connected region (steps across edges and corners would leak
 * through the gaps of a skin rasterised from points) and marks as exterior (2) every region whose
 * winding (`windings` of one cell of each) is zero.
 */
function markOutside(grid: Uint8Array, dims: readonly [number, number, number], windings: (cells: readonly number[]) => Int32Array): void {
  const [nx, ny, nz] = dims;
  const label = new Int32Array(grid.length).fill(-1);
  const stack = new Int32Array(grid.length);
  const first: number[] = [];
  const sz = nx * ny;
  let top = 0;
  // Defined once: a function made per cell costs more than the fill (tsx names every closure).
  const add = (d: number, id: number) => {
    if (grid[d] !== 0 || label[d]! >= 0) return;
    label[d] = id;
    stack[top++] = d;
  };
  for (let s = 0; s < grid.length; s++) {
    if (grid[s] !== 0 || label[s]! >= 0) continue;
    const id = first.length;
    add(s, id);
    while (top) {
      const c = stack[--top]!;
      const i = c % nx,
        j = Math.floor(c / nx) % ny,
        k = Math.floor(c / sz);
      if (i > 0) add(c - 1, id);
      if (i < nx - 1) add(c + 1, id);
      if (j > 0) add(c - nx, id);
      if (j < ny - 1) add(c + nx, id);
      if (k > 0) add(c - sz, id);
      if (k < nz - 1) add(c + sz, id);
    }
    first.push(s);
  }
  if (!first.length) return;
  const w = windings(first);
  for (let c = 0; c < grid.length; c++) if (label[c]! >= 0 && w[label[c]!] === 0) grid[c] = 2;
}

/**
 * Winding number at the centre of each of `cells` (moved off it by RAY_JITTER, so a ray does not
 * run along a face or edge of an axis-aligned part): the faces a ray along +x from it crosses,
 * each +1 or −1 by which way it faces. One pass over the faces, each tried against the rows its
 * yz bounds cover that hold a cell asked for.
 */
function windingsAlongX(
  p: ArrayLike<number>,
  idx: ArrayLike<number>,
  dropped: Uint8Array,
  unit: Float64Array,
  origin: readonly number[],
  h: number,
  dims: readonly [number, number, number],
  cells: readonly number[],
): Int32Array {
  const [nx, ny] = dims;
  const out = new Int32Array(cells.length);
  const byRow = new Map<number, number[]>();
  for (const [q, c] of cells.entries()) {
    const row = Math.floor(c / nx);
    const list = byRow.get(row);
    if (list) list.push(q);
    else byRow.set(row, [q]);
  }
  const rowY = (j: number) => origin[1]! + (j + 0.5 + RAY_JITTER) * h,
    rowZ = (k: number) => origin[2]! + (k + 0.5 - RAY_JITTER) * h;
  for (let t = 0; t < idx.length / 3; t++) {
    if (dropped[t] || unit[t * 3] === 0) continue;
    const a = idx[t * 3]! * 3,
      b = idx[t * 3 + 1]! * 3,
      c = idx[t * 3 + 2]! * 3;
    const y0 = p[a + 1]!,
      z0 = p[a + 2]!;
    const e1y = p[b + 1]! - y0,
      e1z = p[b + 2]! - z0,
      e2y = p[c + 1]! - y0,
      e2z = p[c + 2]! - z0;
    const det = e1y * e2z - e1z * e2y;
    if (det === 0) continue;
    const sign = unit[t * 3]! > 0 ? 1 : -1;
    const jFrom = Math.ceil((Math.min(y0, p[b + 1]!, p[c + 1]!) - origin[1]!) / h - 0.5 - RAY_JITTER),
      jTo = Math.floor((Math.max(y0, p[b + 1]!, p[c + 1]!) - origin[1]!) / h - 0.5 - RAY_JITTER);
    const kFrom = Math.ceil((Math.min(z0, p[b + 2]!, p[c + 2]!) - origin[2]!) / h - 0.5 + RAY_JITTER),
      kTo = Math.floor((Math.max(z0, p[b + 2]!, p[c + 2]!) - origin[2]!) / h - 0.5 + RAY_JITTER);
    for (let k = Math.max(0, kFrom); k <= kTo; k++) {
      for (let j = Math.max(0, jFrom); j <= Math.min(ny - 1, jTo); j++) {
        const list = byRow.get(j + ny * k);
        if (!list) continue;
        // Barycentric coordinates of the row's line in the face's yz projection.
        const qy = rowY(j) - y0,
          qz = rowZ(k) - z0;
        const u = (qy * e2z - qz * e2y) / det,
          v = (e1y * qz - e1z * qy) / det;
        if (u < 0 || v < 0 || u + v > 1) continue;
        const x = p[a]! + u * (p[b]! - p[a]!) + v * (p[c]! - p[a]!);
        for (const q of list) if (x > origin[0]! + ((cells[q]! % nx) + 0.5) * h) out[q]! += sign;
      }
    }
  }
  return out;
}
