// The model side of image search: the part rendered from many directions, each view described
// like a photo would be (views/shape-features.ts). Runs in the ingestion worker.
import type { Mesh } from '../mesh';
import { renderView } from '../render/render-view';
import { boundingSphere, lookFrom, normalize, viewpoints } from '../render/view';
import { luminance, normaliseView } from './image-view';
import { POLAR_LENGTH, polarSignature } from './polar-signature';
import { describeView, VIEW_DESCRIPTOR_LENGTH } from './shape-features';
import { viewMesh } from './view-mesh';

/** Directions rendered per model (a Fibonacci sphere: even spacing, every side seen). */
export const VIEW_COUNT = 84;
/** Pixels of each rendered view; the object is then normalised to image-view's VIEW_EXTENT. */
const RENDER_SIZE = 80;

/** Descriptors of a model's views, `count` rows of `dim` values, and their polar signatures (`count` rows of POLAR_LENGTH bytes). */
export interface ModelViews {
  count: number;
  dim: number;
  data: Float32Array;
  signatures: Uint8Array;
}

/**
 * Light from the upper left plus a headlight, matte: faces of different orientation get clearly
 * different tones, so creases show as edges as they do in most photos.
 */
const VIEW_LIGHTING = { ambient: 0.3, headlight: 0.45, key: 0.45, keyDirection: normalize([-0.5, 0.6, 0.6]), specular: 0, shininess: 1 };

export async function modelViews(model: Mesh, count = VIEW_COUNT): Promise<ModelViews> {
  // Large models are simplified first (view-mesh.ts): the cost of rendering goes with triangles.
  const mesh = await viewMesh(model);
  const sphere = boundingSphere(mesh);
  const dirs = viewpoints(count);
  const data = new Float32Array(dirs.length * VIEW_DESCRIPTOR_LENGTH);
  const signatures = new Uint8Array(dirs.length * POLAR_LENGTH);
  let kept = 0;
  for (const dir of dirs) {
    const img = renderView(mesh, {
      width: RENDER_SIZE,
      height: RENDER_SIZE,
      rotation: lookFrom(dir),
      sphere,
      fit: 'tight',
      margin: 0.04,
      lighting: VIEW_LIGHTING,
      color: [200, 200, 200],
    });
    const mask = new Uint8Array(img.triangle.length);
    for (let i = 0; i < mask.length; i++) mask[i] = img.triangle[i]! >= 0 ? 1 : 0;
    const view = normaliseView(mask, luminance(img.rgba, 4), img.width, img.height);
    if (!view) continue;
    if (!describeView(view, data.subarray(kept * VIEW_DESCRIPTOR_LENGTH, (kept + 1) * VIEW_DESCRIPTOR_LENGTH))) continue;
    polarSignature(view, signatures.subarray(kept * POLAR_LENGTH, (kept + 1) * POLAR_LENGTH));
    kept++;
  }
  return {
    count: kept,
    dim: VIEW_DESCRIPTOR_LENGTH,
    data: data.slice(0, kept * VIEW_DESCRIPTOR_LENGTH),
    signatures: signatures.slice(0, kept * POLAR_LENGTH),
  };
}
