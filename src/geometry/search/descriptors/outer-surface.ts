// The outer surface of a mesh: what can be seen from outside. Exports often carry more than the
// part's skin — bodies cut apart with their shared faces kept, an enclosed body (a die in a
// package), pins running into a housing — and two files of one part then differ only inside.
// Faces lying on another body's face turned the other way (the two sides of a cut) are dropped;
// the rest is rasterised into a voxel grid, the empty space is found as the free space inside no
// body (by the winding number, so a narrow bore the space around cannot reach through the grid
// counts too), and surface with none of it in the cells around is dropped; a triangle partly
// inside is split until its pieces are about a voxel wide. Pure; used for part-to-part comparison
// only (part-in-part keeps every body, since a part inside an assembly is what it looks for).
import type { Mesh } from '../../mesh/mesh';
import { faceNormals } from '../../mesh/mesh-facts';

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
const CLASSIFY_POINTS = ([[0, 0], [1, 0], [0, 1], [0.5, 0], [0, 0.5], [0.5, 0.5], [1 / 3, 1 / 3]] as const).map(([u, v]) => [u * 0.96 + 0.0133, v * 0.96 + 0.0133] as const);

/** Offsets (cells) of the cells looked in around a point. */
const NEAR = [[0, 0, 0], [0.5, 0, 0], [-0.5, 0, 0], [0, 0.5, 0], [0, -0.5, 0], [0, 0, 0.5], [0, 0, -0.5]] as const;

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
      const a = idx[t + k]!, b = idx[t + ((k + 1) % 3)]!;
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
  const drop = new Uint8Array(idx.length / 3);
  const seen = new Map<string, number[]>();
  for (let t = 0; t < idx.length / 3; t++) {
    const v = [idx[t * 3]!, idx[t * 3 + 1]!, idx[t * 3 + 2]!];
    const key = [...v].sort((x, y) => x - y).join(',');
    const list = seen.get(key);
    if (list) list.push(t);
    else seen.set(key, [t]);
  }
  // Winding: a cyclic rotation of the same order is the same orientation.
  const parity = (t: number) => {
    const a = idx[t * 3]!, b = idx[t * 3 + 1]!, c = idx[t * 3 + 2]!;
    return (a < b ? 1 : 0) + (b < c ? 1 : 0) + (c < a ? 1 : 0) === 2 ? 1 : 0;
  };
  for (const list of seen.values()) {
    if (list.length < 2) continue;
    const up = list.filter((t) => parity(t) === 1), down = list.filter((t) => parity(t) === 0);
    const pairs = Math.min(up.length, down.length);
    for (let i = 0; i < pairs; i++) drop[up[i]!] = drop[down[i]!] = 1;
    for (const rest of [up.slice(pairs), down.slice(pairs)]) for (const t of rest.slice(1)) drop[t] = 1;
  }
  return drop;
}

export function outerSurface(mesh: Mesh, resolution = RESOLUTION): OuterSurface {
  const p = mesh.positions;
  const idx = mesh.indices;
  const dropped = coincidentFaces(idx);
  const nt = idx.length / 3;
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
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
  const cell = (x: number, y: number, z: number) => {
    const i = Math.floor((x - origin[0]!) / h), j = Math.floor((y - origin[1]!) / h), k = Math.floor((z - origin[2]!) / h);
    return i + nx * (j + ny * k);
  };
  const grid = new Uint8Array(dims[0] * dims[1] * dims[2]); // 0 free, 1 surface, 2 exterior
  // Which triangles touch each cell (pairs, sorted into lists below): to find faces that lie on
  // another face turned the other way.
  const touchCell: number[] = [], touchTri: number[] = [];
  const touch = (c: number, t: number) => {
    const last = touchCell.length - 1;
    if (last >= 0 && touchCell[last] === c && touchTri[last] === t) return;
    touchCell.push(c);
    touchTri.push(t);
  };

  // Rasterise: rows of points h/2 apart, parallel to each triangle's longest edge and h/2 apart
  // across it, so a sliver costs what its area does.
  const tri = (t: number) => [idx[t * 3]! * 3, idx[t * 3 + 1]! * 3, idx[t * 3 + 2]! * 3] as const;
  const P = (v: number, k: number) => p[v + k]!;
  const len = (a: number, b: number) => Math.hypot(P(b, 0) - P(a, 0), P(b, 1) - P(a, 1), P(b, 2) - P(a, 2));
  for (let t = 0; t < nt; t++) {
    if (dropped[t]) continue;
    const [v0, v1, v2] = tri(t);
    // a→b the longest edge, c the apex.
    const edges: [number, number, number][] = [[v0, v1, v2], [v1, v2, v0], [v2, v0, v1]];
    const [a, b, c] = edges.sort((x, y) => len(y[0], y[1]) - len(x[0], x[1]))[0]!;
    const base = len(a, b);
    const ux = P(b, 0) - P(a, 0), uy = P(b, 1) - P(a, 1), uz = P(b, 2) - P(a, 2);
    const wx = P(c, 0) - P(a, 0), wy = P(c, 1) - P(a, 1), wz = P(c, 2) - P(a, 2);
    const cross = Math.hypot(uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx);
    const height = base > 0 ? cross / base : 0;
    const rows = Math.max(1, Math.ceil((2 * height) / h));
    for (let r = 0; r <= rows; r++) {
      const tt = r / rows;
      // The row from a + tt·(c − a) to b + tt·(c − b).
      const sx0 = P(a, 0) + tt * wx, sy0 = P(a, 1) + tt * wy, sz0 = P(a, 2) + tt * wz;
      const steps = Math.max(1, Math.ceil((2 * base * (1 - tt)) / h));
      for (let i = 0; i <= steps; i++) {
        const f = ((1 - tt) * i) / steps;
        touch(cell(sx0 + f * ux, sy0 + f * uy, sz0 + f * uz), t);
      }
    }
  }

  const lists = cellLists(touchCell, touchTri, grid.length);
  const unit = faceNormals(p, idx).normal;
  const planeTolerance = 1e-4 * h * (resolution - 4);
  /**
   * Whether a point of triangle t lies on another triangle whose normal is opposite: two bodies
   * touching along a face, the face between them kept on both (a part cut apart, each side
   * tessellated on its own). Such faces are inside however close to the skin they are.
   */
  const onOppositeFace = (x: number, y: number, z: number, t: number) => {
    // The cells around the point too: a triangle crossing a corner of the point's cell may not
    // have been recorded there.
    for (const [dx, dy, dz] of NEAR) {
      const c = cell(x + dx * h, y + dy * h, z + dz * h);
      for (let k = lists.start[c]!; k < lists.start[c + 1]!; k++) {
        const u = lists.tri[k]!;
        if (u === t || dropped[u] || unit[u * 3]! * unit[t * 3]! + unit[u * 3 + 1]! * unit[t * 3 + 1]! + unit[u * 3 + 2]! * unit[t * 3 + 2]! > -0.995) continue;
        if (onTriangle(p, idx, u, unit, x, y, z, planeTolerance)) return true;
      }
    }
    return false;
  };

  // Faces lying wholly on a face of another body turned the other way are dropped before the
  // flood, so they neither hide nor show what is next to them (both of the pair: marked, then
  // dropped). One lying there in part (a plate's top under a nut) is split and judged below.
  const contact = new Uint8Array(nt);
  for (let t = 0; t < nt; t++) {
    if (dropped[t]) continue;
    const [a, b, c] = tri(t);
    let on = 0;
    for (const [u, v] of CLASSIFY_POINTS) {
      const w = 1 - u - v;
      if (onOppositeFace(w * p[a]! + u * p[b]! + v * p[c]!, w * p[a + 1]! + u * p[b + 1]! + v * p[c + 1]!, w * p[a + 2]! + u * p[b + 2]! + v * p[c + 2]!, t)) on++;
    }
    if (on === CLASSIFY_POINTS.length) contact[t] = 1;
  }
  for (let t = 0; t < nt; t++) if (contact[t]) dropped[t] = 1;
  for (let i = 0; i < touchCell.length; i++) if (!dropped[touchTri[i]!]) grid[touchCell[i]!] = 1;

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
    const i = Math.floor((x - origin[0]!) / h), j = Math.floor((y - origin[1]!) / h), k = Math.floor((z - origin[2]!) / h);
    for (let dz = -NEAR_EXTERIOR; dz <= NEAR_EXTERIOR; dz++) {
      for (let dy = -NEAR_EXTERIOR; dy <= NEAR_EXTERIOR; dy++) {
        const row = i + nx * (j + dy + ny * (k + dz));
        for (let dx = -NEAR_EXTERIOR; dx <= NEAR_EXTERIOR; dx++) if (grid[row + dx] === 2) return true;
      }
    }
    return false;
  };

  const outPos: number[] = [];
  const source: number[] = [];
  let hidden = 0, total = 0;
  const area = (q: number[]) => 0.5 * Math.hypot((q[4]! - q[1]!) * (q[8]! - q[2]!) - (q[5]! - q[2]!) * (q[7]! - q[1]!), (q[5]! - q[2]!) * (q[6]! - q[0]!) - (q[3]! - q[0]!) * (q[8]! - q[2]!), (q[3]! - q[0]!) * (q[7]! - q[1]!) - (q[4]! - q[1]!) * (q[6]! - q[0]!));
  /** Classifies a triangle (9 coordinates) by its corners, edge midpoints and centroid; splits mixed ones. */
  const visit = (q: number[], t: number, depth: number) => {
    const pts: number[][] = [];
    for (const [uu, vv] of CLASSIFY_POINTS) {
      const ww = 1 - uu - vv;
      pts.push([0, 1, 2].map((k) => ww * q[k]! + uu * q[3 + k]! + vv * q[6 + k]!));
    }
    const flags = pts.map((x) => seen(x[0]!, x[1]!, x[2]!) && !onOppositeFace(x[0]!, x[1]!, x[2]!, t));
    const all = flags.every(Boolean), none = !flags.some(Boolean);
    const longest = Math.max(Math.hypot(q[3]! - q[0]!, q[4]! - q[1]!, q[5]! - q[2]!), Math.hypot(q[6]! - q[0]!, q[7]! - q[1]!, q[8]! - q[2]!), Math.hypot(q[6]! - q[3]!, q[7]! - q[4]!, q[8]! - q[5]!));
    if (all || none || longest < 2 * h || depth > 4) {
      const keep = all || (!none && flags.filter(Boolean).length * 2 >= flags.length);
      if (keep) {
        outPos.push(...q);
        source.push(t);
      } else hidden += area(q);
      return;
    }
    // Split at the longest edge's midpoint.
    const e = [[0, 1, 2], [1, 2, 0], [2, 0, 1]].map(([i, j, k]) => ({ i: i!, j: j!, k: k!, l: Math.hypot(q[j! * 3]! - q[i! * 3]!, q[j! * 3 + 1]! - q[i! * 3 + 1]!, q[j! * 3 + 2]! - q[i! * 3 + 2]!) })).sort((x, y) => y.l - x.l)[0]!;
    const P = (i: number) => [q[i * 3]!, q[i * 3 + 1]!, q[i * 3 + 2]!];
    const m = [0, 1, 2].map((k) => (q[e.i * 3 + k]! + q[e.j * 3 + k]!) / 2);
    visit([...P(e.i), ...m, ...P(e.k)], t, depth + 1);
    visit([...m, ...P(e.j), ...P(e.k)], t, depth + 1);
  };
  for (let t = 0; t < nt; t++) {
    const [a, b, c] = tri(t);
    const q = [p[a]!, p[a + 1]!, p[a + 2]!, p[b]!, p[b + 1]!, p[b + 2]!, p[c]!, p[c + 1]!, p[c + 2]!];
    total += area(q);
    if (dropped[t]) hidden += area(q);
    else visit(q, t, 0);
  }
  const positions = Float32Array.from(outPos);
  const indices = new Uint32Array(positions.length / 3);
  for (let i = 0; i < indices.length; i++) indices[i] = i;
  const out: Mesh = { positions, indices };
  if (mesh.units) out.units = mesh.units;
  return { mesh: out, source: Uint32Array.from(source), hiddenShare: total > 0 ? hidden / total : 0 };
}

/** Triangles by cell (CSR) from (cell, triangle) pairs. */
function cellLists(cells: readonly number[], tris: readonly number[], size: number): { start: Int32Array; tri: Int32Array } {
  const start = new Int32Array(size + 1);
  for (let i = 0; i < cells.length; i++) start[cells[i]! + 1]!++;
  for (let c = 0; c < size; c++) start[c + 1]! += start[c]!;
  const next = start.slice(0, size);
  const tri = new Int32Array(cells.length);
  for (let i = 0; i < cells.length; i++) tri[next[cells[i]!]!++] = tris[i]!;
  return { start, tri };
}

/** Whether (x, y, z) lies on triangle u: within `tolerance` of its plane and inside its edges. */
function onTriangle(p: ArrayLike<number>, idx: ArrayLike<number>, u: number, unit: Float64Array, x: number, y: number, z: number, tolerance: number): boolean {
  const a = idx[u * 3]! * 3, b = idx[u * 3 + 1]! * 3, c = idx[u * 3 + 2]! * 3;
  const nx = unit[u * 3]!, ny = unit[u * 3 + 1]!, nz = unit[u * 3 + 2]!;
  if (Math.abs((x - p[a]!) * nx + (y - p[a + 1]!) * ny + (z - p[a + 2]!) * nz) > tolerance) return false;
  // Inside: the point is on the inner side of each edge (within the tolerance).
  for (const [i, j] of [[a, b], [b, c], [c, a]] as const) {
    const ex = p[j]! - p[i]!, ey = p[j + 1]! - p[i + 1]!, ez = p[j + 2]! - p[i + 2]!;
    // The edge's inward direction in the plane: n × e.
    const ix = ny * ez - nz * ey, iy = nz * ex - nx * ez, iz = nx * ey - ny * ex;
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
      const i = c % nx, j = Math.floor(c / nx) % ny, k = Math.floor(c / sz);
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
function windingsAlongX(p: ArrayLike<number>, idx: ArrayLike<number>, dropped: Uint8Array, unit: Float64Array, origin: readonly number[], h: number, dims: readonly [number, number, number], cells: readonly number[]): Int32Array {
  const [nx, ny] = dims;
  const out = new Int32Array(cells.length);
  const byRow = new Map<number, number[]>();
  for (const [q, c] of cells.entries()) {
    const row = Math.floor(c / nx);
    const list = byRow.get(row);
    if (list) list.push(q);
    else byRow.set(row, [q]);
  }
  const rowY = (j: number) => origin[1]! + (j + 0.5 + RAY_JITTER) * h, rowZ = (k: number) => origin[2]! + (k + 0.5 - RAY_JITTER) * h;
  for (let t = 0; t < idx.length / 3; t++) {
    if (dropped[t] || unit[t * 3] === 0) continue;
    const a = idx[t * 3]! * 3, b = idx[t * 3 + 1]! * 3, c = idx[t * 3 + 2]! * 3;
    const y0 = p[a + 1]!, z0 = p[a + 2]!;
    const e1y = p[b + 1]! - y0, e1z = p[b + 2]! - z0, e2y = p[c + 1]! - y0, e2z = p[c + 2]! - z0;
    const det = e1y * e2z - e1z * e2y;
    if (det === 0) continue;
    const sign = unit[t * 3]! > 0 ? 1 : -1;
    const jFrom = Math.ceil((Math.min(y0, p[b + 1]!, p[c + 1]!) - origin[1]!) / h - 0.5 - RAY_JITTER), jTo = Math.floor((Math.max(y0, p[b + 1]!, p[c + 1]!) - origin[1]!) / h - 0.5 - RAY_JITTER);
    const kFrom = Math.ceil((Math.min(z0, p[b + 2]!, p[c + 2]!) - origin[2]!) / h - 0.5 + RAY_JITTER), kTo = Math.floor((Math.max(z0, p[b + 2]!, p[c + 2]!) - origin[2]!) / h - 0.5 + RAY_JITTER);
    for (let k = Math.max(0, kFrom); k <= kTo; k++) {
      for (let j = Math.max(0, jFrom); j <= Math.min(ny - 1, jTo); j++) {
        const list = byRow.get(j + ny * k);
        if (!list) continue;
        // Barycentric coordinates of the row's line in the face's yz projection.
        const qy = rowY(j) - y0, qz = rowZ(k) - z0;
        const u = (qy * e2z - qz * e2y) / det, v = (e1y * qz - e1z * qy) / det;
        if (u < 0 || v < 0 || u + v > 1) continue;
        const x = p[a]! + u * (p[b]! - p[a]!) + v * (p[c]! - p[a]!);
        for (const q of list) if (x > origin[0]! + ((cells[q]! % nx) + 0.5) * h) out[q]! += sign;
      }
    }
  }
  return out;
}
