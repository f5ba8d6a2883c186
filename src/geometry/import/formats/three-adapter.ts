// The one place where three.js objects turn into plain geometry: the rest of geometry/ works on
// the plain `Mesh` (typed arrays), so the three.js loaders of OBJ and PLY stop at this file.
import type { BufferGeometry, Object3D } from 'three';
import { mergeMeshes, type Mesh } from '../../mesh/mesh';

/** A real, exactly sized ArrayBuffer (three's loaders misread Node Buffers and views into pools). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

/** Positions and triangle indices of a geometry (non-indexed geometries get 0, 1, 2...). */
export function geometryToMesh(geometry: BufferGeometry): Mesh {
  const pos = geometry.getAttribute('position');
  if (!pos) return { positions: new Float32Array(0), indices: new Uint32Array(0) };
  const positions = new Float32Array(pos.count * 3);
  for (let i = 0; i < pos.count; i++) {
    positions[i * 3] = pos.getX(i);
    positions[i * 3 + 1] = pos.getY(i);
    positions[i * 3 + 2] = pos.getZ(i);
  }
  const index = geometry.getIndex();
  let indices: Uint32Array;
  if (index) {
    indices = new Uint32Array(index.count - (index.count % 3));
    for (let i = 0; i < indices.length; i++) indices[i] = index.getX(i);
  } else {
    indices = new Uint32Array(pos.count - (pos.count % 3));
    for (let i = 0; i < indices.length; i++) indices[i] = i;
  }
  return { positions, indices };
}

/**
 * Every triangle mesh under `root`, placed with its world matrix, merged into one.
 * Lines and points are skipped: they have no surface.
 */
export function objectToMesh(root: Object3D): Mesh {
  root.updateMatrixWorld(true);
  const parts: Mesh[] = [];
  root.traverse((o) => {
    const m = o as Object3D & { isMesh?: boolean; geometry?: BufferGeometry };
    if (!m.isMesh || !m.geometry) return;
    const g = m.geometry.clone();
    g.applyMatrix4(m.matrixWorld);
    parts.push(geometryToMesh(g));
    g.dispose();
  });
  return mergeMeshes(parts);
}
