// The model side of image search: the part rendered from many directions, in perspective as a
// camera nearby sees it, each view described like a photo would be (views/shape-features.ts).
// Runs in the ingestion worker.
import type { Mesh } from '../../mesh/mesh';
import { renderView } from '../../output/render/render-view';
import { boundingSphere, lookFrom, normalize, viewpoints } from '../../output/render/view';
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

/**
 * Camera distance of the views, in bounding radii ({@link inPerspective}). Photos are taken from
 * nearby: a part's near end looks larger than its far end, which an orthographic view never
 * shows (a tube seen at a slant becomes a taper). Chosen on the image benchmark's training split
 * of photos (seeds 500,000 + …, as view-weights.ts), weights refitted for each: one-image top-1
 * 0.60 orthographic, 0.76 at 4, 0.78 at 5, 0.76 at 7. Checked on other photos, from 10–20 radii
 * (orthographic 0.78, at 5 0.68) and from 2.2–3 (0.35 and 0.67): less sharp far off, far more
 * robust close up.
 */
export const VIEW_DISTANCE = 5;
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/**
 * The mesh in the camera space of `rotation`, warped as a camera `distance` bounding radii from
 * its centre sees it: x and y divided by the distance to the eye, z kept for the depth order
 * (lines stay lines, so the orthographic rasterizer draws the exact perspective image).
 */
export function inPerspective(
  mesh: Mesh,
  rotation: readonly number[],
  sphere: { center: readonly number[]; radius: number },
  distance: number,
): Mesh {
  const R = rotation;
  const D = distance * (sphere.radius || 1);
  const [cx, cy, cz] = sphere.center as [number, number, number];
  const p = mesh.positions;
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]! - cx,
      y = p[i + 1]! - cy,
      z = p[i + 2]! - cz;
    const vx = R[0]! * x + R[4]! * y + R[8]! * z;
    const vy = R[1]! * x + R[5]! * y + R[9]! * z;
    const vz = R[2]! * x + R[6]! * y + R[10]! * z;
    const f = D / (D - vz);
    out[i] = vx * f;
    out[i + 1] = vy * f;
    out[i + 2] = vz;
  }
  return { positions: out, indices: mesh.indices };
}

export async function modelViews(model: Mesh, count = VIEW_COUNT): Promise<ModelViews> {
  // Large models are simplified first (view-mesh.ts): the cost of rendering goes with triangles.
  const mesh = await viewMesh(model);
  const sphere = boundingSphere(mesh);
  const dirs = viewpoints(count);
  const data = new Float32Array(dirs.length * VIEW_DESCRIPTOR_LENGTH);
  const signatures = new Uint8Array(dirs.length * POLAR_LENGTH);
  let kept = 0;
  for (const dir of dirs) {
    // Already in camera space: the renderer's own rotation is the identity.
    const img = renderView(inPerspective(mesh, lookFrom(dir), sphere, VIEW_DISTANCE), {
      width: RENDER_SIZE,
      height: RENDER_SIZE,
      rotation: IDENTITY,
      fit: 'tight',
      margin: 0.04,
      lighting: VIEW_LIGHTING,
      color: [200, 200, 200],
    });
    const view = normaliseView(img.mask, luminance(img.rgba, 4), img.width, img.height);
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
