// Which parts of a model a section cut may fill. The cap is drawn where the stencil count of the
// faces behind the cut is not zero, which means "inside" only for a closed surface: an open
// surface (a sheet, a shell missing a face, most exported assemblies' sheet bodies) leaves counts
// that are not zero over the whole view, and the cap would flood it. So the cut fills only the
// connected bodies whose every edge is shared by an even number of triangles; the others are cut
// open and show their inside faces.
import { BufferAttribute, BufferGeometry } from 'three';

/**
 * The triangles of `geometry` that belong to closed bodies, as a geometry sharing its positions;
 * null when no body is closed. Vertices are welded by position first (exporters split them at
 * creases and colour changes, and a viewer file's quantized primitives may put one corner a
 * few 1/65535ths of the size apart).
 */
export function closedBodies(geometry: BufferGeometry): BufferGeometry | null {
  const position = geometry.getAttribute('position');
  if (!position || position.count < 3) return null;
  const index = geometry.getIndex();
  const corners = index ? index.count : position.count;
  const triangles = Math.floor(corners / 3);
  const corner = (i: number) => (index ? index.getX(i) : i);

  geometry.computeBoundingBox();
  const box = geometry.boundingBox!;
  const size = Math.max(box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z) || 1;
  const welded = weld(position, size * WELD_TOLERANCE);
  const count = welded.reduce((n, id) => Math.max(n, id + 1), 0);

  // Bodies: vertices joined by triangles (union–find over welded vertices).
  const parent = new Int32Array(count).map((_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  const edges = new Map<number, number>();
  const edgeKey = (a: number, b: number) => (a < b ? a * count + b : b * count + a);
  for (let t = 0; t < triangles; t++) {
    const a = welded[corner(3 * t)]!;
    const b = welded[corner(3 * t + 1)]!;
    const c = welded[corner(3 * t + 2)]!;
    if (a === b || b === c || a === c) continue; // degenerate: no area, no edge of its own
    parent[find(b)] = find(a);
    parent[find(c)] = find(a);
    for (const k of [edgeKey(a, b), edgeKey(b, c), edgeKey(c, a)]) edges.set(k, (edges.get(k) ?? 0) + 1);
  }
  const open = new Set<number>();
  for (const [k, n] of edges) if (n % 2 === 1) open.add(find(Math.floor(k / count)));

  const kept: number[] = [];
  for (let t = 0; t < triangles; t++) {
    const a = welded[corner(3 * t)]!;
    const b = welded[corner(3 * t + 1)]!;
    const c = welded[corner(3 * t + 2)]!;
    if (a === b || b === c || a === c || open.has(find(a))) continue;
    kept.push(corner(3 * t), corner(3 * t + 1), corner(3 * t + 2));
  }
  if (kept.length === 0) return null;
  if (kept.length === triangles * 3) return geometry;
  const closed = new BufferGeometry();
  closed.setAttribute('position', position);
  closed.setIndex(new BufferAttribute(position.count > 65535 ? new Uint32Array(kept) : new Uint16Array(kept), 1));
  return closed;
}

/** Corners this close (a share of the model's size) are one: 16-bit quantization errs by 1.5e-5. */
const WELD_TOLERANCE = 1e-4;

/**
 * Each vertex's welded id: the first earlier vertex within `tolerance` on every axis, looked for in
 * the neighbouring grid cells too (two corners a hair apart can sit on either side of a cell wall).
 */
function weld(
  position: { count: number; getX(i: number): number; getY(i: number): number; getZ(i: number): number },
  tolerance: number,
): Int32Array {
  const out = new Int32Array(position.count);
  const cells = new Map<string, number[]>();
  const reps: number[] = []; // x, y, z of each welded vertex
  for (let v = 0; v < position.count; v++) {
    const [x, y, z] = [position.getX(v), position.getY(v), position.getZ(v)];
    const [cx, cy, cz] = [Math.floor(x / tolerance), Math.floor(y / tolerance), Math.floor(z / tolerance)];
    let found = -1;
    for (let dx = -1; dx <= 1 && found < 0; dx++)
      for (let dy = -1; dy <= 1 && found < 0; dy++)
        for (let dz = -1; dz <= 1 && found < 0; dz++)
          for (const r of cells.get(`${cx + dx},${cy + dy},${cz + dz}`) ?? [])
            if (
              Math.abs(reps[3 * r]! - x) <= tolerance &&
              Math.abs(reps[3 * r + 1]! - y) <= tolerance &&
              Math.abs(reps[3 * r + 2]! - z) <= tolerance
            ) {
              found = r;
              break;
            }
    if (found < 0) {
      found = reps.length / 3;
      reps.push(x, y, z);
      const key = `${cx},${cy},${cz}`;
      const list = cells.get(key);
      if (list) list.push(found);
      else cells.set(key, [found]);
    }
    out[v] = found;
  }
  return out;
}
