import type { Mesh, Vec3 } from './mesh';
import { renderView, type Rgba } from './render/render-view';
import { ISOMETRIC } from './render/view';

/** Raw pixels of a thumbnail; the caller encodes them (e.g. sharp → PNG). */
export interface RawImage {
  width: number;
  height: number;
  /** Row-major RGBA, straight alpha, `width × height × 4` bytes. */
  rgba: Uint8ClampedArray;
}

export interface ThumbnailOptions {
  /** Default transparent, so the part sits on whatever card colour the app uses. */
  background?: Rgba;
  /** From the part towards the eye (default the z-up isometric view). */
  direction?: Vec3;
  /**
   * The model's up axis: `z` (default, CAD and STEP/IGES) or `y` (glTF, OBJ and most mesh tools).
   * The view is the isometric one from the front-right-top in either convention.
   */
  up?: 'z' | 'y';
  /** Supersampling factor per axis (default 2). */
  supersample?: number;
}

/**
 * A square, antialiased isometric picture of the part for model lists: smooth-shaded soft
 * grey-blue with sharp CAD edges kept, a faint darkening at steps and silhouettes, the part's
 * projected extent filling the frame. Rendered at `supersample ×` the size, then box-filtered
 * down with premultiplied alpha, so edges against a transparent background do not fringe.
 * Pass a `MeshWithNormals` (from `creaseNormals`, shared with `toViewerGlb`) to skip computing
 * normals twice.
 */
export function renderThumbnail(mesh: Mesh, size = 256, options: ThumbnailOptions = {}): RawImage {
  const ss = Math.max(1, Math.round(options.supersample ?? 2));
  const big = size * ss;
  const bg = options.background ?? [0, 0, 0, 0];
  const yUp = options.up === 'y';
  const r = renderView(mesh, {
    width: big,
    height: big,
    direction: options.direction ?? (yUp ? ISOMETRIC_Y_UP : ISOMETRIC),
    up: yUp ? [0, 1, 0] : [0, 0, 1],
    fit: 'tight',
    margin: 0.06,
    background: bg,
    shading: 'smooth',
    edges: 0.45,
  });
  return { width: size, height: size, rgba: downsample(r.rgba, big, big, ss) };
}

/** Y-up isometric: the eye at +x (right), +y (top), +z (front, glTF's facing direction). */
const ISOMETRIC_Y_UP: Vec3 = [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)];

/** Box filter by an integer factor, averaging premultiplied colours. */
export function downsample(src: Uint8ClampedArray, width: number, height: number, factor: number): Uint8ClampedArray {
  if (factor === 1) return src.slice();
  const w = Math.floor(width / factor), h = Math.floor(height / factor);
  const out = new Uint8ClampedArray(w * h * 4);
  const n = factor * factor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let dy = 0; dy < factor; dy++) {
        let i = ((y * factor + dy) * width + x * factor) * 4;
        for (let dx = 0; dx < factor; dx++, i += 4) {
          const al = src[i + 3]!;
          r += src[i]! * al;
          g += src[i + 1]! * al;
          b += src[i + 2]! * al;
          a += al;
        }
      }
      const o = (y * w + x) * 4;
      if (a > 0) {
        out[o] = r / a;
        out[o + 1] = g / a;
        out[o + 2] = b / a;
      }
      out[o + 3] = a / n;
    }
  }
  return out;
}
