// From pixels to a normalised view (mask + inner edges) that describeView() takes: the same code
// serves the rendered views of a model and a user's photo, so both are seen alike.
import type { ViewImage } from './shape-features';

/** Longest side, in pixels, of the object in a normalised view. */
export const VIEW_EXTENT = 64;

/** Luminance (Rec. 601) of interleaved 8-bit pixels. */
export function luminance(pixels: Uint8Array | Uint8ClampedArray, channels: number): Float32Array {
  const n = Math.floor(pixels.length / channels);
  const out = new Float32Array(n);
  for (let i = 0, o = 0; i < n; i++, o += channels) out[i] = 0.299 * pixels[o]! + 0.587 * pixels[o + 1]! + 0.114 * pixels[o + 2]!;
  return out;
}

/**
 * Crops the object (mask's bounding box), scales it so its longer side is {@link VIEW_EXTENT}
 * pixels (box filter when shrinking) and finds its inner edges: steps of log-luminance, so a
 * relative contrast counts the same on a dark or a light part, whatever its colour. Edges closer
 * than a pixel to the silhouette are dropped: the outline is described by the mask itself.
 */
export function normaliseView(mask: Uint8Array | Float32Array, lum: Float32Array, width: number, height: number): ViewImage | null {
  let x0 = width, y0 = height, x1 = -1, y1 = -1;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      if (mask[i]! < 0.5) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return null;
  const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  const scale = VIEW_EXTENT / Math.max(bw, bh);
  const pad = 3;
  const ow = Math.max(1, Math.round(bw * scale)) + 2 * pad, oh = Math.max(1, Math.round(bh * scale)) + 2 * pad;
  const m = resampleBox(mask, width, height, x0, y0, scale, ow, oh, pad);
  const logLum = new Float32Array(lum.length);
  for (let i = 0; i < lum.length; i++) logLum[i] = Math.log(lum[i]! + 10);
  // Where the mask is empty, the background's luminance would leak into the average: weight by coverage.
  const weighted = new Float32Array(lum.length);
  for (let i = 0; i < lum.length; i++) weighted[i] = logLum[i]! * (mask[i]! >= 0.5 ? 1 : 0);
  const l = resampleBox(weighted, width, height, x0, y0, scale, ow, oh, pad);
  for (let i = 0; i < l.length; i++) l[i] = m[i]! > 0.01 ? l[i]! / m[i]! : 0;
  return { width: ow, height: oh, mask: m, edges: edgeMap(l, m, ow, oh) };
}

/** 0..1 edge strength inside the object: Sobel of log-luminance, ramped between 6% and 25% contrast. */
export function edgeMap(logLum: Float32Array, mask: Float32Array, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  const lo = 0.06 * 4, hi = 0.25 * 4; // Sobel weights sum to 4 per side
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      // Inner pixels only: all 8 neighbours well inside the silhouette.
      if (
        mask[i]! < 0.99 || mask[i - 1]! < 0.99 || mask[i + 1]! < 0.99 || mask[i - width]! < 0.99 || mask[i + width]! < 0.99 ||
        mask[i - width - 1]! < 0.99 || mask[i - width + 1]! < 0.99 || mask[i + width - 1]! < 0.99 || mask[i + width + 1]! < 0.99
      ) continue;
      const a = logLum[i - width - 1]!, b = logLum[i - width]!, c = logLum[i - width + 1]!;
      const d = logLum[i - 1]!, f = logLum[i + 1]!;
      const g = logLum[i + width - 1]!, h = logLum[i + width]!, k = logLum[i + width + 1]!;
      const gx = c + 2 * f + k - a - 2 * d - g;
      const gy = g + 2 * h + k - a - 2 * b - c;
      const e = Math.hypot(gx, gy);
      out[i] = e <= lo ? 0 : e >= hi ? 1 : (e - lo) / (hi - lo);
    }
  }
  return out;
}

/**
 * `out(x, y)` = mean of `src` over the source footprint of output pixel (x − pad, y − pad) at
 * `scale` output pixels per source pixel, starting at source (x0, y0). Shrinking averages every
 * covered source pixel; enlarging samples bilinearly.
 */
export function resampleBox(
  src: Float32Array | Uint8Array,
  width: number,
  height: number,
  x0: number,
  y0: number,
  scale: number,
  ow: number,
  oh: number,
  pad: number,
): Float32Array {
  const out = new Float32Array(ow * oh);
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= width || y >= height ? 0 : src[y * width + x]!);
  if (scale >= 1) {
    for (let y = 0; y < oh; y++) {
      for (let x = 0; x < ow; x++) {
        const sx = x0 + (x - pad + 0.5) / scale - 0.5, sy = y0 + (y - pad + 0.5) / scale - 0.5;
        const ix = Math.floor(sx), iy = Math.floor(sy), fx = sx - ix, fy = sy - iy;
        out[y * ow + x] = (at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx) * (1 - fy) + (at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx) * fy;
      }
    }
    return out;
  }
  const inv = 1 / scale;
  for (let y = 0; y < oh; y++) {
    const sy0 = y0 + (y - pad) * inv, sy1 = sy0 + inv;
    for (let x = 0; x < ow; x++) {
      const sx0 = x0 + (x - pad) * inv, sx1 = sx0 + inv;
      let s = 0;
      for (let yy = Math.floor(sy0); yy < Math.ceil(sy1); yy++) {
        const wy = Math.min(sy1, yy + 1) - Math.max(sy0, yy);
        if (wy <= 0) continue;
        for (let xx = Math.floor(sx0); xx < Math.ceil(sx1); xx++) {
          const wx = Math.min(sx1, xx + 1) - Math.max(sx0, xx);
          if (wx <= 0) continue;
          s += at(xx, yy) * wx * wy;
        }
      }
      out[y * ow + x] = s * scale * scale;
    }
  }
  return out;
}
