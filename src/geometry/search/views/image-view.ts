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
  let x0 = width,
    y0 = height,
    x1 = -1,
    y1 = -1;
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
  const bw = x1 - x0 + 1,
    bh = y1 - y0 + 1;
  const scale = VIEW_EXTENT / Math.max(bw, bh);
  const pad = 3;
  const ow = Math.max(1, Math.round(bw * scale)) + 2 * pad,
    oh = Math.max(1, Math.round(bh * scale)) + 2 * pad;
  // Where the mask is empty, the background's luminance would leak into the average: weight by
  // coverage (and take logarithms only where it counts).
  const m = new Float32Array(mask.length);
  const weighted = new Float32Array(lum.length);
  for (let i = 0; i < lum.length; i++) {
    if (mask[i]! < 0.5) continue;
    m[i] = mask[i]!;
    weighted[i] = Math.log(lum[i]! + 10);
  }
  const xs = axisWeights(x0, scale, ow, pad, width),
    ys = axisWeights(y0, scale, oh, pad, height);
  const cover = resampleSeparable(m, width, xs, ys),
    l = resampleSeparable(weighted, width, xs, ys);
  for (let i = 0; i < l.length; i++) l[i] = cover[i]! > 0.01 ? l[i]! / cover[i]! : 0;
  return { width: ow, height: oh, mask: cover, edges: edgeMap(l, cover, ow, oh) };
}

/** 0..1 edge strength inside the object: Sobel of log-luminance, ramped between 6% and 25% contrast. */
export function edgeMap(logLum: Float32Array, mask: Float32Array, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  const lo = 0.06 * 4,
    hi = 0.25 * 4; // Sobel weights sum to 4 per side
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      // Inner pixels only: all 8 neighbours well inside the silhouette.
      if (
        mask[i]! < 0.99 ||
        mask[i - 1]! < 0.99 ||
        mask[i + 1]! < 0.99 ||
        mask[i - width]! < 0.99 ||
        mask[i + width]! < 0.99 ||
        mask[i - width - 1]! < 0.99 ||
        mask[i - width + 1]! < 0.99 ||
        mask[i + width - 1]! < 0.99 ||
        mask[i + width + 1]! < 0.99
      )
        continue;
      const a = logLum[i - width - 1]!,
        b = logLum[i - width]!,
        c = logLum[i - width + 1]!;
      const d = logLum[i - 1]!,
        f = logLum[i + 1]!;
      const g = logLum[i + width - 1]!,
        h = logLum[i + width]!,
        k = logLum[i + width + 1]!;
      const gx = c + 2 * f + k - a - 2 * d - g;
      const gy = g + 2 * h + k - a - 2 * b - c;
      const e = Math.hypot(gx, gy);
      out[i] = e <= lo ? 0 : e >= hi ? 1 : (e - lo) / (hi - lo);
    }
  }
  return out;
}

/** One axis of a separable resampling: output index o takes Σ w[k] · source[index[k]] for k in [start[o], start[o + 1]). */
export interface AxisWeights {
  start: Int32Array;
  index: Int32Array;
  weight: Float64Array;
}

/**
 * The weights {@link resampleBox} applies along one axis (its 2-D weights are products of two of
 * these): output pixel o − pad, at `scale` output pixels per source pixel from source `x0`; a
 * source pixel's overlap (× scale) when shrinking, bilinear when enlarging. Sources outside
 * 0..`size` − 1 are left out (they read as 0).
 */
export function axisWeights(x0: number, scale: number, out: number, pad: number, size: number): AxisWeights {
  const start = new Int32Array(out + 1);
  const index: number[] = [];
  const weight: number[] = [];
  const add = (i: number, w: number) => {
    if (i < 0 || i >= size || w <= 0) return;
    index.push(i);
    weight.push(w);
  };
  for (let o = 0; o < out; o++) {
    if (scale >= 1) {
      const s = x0 + (o - pad + 0.5) / scale - 0.5;
      const i = Math.floor(s),
        f = s - i;
      add(i, 1 - f);
      add(i + 1, f);
    } else {
      const inv = 1 / scale;
      const s0 = x0 + (o - pad) * inv,
        s1 = s0 + inv;
      for (let i = Math.floor(s0); i < Math.ceil(s1); i++) add(i, (Math.min(s1, i + 1) - Math.max(s0, i)) * scale);
    }
    start[o + 1] = index.length;
  }
  return { start, index: Int32Array.from(index), weight: Float64Array.from(weight) };
}

/** `src` (rows of `width`) resampled by `xs` along rows and `ys` along columns: rows first, only the rows `ys` reads. */
export function resampleSeparable(src: Float32Array, width: number, xs: AxisWeights, ys: AxisWeights): Float32Array {
  const ow = xs.start.length - 1,
    oh = ys.start.length - 1;
  // Source rows ys reads, each resampled along x once.
  let r0 = Infinity,
    r1 = -1;
  for (let k = 0; k < ys.index.length; k++) {
    const r = ys.index[k]!;
    if (r < r0) r0 = r;
    if (r > r1) r1 = r;
  }
  const out = new Float32Array(ow * oh);
  if (r1 < 0) return out;
  const rows = new Float64Array((r1 - r0 + 1) * ow);
  const xStart = xs.start,
    xIndex = xs.index,
    xWeight = xs.weight;
  for (let r = r0; r <= r1; r++) {
    const base = r * width,
      o = (r - r0) * ow;
    for (let x = 0; x < ow; x++) {
      let s = 0;
      const end = xStart[x + 1]!;
      for (let k = xStart[x]!; k < end; k++) s += xWeight[k]! * src[base + xIndex[k]!]!;
      rows[o + x] = s;
    }
  }
  const acc = new Float64Array(ow);
  const yStart = ys.start,
    yIndex = ys.index,
    yWeight = ys.weight;
  for (let y = 0; y < oh; y++) {
    acc.fill(0);
    const end = yStart[y + 1]!;
    for (let k = yStart[y]!; k < end; k++) {
      const w = yWeight[k]!,
        ro = (yIndex[k]! - r0) * ow;
      for (let x = 0; x < ow; x++) acc[x]! += w * rows[ro + x]!;
    }
    out.set(acc, y * ow);
  }
  return out;
}
