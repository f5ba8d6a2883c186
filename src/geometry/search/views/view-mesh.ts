// The mesh the image-search views are rendered from: silhouettes and creases at 80 px do not need
// tens of thousands of triangles, and rasterising them is most of a large model's view cost.
// meshoptimizer's simplifier (a chosen library, quadric edge collapse) keeps the shape within a
// fraction of a view pixel.
import { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import type { Mesh } from '../../mesh/mesh';

/**
 * Models above this many triangles are simplified towards it before their views are rendered (as
 * far as VIEW_ERROR lets: a detailed part keeps more). Rendering is about a quarter of a large
 * model's view cost and goes with its triangles.
 */
export const VIEW_TRIANGLES = 1_500;
/**
 * Largest deviation the simplification may introduce, relative to the model's extent: about a
 * third of a pixel of the 80 px views (whose object spans ~77 px), so silhouettes and creases stay put.
 */
const VIEW_ERROR = 0.004;

export async function viewMesh(mesh: Mesh): Promise<Mesh> {
  if (mesh.indices.length / 3 <= VIEW_TRIANGLES) return mesh;
  await MeshoptSimplifier.ready;
  // Triangle soups (STL) repeat each corner per triangle: corners at one position must share one
  // vertex first, or no edge can collapse.
  const remap = MeshoptSimplifier.generatePositionRemap(mesh.positions, 3);
  const indices = new Uint32Array(mesh.indices.length);
  for (let i = 0; i < indices.length; i++) indices[i] = remap[mesh.indices[i]!]!;
  const [simplified] = MeshoptSimplifier.simplify(indices, mesh.positions, 3, VIEW_TRIANGLES * 3, VIEW_ERROR, []);
  return compact(mesh.positions, simplified);
}

/** Only the vertices the triangles use: every view projects all positions it is given. */
function compact(positions: Float32Array, indices: Uint32Array): Mesh {
  const map = new Int32Array(positions.length / 3).fill(-1);
  const out = new Float32Array(Math.min(positions.length, indices.length * 3));
  let n = 0;
  const idx = new Uint32Array(indices.length);
  for (let i = 0; i < indices.length; i++) {
    const v = indices[i]!;
    if (map[v]! < 0) {
      map[v] = n;
      out[n * 3] = positions[v * 3]!;
      out[n * 3 + 1] = positions[v * 3 + 1]!;
      out[n * 3 + 2] = positions[v * 3 + 2]!;
      n++;
    }
    idx[i] = map[v]!;
  }
  return { positions: out.slice(0, n * 3), indices: idx };
}
