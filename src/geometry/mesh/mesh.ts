import { determinant3, scaling, transformPoint, type Mat4 } from './transform';

/** Length unit a mesh's coordinates are expressed in; `unknown` when the format does not say (STL, OBJ, PLY, OFF). */
export type LengthUnit = 'mm' | 'cm' | 'm' | 'in' | 'unknown';

/**
 * An indexed triangle mesh: plain typed data, free of three.js.
 *
 * - `positions`: x, y, z of each vertex, so its length is 3 × vertex count.
 * - `indices`: three vertex indices per triangle, counter-clockwise seen from outside.
 * - `units`: what one coordinate unit means; absent is the same as `unknown`.
 */
export interface Mesh {
  positions: Float32Array;
  indices: Uint32Array;
  units?: LengthUnit;
}

/** A point or direction as [x, y, z]. */
export type Vec3 = [number, number, number];

/** Millimetres per unit; `unknown` counts as millimetres, the usual CAD default. */
export const MM_PER_UNIT: Record<LengthUnit, number> = { mm: 1, cm: 10, m: 1000, in: 25.4, unknown: 1 };

export function vertexCount(mesh: Mesh): number {
  return mesh.positions.length / 3;
}

export function triangleCount(mesh: Mesh): number {
  return mesh.indices.length / 3;
}

/**
 * A new mesh with every vertex transformed. A mirroring transform flips the triangle winding
 * back so that normals keep pointing outwards.
 */
export function applyToMesh(mesh: Mesh, m: Mat4): Mesh {
  const src = mesh.positions;
  const positions = new Float32Array(src.length);
  const e = (i: number) => m[i] ?? 0;
  const affine = e(3) === 0 && e(7) === 0 && e(11) === 0 && e(15) === 1;
  for (let i = 0; i < src.length; i += 3) {
    const x = src[i]!;
    const y = src[i + 1]!;
    const z = src[i + 2]!;
    if (affine) {
      positions[i] = e(0) * x + e(4) * y + e(8) * z + e(12);
      positions[i + 1] = e(1) * x + e(5) * y + e(9) * z + e(13);
      positions[i + 2] = e(2) * x + e(6) * y + e(10) * z + e(14);
    } else {
      const p = transformPoint(m, [x, y, z]);
      positions[i] = p[0];
      positions[i + 1] = p[1];
      positions[i + 2] = p[2];
    }
  }
  let indices: Uint32Array = mesh.indices.slice();
  if (determinant3(m) < 0) indices = flipWinding(indices);
  return withUnits({ positions, indices }, mesh.units);
}

/** Reverses the winding of every triangle (in a copy). */
export function flipWinding(indices: Uint32Array): Uint32Array {
  const out = indices.slice();
  for (let t = 0; t + 2 < out.length; t += 3) {
    const b = out[t + 1]!;
    out[t + 1] = out[t + 2]!;
    out[t + 2] = b;
  }
  return out;
}

/**
 * Concatenates meshes into one (vertices are not welded). Units are kept when all inputs agree,
 * otherwise the result is `unknown`; convert with {@link convertUnits} first when they differ.
 */
export function mergeMeshes(meshes: readonly Mesh[]): Mesh {
  let nv = 0;
  let ni = 0;
  for (const m of meshes) {
    nv += m.positions.length;
    ni += m.indices.length;
  }
  const positions = new Float32Array(nv);
  const indices = new Uint32Array(ni);
  let pv = 0;
  let pi = 0;
  for (const m of meshes) {
    positions.set(m.positions, pv);
    const base = pv / 3;
    const src = m.indices;
    for (let i = 0; i < src.length; i++) indices[pi + i] = src[i]! + base;
    pv += m.positions.length;
    pi += src.length;
  }
  const units = new Set(meshes.map((m) => m.units ?? 'unknown'));
  const unit = units.size === 1 ? [...units][0] : 'unknown';
  return withUnits({ positions, indices }, unit);
}

/** The mesh expressed in another unit (coordinates scaled); `unknown` is treated as millimetres. */
export function convertUnits(mesh: Mesh, to: Exclude<LengthUnit, 'unknown'>): Mesh {
  const from = mesh.units ?? 'unknown';
  const f = MM_PER_UNIT[from] / MM_PER_UNIT[to];
  if (f === 1) return { ...mesh, units: to };
  return { ...applyToMesh(mesh, scaling(f)), units: to };
}

function withUnits(mesh: Mesh, units: LengthUnit | undefined): Mesh {
  if (units !== undefined) mesh.units = units;
  return mesh;
}
