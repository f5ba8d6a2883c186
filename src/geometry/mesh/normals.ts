import type { Mesh } from './mesh';
import { weld, type WeldResult } from './mesh-facts';

/** A mesh whose vertices carry unit normals (`normals.length === positions.length`). */
export interface MeshWithNormals extends Mesh {
  normals: Float32Array;
}

/** Default crease angle: CAD chamfers (45°) and box edges stay sharp, tessellated cylinders stay smooth. */
export const DEFAULT_CREASE_ANGLE_DEG = 40;

/**
 * Vertex normals for CAD shading: the mesh is welded first (so triangle soups such as STL get
 * their connectivity), then every vertex is split into one copy per smoothing group. Two
 * triangles meeting at a vertex are in the same group when they are connected around that vertex
 * through edges whose dihedral angle is below `creaseAngleDeg`; edges on a boundary, shared by
 * more than two triangles or traversed inconsistently count as sharp. Group normals are
 * angle-weighted, so long thin cylinder facets do not bias them. Triangles keep their order
 * and count; those that welding collapses (zero area) take part in no smoothing group.
 * `options.welded`: the result of `weld(mesh)` when the caller has it already (shared with meshFacts).
 */
export function creaseNormals(
  mesh: Mesh,
  creaseAngleDeg = DEFAULT_CREASE_ANGLE_DEG,
  options: { welded?: WeldResult } = {},
): MeshWithNormals {
  // Connectivity from welding, but the input's triangles, all of them and in their order, so that
  // triangle indices (e.g. a render's triangle-id buffer) still refer to the input mesh. A weld
  // of this very mesh at the default tolerance (e.g. the one meshFacts used) may be passed in.
  const { mesh: w, remap } = options.welded ?? weld(mesh);
  const p = w.positions;
  const src = mesh.indices;
  const idx = new Uint32Array(src.length);
  for (let i = 0; i < src.length; i++) idx[i] = remap[src[i]!]!;
  const nt = idx.length / 3;
  const nc = nt * 3;

  // Unit face normals and angle-weighted corner contributions.
  const fn = new Float32Array(nt * 3);
  const angle = new Float32Array(nc);
  for (let t = 0; t < nt; t++) {
    const a = idx[t * 3]! * 3,
      b = idx[t * 3 + 1]! * 3,
      c = idx[t * 3 + 2]! * 3;
    const abx = p[b]! - p[a]!,
      aby = p[b + 1]! - p[a + 1]!,
      abz = p[b + 2]! - p[a + 2]!;
    const acx = p[c]! - p[a]!,
      acy = p[c + 1]! - p[a + 1]!,
      acz = p[c + 2]! - p[a + 2]!;
    const bcx = p[c]! - p[b]!,
      bcy = p[c + 1]! - p[b + 1]!,
      bcz = p[c + 2]! - p[b + 2]!;
    const nx = aby * acz - abz * acy,
      ny = abz * acx - abx * acz,
      nz = abx * acy - aby * acx;
    const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (l > 0) {
      fn[t * 3] = nx / l;
      fn[t * 3 + 1] = ny / l;
      fn[t * 3 + 2] = nz / l;
    }
    const lab = Math.sqrt(abx * abx + aby * aby + abz * abz),
      lac = Math.sqrt(acx * acx + acy * acy + acz * acz),
      lbc = Math.sqrt(bcx * bcx + bcy * bcy + bcz * bcz);
    angle[t * 3] = cornerAngle(abx * acx + aby * acy + abz * acz, lab * lac);
    angle[t * 3 + 1] = cornerAngle(-(abx * bcx + aby * bcy + abz * bcz), lab * lbc);
    angle[t * 3 + 2] = cornerAngle(acx * bcx + acy * bcy + acz * bcz, lac * lbc);
  }

  // Corners grouped by (welded) vertex, each with the vertex after and before it in its
  // triangle. Around vertex v, corner c1 (edge v→x) and corner c2 (edge x→v, so its previous
  // vertex is x) are neighbours across the edge {v, x}. Everything below stays within one
  // vertex's short list: no global edge table, few cache misses.
  const nw = p.length / 3;
  const start = new Int32Array(nw + 1);
  const collapsed = (t: number) => idx[t * 3] === idx[t * 3 + 1] || idx[t * 3 + 1] === idx[t * 3 + 2] || idx[t * 3] === idx[t * 3 + 2];
  const live = new Uint8Array(nt);
  for (let t = 0; t < nt; t++) {
    if (collapsed(t)) continue;
    live[t] = 1;
    for (let k = 0; k < 3; k++) {
      const v = idx[t * 3 + k]! + 1;
      start[v] = start[v]! + 1;
    }
  }
  for (let v = 0; v < nw; v++) start[v + 1] = start[v + 1]! + start[v]!;
  const fill = start.slice(0, nw);
  const corner = new Int32Array(start[nw]!);
  const next = new Int32Array(start[nw]!);
  const prev = new Int32Array(start[nw]!);
  for (let t = 0; t < nt; t++) {
    if (!live[t]) continue;
    for (let k = 0; k < 3; k++) {
      const v = idx[t * 3 + k]!;
      const at = fill[v]!;
      fill[v] = at + 1;
      corner[at] = t * 3 + k;
      next[at] = idx[t * 3 + ((k + 1) % 3)]!;
      prev[at] = idx[t * 3 + ((k + 2) % 3)]!;
    }
  }

  const cosCrease = Math.cos((creaseAngleDeg * Math.PI) / 180);
  const indices = new Uint32Array(nc);
  const owner = new Int32Array(nc); // output vertex → welded source vertex
  let nv = 0;
  let g = new Int32Array(64); // union-find over one vertex's corners, then their output vertex
  const stamp = new Int32Array(nw).fill(-1);
  const arriving = new Int32Array(nw); // corner arriving from the neighbour, −2 when several
  const leaving = new Int32Array(nw); // corners leaving towards the neighbour
  for (let v = 0; v < nw; v++) {
    const s0 = start[v]!,
      n = start[v + 1]! - s0;
    if (n === 0) continue;
    if (n > g.length) g = new Int32Array(n * 2);
    for (let i = 0; i < n; i++) g[i] = i;
    // Busy vertices (fan centres, cone tips, non-manifold seams) count their neighbours in
    // scratch arrays indexed by the neighbour vertex, valid while stamp[x] === v: linear
    // instead of the quadratic scan, and nothing allocated per vertex.
    const busy = n > 16;
    if (busy) {
      for (let j = 0; j < n; j++) {
        const pj = prev[s0 + j]!,
          nj = next[s0 + j]!;
        if (stamp[pj] !== v) {
          stamp[pj] = v;
          arriving[pj] = -1;
          leaving[pj] = 0;
        }
        if (stamp[nj] !== v) {
          stamp[nj] = v;
          arriving[nj] = -1;
          leaving[nj] = 0;
        }
        arriving[pj] = arriving[pj] === -1 ? j : -2;
        leaving[nj] = leaving[nj]! + 1;
      }
    }
    for (let i = 0; i < n; i++) {
      const x = next[s0 + i]!;
      // Exactly one corner here leaving towards x and exactly one arriving from x: a manifold,
      // consistently oriented edge.
      let match = -1,
        out = 0;
      if (busy) {
        match = arriving[x]!;
        out = leaving[x]!;
      } else {
        for (let j = 0; j < n; j++) {
          if (next[s0 + j] === x) out++;
          if (prev[s0 + j] === x) match = match === -1 ? j : -2;
        }
      }
      if (out !== 1 || match < 0) continue;
      const t1 = (corner[s0 + i]! / 3) | 0,
        t2 = (corner[s0 + match]! / 3) | 0;
      const dot = fn[t1 * 3]! * fn[t2 * 3]! + fn[t1 * 3 + 1]! * fn[t2 * 3 + 1]! + fn[t1 * 3 + 2]! * fn[t2 * 3 + 2]!;
      if (dot < cosCrease) continue;
      const a = root(g, i),
        b = root(g, match);
      if (a !== b) g[a > b ? a : b] = a > b ? b : a;
    }
    // A parent always has a smaller index than its child (unions hang the larger root under
    // the smaller one), so one forward pass numbers the groups by their first corner and
    // resolves each corner from its already resolved parent.
    for (let i = 0; i < n; i++) {
      const parent = g[i]!;
      if (parent === i) {
        owner[nv] = v;
        g[i] = -1 - nv++; // from here on, negative entries hold the output vertex
      } else g[i] = g[parent]!;
      indices[corner[s0 + i]!] = -1 - g[i]!;
    }
  }
  // Corners of collapsed triangles: a vertex each (zero area, never visible).
  for (let t = 0; t < nt; t++) {
    if (live[t]) continue;
    for (let k = 0; k < 3; k++) {
      owner[nv] = idx[t * 3 + k]!;
      indices[t * 3 + k] = nv++;
    }
  }

  const positions = new Float32Array(nv * 3);
  for (let v = 0; v < nv; v++) {
    const src = owner[v]! * 3;
    positions[v * 3] = p[src]!;
    positions[v * 3 + 1] = p[src + 1]!;
    positions[v * 3 + 2] = p[src + 2]!;
  }
  const sum = new Float32Array(nv * 3);
  for (let cidx = 0; cidx < nc; cidx++) {
    const v = indices[cidx]!;
    const t = (cidx / 3) | 0;
    const wgt = angle[cidx]!;
    sum[v * 3] = sum[v * 3]! + fn[t * 3]! * wgt;
    sum[v * 3 + 1] = sum[v * 3 + 1]! + fn[t * 3 + 1]! * wgt;
    sum[v * 3 + 2] = sum[v * 3 + 2]! + fn[t * 3 + 2]! * wgt;
  }
  const normals = new Float32Array(nv * 3);
  for (let v = 0; v < nv; v++) {
    const x = sum[v * 3]!,
      y = sum[v * 3 + 1]!,
      z = sum[v * 3 + 2]!;
    const l = Math.sqrt(x * x + y * y + z * z);
    if (l > 0) {
      normals[v * 3] = x / l;
      normals[v * 3 + 1] = y / l;
      normals[v * 3 + 2] = z / l;
    } else normals[v * 3 + 2] = 1; // only degenerate slivers: any unit vector will do
  }
  const out: MeshWithNormals = { positions, indices, normals };
  if (mesh.units !== undefined) out.units = mesh.units;
  return out;
}

/**
 * Union-find root with path halving. A module function, not a closure made per vertex: a closure
 * costs an allocation per vertex (and tsx's name-keeping wrapper a defineProperty on top).
 */
function root(g: Int32Array, i: number): number {
  while (g[i] !== i) i = g[i] = g[g[i]!]!;
  return i;
}

function cornerAngle(dot: number, lengths: number): number {
  if (!(lengths > 0)) return 0;
  const c = dot / lengths;
  return Math.acos(c > 1 ? 1 : c < -1 ? -1 : c);
}
