import type { Mesh, Vec3 } from './mesh';

/**
 * Vertex clustering on a uniform grid (Rossignac–Borrel): every vertex moves to the mean of the
 * vertices in its cell, triangles whose corners share a cell vanish, and triangles that land on
 * the same three cells are kept once. It reads triangles one at a time and holds only the
 * result, so a mesh of any size streams through it in memory bounded by the grid — the way
 * ingestion reads meshes too large to hold (service/ingest/large-mesh.ts). No vertex moves by
 * more than the cell's diagonal.
 */
export interface ClusterGrid {
  origin: Vec3;
  /** Edge of a cell, in the mesh's units. */
  cell: number;
  dims: [number, number, number];
}

/**
 * The grid whose result has about `targetTriangles`: a surface of area A finely tessellated and
 * cut into cells of edge h meets about 1.3·A/h² cells, two triangles each (measured on a ring of
 * 21 million triangles: 2.6·A/h²; a coarser mesh meets fewer cells and keeps fewer). The cell is never smaller than 2⁻¹⁶ of the box's largest side,
 * which keeps cell numbers exact in a double.
 */
export function clusterGrid(bbox: { min: Vec3; max: Vec3 }, area: number, targetTriangles: number): ClusterGrid {
  const extent = [0, 1, 2].map((k) => bbox.max[k]! - bbox.min[k]!);
  const largest = Math.max(...extent, Number.MIN_VALUE);
  const cell = Math.max(Math.sqrt((2.6 * area) / Math.max(1, targetTriangles)), largest / 65_536);
  const dims = extent.map((e) => Math.floor(e / cell) + 1) as [number, number, number];
  return { origin: [...bbox.min] as Vec3, cell, dims };
}

export class VertexClusterer {
  private readonly cells: NumberTable;
  private sums = new Float64Array(3 * 1024);
  private counts = new Uint32Array(1024);
  private vertices = 0;
  private readonly seen: TripleTable;
  private readonly inv: number;

  constructor(private readonly grid: ClusterGrid) {
    this.inv = 1 / grid.cell;
    this.cells = new NumberTable();
    this.seen = new TripleTable();
  }

  /** One triangle, corners counter-clockwise: p[o..o+8]. */
  add(p: ArrayLike<number>, o = 0): void {
    const a = this.vertexOf(p[o]!, p[o + 1]!, p[o + 2]!);
    const b = this.vertexOf(p[o + 3]!, p[o + 4]!, p[o + 5]!);
    const c = this.vertexOf(p[o + 6]!, p[o + 7]!, p[o + 8]!);
    if (a === b || b === c || a === c) return;
    this.seen.add(a, b, c);
  }

  /**
   * The simplified mesh. Each set of three cells is counted with its turn (+1 one way, −1 the
   * other) and kept as often as the count says, turned by its sign: the image of a closed surface
   * stays closed (isClosedChain), and two opposite faces closer than a cell cancel out.
   */
  mesh(units?: Mesh['units']): Mesh {
    const positions = new Float32Array(3 * this.vertices);
    for (let v = 0; v < this.vertices; v++) {
      const n = this.counts[v]!;
      positions[3 * v] = this.sums[3 * v]! / n;
      positions[3 * v + 1] = this.sums[3 * v + 1]! / n;
      positions[3 * v + 2] = this.sums[3 * v + 2]! / n;
    }
    return { positions, indices: this.seen.triangles(), ...(units ? { units } : {}) };
  }

  private vertexOf(x: number, y: number, z: number): number {
    const { origin, dims } = this.grid;
    const ix = clamp(Math.floor((x - origin[0]) * this.inv), dims[0]);
    const iy = clamp(Math.floor((y - origin[1]) * this.inv), dims[1]);
    const iz = clamp(Math.floor((z - origin[2]) * this.inv), dims[2]);
    const key = ix + dims[0] * (iy + dims[1] * iz);
    let v = this.cells.get(key);
    if (v < 0) {
      v = this.vertices++;
      this.cells.set(key, v);
      if (v >= this.counts.length) {
        this.counts = grow(this.counts, this.counts.length * 2);
        this.sums = grow(this.sums, this.sums.length * 2);
      }
    }
    this.sums[3 * v] = this.sums[3 * v]! + x;
    this.sums[3 * v + 1] = this.sums[3 * v + 1]! + y;
    this.sums[3 * v + 2] = this.sums[3 * v + 2]! + z;
    this.counts[v]!++;
    return v;
  }
}

function clamp(i: number, n: number): number {
  return i < 0 ? 0 : i >= n ? n - 1 : i;
}

function grow<T extends Float64Array | Uint32Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}

/** Open addressing from non-negative integer keys below 2⁵³ to non-negative values; -1 when absent. */
class NumberTable {
  private keys = new Float64Array(1 << 12).fill(-1);
  private values = new Int32Array(1 << 12);
  private size = 0;

  get(key: number): number {
    const mask = this.keys.length - 1;
    for (let i = hashNumber(key) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i]!;
      if (k === key) return this.values[i]!;
      if (k < 0) return -1;
    }
  }

  set(key: number, value: number): void {
    if (2 * (this.size + 1) > this.keys.length) this.rehash(this.keys.length * 2);
    const mask = this.keys.length - 1;
    let i = hashNumber(key) & mask;
    while (this.keys[i]! >= 0 && this.keys[i] !== key) i = (i + 1) & mask;
    if (this.keys[i]! < 0) this.size++;
    this.keys[i] = key;
    this.values[i] = value;
  }

  private rehash(capacity: number): void {
    const { keys, values } = this;
    this.keys = new Float64Array(capacity).fill(-1);
    this.values = new Int32Array(capacity);
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i]! >= 0) this.set(keys[i]!, values[i]!);
  }
}

function hashNumber(key: number): number {
  const lo = (key % 0x4000000) | 0;
  const hi = Math.floor(key / 0x4000000) | 0;
  return (Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi ^ (lo >>> 13), 0x85ebca77)) >>> 0;
}

/** Unordered vertex triples, each with its net turn count. */
class TripleTable {
  private slots = new Int32Array(3 * (1 << 13)).fill(-1);
  private turns = new Int32Array(1 << 13);
  private size = 0;

  add(a: number, b: number, c: number): void {
    // sorted, so that every turn of the triangle is one entry; an odd number of swaps reverses it
    let sign = 1;
    if (a > b) [a, b, sign] = [b, a, -sign];
    if (b > c) [b, c, sign] = [c, b, -sign];
    if (a > b) [a, b, sign] = [b, a, -sign];
    if (2 * (this.size + 1) > this.turns.length) this.rehash(this.turns.length * 2);
    this.turns[this.slot(a, b, c)]! += sign;
  }

  /** Each triple as often as its net count, turned by its sign. */
  triangles(): Uint32Array {
    let n = 0;
    for (let i = 0; i < this.turns.length; i++) if (this.slots[3 * i]! >= 0) n += Math.abs(this.turns[i]!);
    const out = new Uint32Array(3 * n);
    let o = 0;
    for (let i = 0; i < this.turns.length; i++) {
      const s = 3 * i;
      if (this.slots[s]! < 0) continue;
      const reversed = this.turns[i]! < 0;
      for (let copies = Math.abs(this.turns[i]!); copies > 0; copies--) {
        out[o++] = this.slots[s]!;
        out[o++] = this.slots[s + (reversed ? 2 : 1)]!;
        out[o++] = this.slots[s + (reversed ? 1 : 2)]!;
      }
    }
    return out;
  }

  private slot(a: number, b: number, c: number): number {
    const mask = this.turns.length - 1;
    for (let i = hashTriple(a, b, c) & mask; ; i = (i + 1) & mask) {
      const s = 3 * i;
      if (this.slots[s]! < 0) {
        this.slots[s] = a;
        this.slots[s + 1] = b;
        this.slots[s + 2] = c;
        this.size++;
        return i;
      }
      if (this.slots[s] === a && this.slots[s + 1] === b && this.slots[s + 2] === c) return i;
    }
  }

  private rehash(capacity: number): void {
    const { slots, turns } = this;
    this.slots = new Int32Array(3 * capacity).fill(-1);
    this.turns = new Int32Array(capacity);
    this.size = 0;
    for (let i = 0; i < turns.length; i++) {
      if (slots[3 * i]! >= 0) this.turns[this.slot(slots[3 * i]!, slots[3 * i + 1]!, slots[3 * i + 2]!)] = turns[i]!;
    }
  }
}

function hashTriple(a: number, b: number, c: number): number {
  return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d)) >>> 0;
}

/**
 * Every edge is walked as often one way as the other: the surface encloses a volume, though two
 * of its bodies may touch along an edge (which clustering makes of a narrow neck). Indices must
 * be welded (clustered meshes are).
 */
export function isClosedChain(indices: Uint32Array): boolean {
  if (indices.length === 0) return false;
  const balance = new Map<number, number>();
  let vertices = 0;
  for (const v of indices) vertices = Math.max(vertices, v + 1);
  for (let t = 0; t < indices.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const a = indices[t + k]!;
      const b = indices[t + ((k + 1) % 3)]!;
      const key = a < b ? a * vertices + b : b * vertices + a;
      balance.set(key, (balance.get(key) ?? 0) + (a < b ? 1 : -1));
    }
  }
  for (const v of balance.values()) if (v !== 0) return false;
  return true;
}

/** `mesh` simplified on the grid that leaves about `targetTriangles` (see clusterGrid). */
export function clusterMesh(
  mesh: Mesh,
  bbox: { min: Vec3; max: Vec3 },
  area: number,
  targetTriangles: number,
): { mesh: Mesh; grid: ClusterGrid } {
  const grid = clusterGrid(bbox, area, targetTriangles);
  const clusterer = new VertexClusterer(grid);
  const corners = new Float32Array(9);
  const { positions: p, indices } = mesh;
  for (let t = 0; t < indices.length; t += 3) {
    for (let k = 0; k < 3; k++) {
      const v = 3 * indices[t + k]!;
      corners[3 * k] = p[v]!;
      corners[3 * k + 1] = p[v + 1]!;
      corners[3 * k + 2] = p[v + 2]!;
    }
    clusterer.add(corners);
  }
  return { mesh: clusterer.mesh(mesh.units), grid };
}
