import { count, failed, plural, type ImportError } from './importer';
import type { Mesh } from '../mesh/mesh';

/**
 * Checks what every importer's output must satisfy before anyone computes with it: at least one
 * triangle, finite coordinates, indices inside the vertex list, and some area.
 * `label` names the format in the reason ("STL", "OBJ"...).
 */
export function validateMesh(mesh: Mesh, label: string): ImportError | undefined {
  const { positions, indices } = mesh;
  if (positions.length % 3 !== 0 || indices.length % 3 !== 0) {
    return failed(`The ${label} file's geometry is incomplete (a vertex or triangle is cut short).`);
  }
  const nv = positions.length / 3;
  const nt = indices.length / 3;
  if (nt === 0) return failed(`The ${label} file contains no triangles or faces, so it has no surface to read.`);
  for (let i = 0; i < positions.length; i++) {
    const v = positions[i]!;
    if (!Number.isFinite(v)) {
      const what = Number.isNaN(v) ? 'not a number' : 'infinite';
      return failed(`The ${label} file has an invalid coordinate (${what}) at vertex ${count(Math.floor(i / 3) + 1)}.`);
    }
  }
  for (let i = 0; i < indices.length; i++) {
    const k = indices[i]!;
    if (k >= nv) {
      return failed(
        `Triangle ${count(Math.floor(i / 3) + 1)} of the ${label} file refers to vertex ${count(k + 1)}, but the file has only ${plural(nv, 'vertex', 'vertices')}.`,
      );
    }
  }
  if (!hasArea(positions, indices)) {
    return failed(`The ${label} file's ${plural(nt, 'triangle')} all have zero area: every point coincides or lies on one line.`);
  }
  return undefined;
}

function hasArea(p: Float32Array, idx: Uint32Array): boolean {
  let maxAbs = 0;
  for (let i = 0; i < p.length; i++) maxAbs = Math.max(maxAbs, Math.abs(p[i]!));
  const eps = (maxAbs * 1e-7) ** 2;
  for (let t = 0; t < idx.length; t += 3) {
    const a = idx[t]! * 3;
    const b = idx[t + 1]! * 3;
    const c = idx[t + 2]! * 3;
    const ux = p[b]! - p[a]!,
      uy = p[b + 1]! - p[a + 1]!,
      uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!,
      vy = p[c + 1]! - p[a + 1]!,
      vz = p[c + 2]! - p[a + 2]!;
    const cx = uy * vz - uz * vy,
      cy = uz * vx - ux * vz,
      cz = ux * vy - uy * vx;
    if (cx * cx + cy * cy + cz * cz > eps) return true;
  }
  return false;
}
