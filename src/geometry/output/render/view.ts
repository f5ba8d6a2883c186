import type { Mesh, Vec3 } from '../../mesh/mesh';
import type { Mat4 } from '../../mesh/transform';

/** A sphere enclosing every vertex that a triangle uses. */
export interface BoundingSphere {
  center: Vec3;
  radius: number;
}

/**
 * The bounding box centre and the largest distance from it to a used vertex: not the minimal
 * sphere, but cheap, deterministic and the same for every view, which is what view-based
 * descriptors need (one scale for all of a part's views).
 */
export function boundingSphere(mesh: Mesh): BoundingSphere {
  const p = mesh.positions;
  const idx = mesh.indices;
  if (idx.length === 0) return { center: [0, 0, 0], radius: 0 };
  // Vertices no triangle uses must not count; mark the used ones.
  const used = new Uint8Array(p.length / 3);
  for (let k = 0; k < idx.length; k++) used[idx[k]!] = 1;
  let minX = Infinity,
    minY = Infinity,
    minZ = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    maxZ = -Infinity;
  for (let v = 0, i = 0; v < used.length; v++, i += 3) {
    if (!used[v]) continue;
    const x = p[i]!,
      y = p[i + 1]!,
      z = p[i + 2]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  const cx = (minX + maxX) / 2,
    cy = (minY + maxY) / 2,
    cz = (minZ + maxZ) / 2;
  let r2 = 0;
  for (let v = 0, i = 0; v < used.length; v++, i += 3) {
    if (!used[v]) continue;
    const dx = p[i]! - cx,
      dy = p[i + 1]! - cy,
      dz = p[i + 2]! - cz;
    const d = dx * dx + dy * dy + dz * dz;
    if (d > r2) r2 = d;
  }
  return { center: [cx, cy, cz], radius: Math.sqrt(r2) };
}

/** Z-up CAD isometric: the eye sits at +x, −y, +z of the part, so three faces of a box show. */
export const ISOMETRIC: Vec3 = normalize([1, -1, 1]);

/**
 * The world → view rotation (column-major {@link Mat4}) of a camera that looks at the part from
 * `direction` (a vector from the part towards the eye; it becomes view +z, the camera looks down
 * view −z) with `up` (default +z, the CAD convention) pointing up on screen as far as possible.
 */
export function lookFrom(direction: Vec3, up: Vec3 = [0, 0, 1]): number[] {
  const z = normalize(direction);
  let x = cross(up, z);
  if (Math.hypot(...x) < 1e-6) x = cross(Math.abs(z[1]) < 0.9 ? [0, 1, 0] : [1, 0, 0], z);
  x = normalize(x);
  const y = cross(z, x);
  // Rows of the rotation are the camera axes; column-major storage puts row r at m[c * 4 + r].
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, 0, 0, 0, 1];
}

/**
 * `n` well-spread unit directions, for rendering a part from many sides: 6 gives the axes, 20 the
 * vertices of a regular dodecahedron (exactly symmetric, as in light-field descriptors), any other
 * count a Fibonacci sphere. Antipodal pairs are included; orthographic silhouettes of a pair are
 * mirror images, their depth maps are not.
 */
export function viewpoints(n: number): Vec3[] {
  if (n === 6)
    return [
      [1, 0, 0],
      [-1, 0, 0],
      [0, 1, 0],
      [0, -1, 0],
      [0, 0, 1],
      [0, 0, -1],
    ];
  if (n === 20) {
    const phi = (1 + Math.sqrt(5)) / 2;
    const out: Vec3[] = [];
    for (const x of [-1, 1]) for (const y of [-1, 1]) for (const z of [-1, 1]) out.push(normalize([x, y, z]));
    for (const a of [-1, 1]) {
      for (const b of [-1, 1]) {
        out.push(normalize([0, a / phi, b * phi]));
        out.push(normalize([a / phi, b * phi, 0]));
        out.push(normalize([a * phi, 0, b / phi]));
      }
    }
    return out;
  }
  const out: Vec3[] = [];
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < n; i++) {
    const z = 1 - (2 * i + 1) / n;
    const r = Math.sqrt(Math.max(0, 1 - z * z));
    const a = golden * i;
    out.push([r * Math.cos(a), r * Math.sin(a), z]);
  }
  return out;
}

export function normalize(v: Vec3): Vec3 {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** Applies the rotation part (upper-left 3×3) of `m` to a direction. */
export function rotate(m: Mat4, v: Vec3): Vec3 {
  const e = (i: number) => m[i] ?? 0;
  return [e(0) * v[0] + e(4) * v[1] + e(8) * v[2], e(1) * v[0] + e(5) * v[1] + e(9) * v[2], e(2) * v[0] + e(6) * v[1] + e(10) * v[2]];
}
