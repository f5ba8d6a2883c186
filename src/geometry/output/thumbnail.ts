import type { Mesh, Vec3 } from '../mesh/mesh';
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
  /**
   * Supersampling factor per axis (default 1.25: ~1.6 samples per pixel, area-filtered). Side by
   * side at 3× zoom, 1.25 and 1.5 give the same edges; 1 shows stair steps. 1.25 shades 31 %
   * fewer pixels than 1.5 — the thumbnail is the largest step of ingesting a typical part.
   */
  supersample?: number;
}

/**
 * A square, antialiased isometric picture of the part for model lists: smooth-shaded soft
 * grey-blue with sharp CAD edges kept, a faint darkening at steps and silhouettes, the part's
 * projected extent filling the frame. Rendered at `supersample ×` the size, then area-filtered
 * down with premultiplied alpha, so edges against a transparent background do not fringe.
 * Pass a `MeshWithNormals` (from `creaseNormals`, shared with `toViewerGlb`) to skip computing
 * normals twice.
 */
export function renderThumbnail(mesh: Mesh, size = 256, options: ThumbnailOptions = {}): RawImage {
  const ss = Math.max(1, options.supersample ?? 1.25);
  const big = Math.round(size * ss);
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
  const rgba = big % size === 0 ? downsample(r.rgba, big, big, big / size) : resample(r.rgba, big, big, size, size);
  return { width: size, height: size, rgba };
}

/** Y-up isometric: the eye at +x (right), +y (top), +z (front, glTF's facing direction). */
const ISOMETRIC_Y_UP: Vec3 = [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)];

/** Box filter by an integer factor, averaging premultiplied colours. */
export function downsample(src: Uint8ClampedArray, width: number, height: number, factor: number): Uint8ClampedArray {
  if (factor === 1) return src.slice();
  const w = Math.floor(width / factor),
    h = Math.floor(height / factor);
  const out = new Uint8ClampedArray(w * h * 4);
  const n = factor * factor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
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

/**
 * Area-weighted (box) resampling to a smaller size by any factor, e.g. 384² → 256²: every output
 * pixel averages the source pixels it covers, partly covered ones by their covered fraction, in
 * premultiplied colour like {@link downsample}.
 */
export function resample(src: Uint8ClampedArray, width: number, height: number, outWidth: number, outHeight: number): Uint8ClampedArray {
  const xs = footprints(width, outWidth);
  const ys = footprints(height, outHeight);
  const out = new Uint8ClampedArray(outWidth * outHeight * 4);
  for (let y = 0; y < outHeight; y++) {
    const fy = ys[y]!;
    for (let x = 0; x < outWidth; x++) {
      const fx = xs[x]!;
      let r = 0,
        g = 0,
        b = 0,
        a = 0,
        total = 0;
      for (let j = 0; j < fy.index.length; j++) {
        const row = fy.index[j]! * width;
        const wy = fy.weight[j]!;
        for (let k = 0; k < fx.index.length; k++) {
          const w = wy * fx.weight[k]!;
          const i = (row + fx.index[k]!) * 4;
          const al = src[i + 3]! * w;
          r += src[i]! * al;
          g += src[i + 1]! * al;
          b += src[i + 2]! * al;
          a += al;
          total += w;
        }
      }
      const o = (y * outWidth + x) * 4;
      if (a > 0) {
        out[o] = r / a;
        out[o + 1] = g / a;
        out[o + 2] = b / a;
      }
      out[o + 3] = a / total;
    }
  }
  return out;
}

/** Per output pixel: the source pixels its span covers and by how much. */
function footprints(from: number, to: number): { index: number[]; weight: number[] }[] {
  const scale = from / to;
  const out: { index: number[]; weight: number[] }[] = [];
  for (let i = 0; i < to; i++) {
    const lo = i * scale,
      hi = (i + 1) * scale;
    const index: number[] = [],
      weight: number[] = [];
    for (let s = Math.floor(lo); s < Math.min(from, Math.ceil(hi)); s++) {
      const w = Math.min(hi, s + 1) - Math.max(lo, s);
      if (w > 1e-9) {
        index.push(s);
        weight.push(w);
      }
    }
    out.push({ index, weight });
  }
  return out;
}
