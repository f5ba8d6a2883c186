import type { LengthUnit, Mesh, Vec3 } from './mesh';

/** Axis-aligned bounding box of the vertices that triangles use. */
export interface BoundingBox {
  min: Vec3;
  max: Vec3;
  size: Vec3;
}

/**
 * Tessellation-robust measurements of a mesh, computed after welding coincident vertices.
 * Lengths are in the mesh's `units` (areas squared, volumes cubed).
 */
export interface MeshFacts {
  units: LengthUnit;
  triangleCount: number;
  /** Distinct vertices after welding. */
  vertexCount: number;
  bbox: BoundingBox;
  surfaceArea: number;
  /** Every edge is shared by exactly two triangles that traverse it in opposite directions. */
  closed: boolean;
  /**
   * Signed enclosed volume; only when `closed`. Negative means the triangles face inwards.
   */
  volume?: number;
  /** Connected pieces (shells) of the surface. */
  shellCount: number;
  /** Edges used by a single triangle (holes in the surface). */
  boundaryEdgeCount: number;
  /** Edges shared by more than two triangles, or twice in the same direction. */
  nonManifoldEdgeCount: number;
  /** Topological genus (through-holes) summed over shells; only when `closed`. */
  genus?: number;
  /** Shells that are closed on their own (every edge of theirs shared by exactly two of their triangles). */
  closedShellCount: number;
  /**
   * When some shells are open: the signed volume the closed ones enclose (an assembly's solid
   * parts beside an open sheet); absent when none is closed or when `volume` is known.
   */
  closedVolume?: number;
}

export interface WeldResult {
  mesh: Mesh;
  /** For each input vertex, its index in the welded mesh. */
  remap: Uint32Array;
  /** Triangles dropped because welding collapsed them (two corners merged). */
  droppedTriangles: number;
}

/** Default weld tolerance: a millionth of the bounding-box diagonal. */
export function defaultWeldTolerance(mesh: Mesh): number {
  const { size } = boundingBox(mesh);
  return Math.hypot(size[0], size[1], size[2]) * 1e-6;
}

/**
 * Merges vertices closer than `tolerance` (default {@link defaultWeldTolerance}) and drops
 * triangles that collapse, so triangle soups (STL) and split-by-face meshes (STEP, glTF with
 * normals) get the connectivity their surface really has.
 */
export function weld(mesh: Mesh, tolerance = defaultWeldTolerance(mesh)): WeldResult {
  const p = mesh.positions;
  const n = p.length / 3;
  const remap = new Uint32Array(n);
  // Same precision as the input: kept vertices are copies, and the distance test widens to double.
  const out = new Float32Array(n * 3);
  let count = 0;
  const tol = tolerance > 0 ? tolerance : 0;
  const tol2 = tol * tol;
  // Spatial hash with cells of twice the tolerance: a tolerance ball then touches at most two
  // cells per axis, so eight lookups find every neighbour. Chains (head/next) hold output
  // vertices; hash collisions only lengthen a chain, the distance test stays exact.
  const cell = tol > 0 ? tol * 2 : 1;
  const inv = 1 / cell;
  let size = 1;
  while (size < n * 2) size <<= 1;
  const mask = size - 1;
  const head = new Int32Array(size).fill(-1);
  const next = new Int32Array(n);
  const hash = (x: number, y: number, z: number) => (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(z, 83492791)) & mask;
  for (let i = 0; i < n; i++) {
    const x = p[i * 3]!,
      y = p[i * 3 + 1]!,
      z = p[i * 3 + 2]!;
    const fx = x * inv,
      fy = y * inv,
      fz = z * inv;
    const cx = Math.floor(fx),
      cy = Math.floor(fy),
      cz = Math.floor(fz);
    const sx = tol > 0 ? (fx - cx < 0.5 ? -1 : 1) : 0;
    const sy = tol > 0 ? (fy - cy < 0.5 ? -1 : 1) : 0;
    const sz = tol > 0 ? (fz - cz < 0.5 ? -1 : 1) : 0;
    let found = -1;
    search: for (let a = 0; a < (sx ? 2 : 1); a++) {
      for (let b = 0; b < (sy ? 2 : 1); b++) {
        for (let c = 0; c < (sz ? 2 : 1); c++) {
          for (let v = head[hash(cx + a * sx, cy + b * sy, cz + c * sz)]!; v >= 0; v = next[v]!) {
            const ex = out[v * 3]! - x,
              ey = out[v * 3 + 1]! - y,
              ez = out[v * 3 + 2]! - z;
            if (ex * ex + ey * ey + ez * ez <= tol2) {
              found = v;
              break search;
            }
          }
        }
      }
    }
    if (found < 0) {
      found = count++;
      out[found * 3] = x;
      out[found * 3 + 1] = y;
      out[found * 3 + 2] = z;
      const h = hash(cx, cy, cz);
      next[found] = head[h]!;
      head[h] = found;
    }
    remap[i] = found;
  }
  const src = mesh.indices;
  const all = new Uint32Array(src.length - (src.length % 3));
  let kept = 0;
  let dropped = 0;
  for (let t = 0; t + 2 < src.length; t += 3) {
    const a = remap[src[t]!]!,
      b = remap[src[t + 1]!]!,
      c = remap[src[t + 2]!]!;
    if (a === b || b === c || a === c) dropped++;
    else {
      all[kept] = a;
      all[kept + 1] = b;
      all[kept + 2] = c;
      kept += 3;
    }
  }
  const welded: Mesh = { positions: out.slice(0, count * 3), indices: kept === all.length ? all : all.slice(0, kept) };
  if (mesh.units !== undefined) welded.units = mesh.units;
  return { mesh: welded, remap, droppedTriangles: dropped };
}

/**
 * Corners of the box around the vertices some triangle uses (a vertex no triangle uses is not
 * part of the shape); ±Infinity when there are none.
 */
export function usedVertexBounds(
  positions: ArrayLike<number>,
  indices: ArrayLike<number>,
): { min: [number, number, number]; max: [number, number, number] } {
  const used = new Uint8Array(Math.floor(positions.length / 3));
  for (let k = 0; k < indices.length; k++) used[indices[k]!] = 1;
  let x0 = Infinity,
    y0 = Infinity,
    z0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity,
    z1 = -Infinity;
  for (let v = 0, i = 0; v < used.length; v++, i += 3) {
    if (!used[v]) continue;
    const x = positions[i]!,
      y = positions[i + 1]!,
      z = positions[i + 2]!;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
    if (z > z1) z1 = z;
  }
  return { min: [x0, y0, z0], max: [x1, y1, z1] };
}

export function boundingBox(mesh: Mesh): BoundingBox {
  if (mesh.indices.length === 0) return { min: [0, 0, 0], max: [0, 0, 0], size: [0, 0, 0] };
  const { min, max } = usedVertexBounds(mesh.positions, mesh.indices);
  return { min, max, size: [max[0] - min[0], max[1] - min[1], max[2] - min[2]] };
}

/** Per triangle: its unit normal (zero for a degenerate one) and twice its area. */
export function faceNormals(positions: ArrayLike<number>, indices: ArrayLike<number>): { normal: Float64Array; area2: Float64Array } {
  const p = positions;
  const nt = indices.length / 3;
  const normal = new Float64Array(nt * 3);
  const area2 = new Float64Array(nt);
  for (let t = 0; t < nt; t++) {
    const a = indices[t * 3]! * 3,
      b = indices[t * 3 + 1]! * 3,
      c = indices[t * 3 + 2]! * 3;
    const ux = p[b]! - p[a]!,
      uy = p[b + 1]! - p[a + 1]!,
      uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!,
      vy = p[c + 1]! - p[a + 1]!,
      vz = p[c + 2]! - p[a + 2]!;
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    const l = Math.hypot(nx, ny, nz);
    area2[t] = l;
    if (l > 0) normal.set([nx / l, ny / l, nz / l], t * 3);
  }
  return { normal, area2 };
}

/** Sum of triangle areas. */
export function surfaceArea(mesh: Mesh): number {
  return areaAndVolume(mesh).area;
}

/** Signed volume by the divergence theorem; meaningful only for a closed, consistently oriented mesh. */
export function signedVolume(mesh: Mesh): number {
  return areaAndVolume(mesh).volume;
}

/**
 * Area and signed volume in one plain loop over the triangles (no per-triangle callback: a
 * callback shared by several callers stops being inlined, and this runs on every ingest).
 */
export function areaAndVolume(mesh: Mesh): { area: number; volume: number } {
  const p = mesh.positions;
  const idx = mesh.indices;
  let area = 0,
    v6 = 0;
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const a = idx[t]! * 3,
      b = idx[t + 1]! * 3,
      c = idx[t + 2]! * 3;
    const ax = p[a]!,
      ay = p[a + 1]!,
      az = p[a + 2]!;
    const bx = p[b]!,
      by = p[b + 1]!,
      bz = p[b + 2]!;
    const cx = p[c]!,
      cy = p[c + 1]!,
      cz = p[c + 2]!;
    const ux = bx - ax,
      uy = by - ay,
      uz = bz - az;
    const vx = cx - ax,
      vy = cy - ay,
      vz = cz - az;
    const nx = uy * vz - uz * vy,
      ny = uz * vx - ux * vz,
      nz = ux * vy - uy * vx;
    area += 0.5 * Math.sqrt(nx * nx + ny * ny + nz * nz);
    v6 += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
  }
  return { area, volume: v6 / 6 };
}

/**
 * Measures a mesh after welding it (tolerance as in {@link weld}). Pass `welded`, the result of
 * {@link weld} on this very mesh, to share one weld with {@link creaseNormals}.
 */
export function meshFacts(mesh: Mesh, options: { weldTolerance?: number; welded?: WeldResult } = {}): MeshFacts {
  const { mesh: m } = options.welded ?? weld(mesh, options.weldTolerance ?? defaultWeldTolerance(mesh));
  const nv = m.positions.length / 3;
  const idx = m.indices;
  const nt = idx.length / 3;

  // Corners grouped by their vertex a (CSR), each with the vertex after it (edge a→b) and the one
  // before it (edge p→a). Around a, the copies of a→b are the corners whose next is b and those of
  // b→a the corners whose previous is b; counting both in scratch arrays indexed by b (valid
  // while stamp[b] === a) is linear in the corners, also at fan centres with hundreds of them.
  const start = new Int32Array(nv + 1);
  for (let i = 0; i < idx.length; i++) start[idx[i]! + 1] = start[idx[i]! + 1]! + 1;
  for (let v = 0; v < nv; v++) start[v + 1] = start[v + 1]! + start[v]!;
  const fill = start.slice(0, nv);
  const next = new Int32Array(idx.length);
  const prev = new Int32Array(idx.length);
  for (let t = 0; t < idx.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const at = fill[idx[t + k]!]!++;
      next[at] = idx[t + ((k + 1) % 3)]!;
      prev[at] = idx[t + ((k + 2) % 3)]!;
    }
  }
  const root = shellRoots(idx, nv);
  // Shells with a boundary or non-manifold edge (by the root of the edge's start vertex).
  const openShells = new Set<number>();
  const stamp = new Int32Array(nv).fill(-1);
  const fwd = new Int32Array(nv);
  const rev = new Int32Array(nv);
  let boundary = 0;
  let nonManifold = 0;
  let undirectedEdges = 0;
  for (let a = 0; a < nv; a++) {
    const s0 = start[a]!,
      s1 = start[a + 1]!;
    for (let j = s0; j < s1; j++) {
      const b = next[j]!,
        c = prev[j]!;
      if (stamp[b] !== a) {
        stamp[b] = a;
        fwd[b] = 0;
        rev[b] = 0;
      }
      if (stamp[c] !== a) {
        stamp[c] = a;
        fwd[c] = 0;
        rev[c] = 0;
      }
      fwd[b] = fwd[b]! + 1;
      rev[c] = rev[c]! + 1;
    }
    for (let j = s0; j < s1; j++) {
      const b = next[j]!;
      const f = fwd[b]!;
      if (f === 0) continue; // this directed edge a→b was counted already (see below)
      fwd[b] = 0;
      const r = rev[b]!;
      if (r > 0 && b < a) continue; // count each undirected edge once, from its smaller start vertex
      undirectedEdges++;
      if (f === 1 && r === 1) continue;
      if (f + r === 1) boundary++;
      else nonManifold++;
      openShells.add(root[a]!);
    }
  }
  const closed = nt > 0 && boundary === 0 && nonManifold === 0;

  const used = new Uint8Array(nv);
  for (const i of idx) used[i] = 1;
  const roots = new Set<number>();
  let usedVertices = 0;
  for (let i = 0; i < nv; i++) {
    if (!used[i]) continue;
    usedVertices++;
    roots.add(root[i]!);
  }
  const shellCount = roots.size;
  const measures = areaAndVolume(m);

  const facts: MeshFacts = {
    units: mesh.units ?? 'unknown',
    triangleCount: mesh.indices.length / 3,
    vertexCount: usedVertices,
    bbox: boundingBox(m),
    surfaceArea: measures.area,
    closed,
    shellCount,
    boundaryEdgeCount: boundary,
    nonManifoldEdgeCount: nonManifold,
    closedShellCount: shellCount - openShells.size,
  };
  if (!closed && openShells.size < shellCount) facts.closedVolume = closedShellsVolume(m, root, openShells);
  if (closed) {
    facts.volume = measures.volume;
    // Euler: V − E + F = 2·shells − 2·genus
    facts.genus = Math.round((2 * shellCount - (usedVertices - undirectedEdges + nt)) / 2);
  }
  return facts;
}

/** Signed volume enclosed by the shells not in `open` (by the divergence theorem, shell by shell). */
function closedShellsVolume(mesh: Mesh, root: Int32Array, open: ReadonlySet<number>): number {
  const p = mesh.positions;
  const idx = mesh.indices;
  let v6 = 0;
  for (let t = 0; t + 2 < idx.length; t += 3) {
    if (open.has(root[idx[t]!]!)) continue;
    const a = idx[t]! * 3,
      b = idx[t + 1]! * 3,
      c = idx[t + 2]! * 3;
    v6 +=
      p[a]! * (p[b + 1]! * p[c + 2]! - p[b + 2]! * p[c + 1]!) -
      p[a + 1]! * (p[b]! * p[c + 2]! - p[b + 2]! * p[c]!) +
      p[a + 2]! * (p[b]! * p[c + 1]! - p[b + 1]! * p[c]!);
  }
  return v6 / 6;
}

/** Each vertex's shell (connected through triangles) as the id of one vertex of it: union-find. */
export function shellRoots(indices: ArrayLike<number>, vertexCount: number): Int32Array {
  const parent = new Int32Array(vertexCount);
  for (let i = 0; i < vertexCount; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (let t = 0; t < indices.length; t += 3) {
    const a = find(indices[t]!);
    for (let k = 1; k < 3; k++) {
      const b = find(indices[t + k]!);
      if (a !== b) parent[b] = a;
    }
  }
  for (let i = 0; i < vertexCount; i++) parent[i] = find(i);
  return parent;
}
