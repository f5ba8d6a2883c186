// Deviation of one surface from another, for the overlay compare view: distances by three-mesh-bvh
// (closest point on the other surface for every vertex) and the colour scale with its legend.
import { BufferAttribute, BufferGeometry, Matrix4, Vector3, type Mesh, type Object3D } from 'three';
import { MeshBVH } from 'three-mesh-bvh';

import { deviationColor } from '../geometry/compare/deviation-scale';

export {
  deviationColor,
  deviationLegend,
  farColor,
  nearColor,
  scaleMaxFor,
  withinColor,
  type LegendStop,
  type Rgb,
} from '../geometry/compare/deviation-scale';

/** Colours per vertex (RGB floats) for these distances. */
export function colorsFor(distances: Float32Array, tolerance: number, scaleMax: number): Float32Array {
  const out = new Float32Array(distances.length * 3);
  for (let i = 0; i < distances.length; i++) {
    const c = deviationColor(distances[i]!, tolerance, scaleMax);
    out[i * 3] = c[0];
    out[i * 3 + 1] = c[1];
    out[i * 3 + 2] = c[2];
  }
  return out;
}

export interface DeviationSummary {
  max: number;
  mean: number;
  /** Share of vertices within the tolerance, 0..1. */
  within: (tolerance: number) => number;
}

export function summarize(distances: Float32Array): DeviationSummary {
  let max = 0;
  let sum = 0;
  for (const d of distances) {
    if (d > max) max = d;
    sum += d;
  }
  return {
    max,
    mean: distances.length ? sum / distances.length : 0,
    within: (tolerance) => {
      if (!distances.length) return 0;
      let n = 0;
      for (const d of distances) if (d <= tolerance) n++;
      return n / distances.length;
    },
  };
}

/**
 * One geometry in model units from a loaded viewer GLB (whose nodes scale to metres and whose
 * positions may be quantized): positions are read denormalized, moved by their node's world
 * matrix and divided by metres-per-unit; normals recomputed after the move.
 */
export function geometryInModelUnits(root: Object3D, metresPerUnit: number): BufferGeometry {
  root.updateWorldMatrix(true, true);
  const positions: number[] = [];
  const indices: number[] = [];
  const v = new Vector3();
  const toUnits = new Matrix4().makeScale(1 / metresPerUnit, 1 / metresPerUnit, 1 / metresPerUnit);
  root.traverse((o) => {
    const mesh = o as Mesh;
    if (!mesh.isMesh) return;
    const position = mesh.geometry.getAttribute('position');
    if (!position) return;
    const matrix = toUnits.clone().multiply(mesh.matrixWorld);
    const base = positions.length / 3;
    for (let i = 0; i < position.count; i++) {
      v.fromBufferAttribute(position, i).applyMatrix4(matrix);
      positions.push(v.x, v.y, v.z);
    }
    const index = mesh.geometry.getIndex();
    if (index) for (let i = 0; i < index.count; i++) indices.push(base + index.getX(i));
    else for (let i = 0; i < position.count; i++) indices.push(base + i);
  });
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(new Float32Array(positions), 3));
  geometry.setIndex(indices);
  geometry.computeVertexNormals();
  geometry.computeBoundingBox();
  geometry.computeBoundingSphere();
  return geometry;
}

/**
 * Unsigned distance from every vertex of `from` (moved by `fromMatrix`) to the surface of `to`,
 * in the units both geometries are in. The BVH is built once per target geometry.
 */
export function vertexDistances(from: BufferGeometry, fromMatrix: Matrix4, to: BufferGeometry | MeshBVH): Float32Array {
  const bvh = to instanceof MeshBVH ? to : new MeshBVH(to);
  const position = from.getAttribute('position');
  const out = new Float32Array(position.count);
  const p = new Vector3();
  const hit = { point: new Vector3(), distance: 0, faceIndex: 0 };
  for (let i = 0; i < position.count; i++) {
    p.fromBufferAttribute(position, i).applyMatrix4(fromMatrix);
    const result = bvh.closestPointToPoint(p, hit);
    out[i] = result ? result.distance : Number.POSITIVE_INFINITY;
  }
  return out;
}
