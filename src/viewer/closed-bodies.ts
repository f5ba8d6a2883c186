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
 * creases and colour changes), with a tolerance of a millionth of the model's size.
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
  const step = size * 1e-6;
  const welded = new Int32Array(position.count);
  const ids = new Map<string, number>();
  for (let v = 0; v < position.count; v++) {
    const key = `${Math.round(position.getX(v) / step)},${Math.round(position.getY(v) / step)},${Math.round(position.getZ(v) / step)}`;
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    welded[v] = id;
  }

  // Bodies: vertices joined by triangles (union–find over welded vertices).
  const parent = new Int32Array(ids.size).map((_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  const edges = new Map<number, number>();
  const edgeKey = (a: number, b: number) => (a < b ? a * ids.size + b : b * ids.size + a);
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
  for (const [k, n] of edges) if (n % 2 === 1) open.add(find(Math.floor(k / ids.size)));

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
