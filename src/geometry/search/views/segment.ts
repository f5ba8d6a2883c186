// Separates one object from a plain, possibly lightly graded background (the image guidance:
// object alone, plain background). The background is modelled from the image border as a smooth
// quadratic colour field; pixels far from it are the object; the largest connected region wins.

export interface Segmentation {
  /** 1 = object. */
  mask: Uint8Array;
  /** Share of the image the object covers. */
  coverage: number;
  /** How the mask was found. */
  method: 'alpha' | 'background';
}

/**
 * The object's mask in interleaved 8-bit pixels (`channels` 3 or 4). A transparent background
 * (alpha) is used as is; otherwise the border's colour model decides.
 */
export function segmentObject(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: number): Segmentation {
  const n = width * height;
  if (channels === 4) {
    let transparent = 0;
    for (let i = 0; i < n; i++) if (pixels[i * 4 + 3]! < 128) transparent++;
    if (transparent > n * 0.01 && transparent < n * 0.99) {
      const mask = new Uint8Array(n);
      for (let i = 0; i < n; i++) mask[i] = pixels[i * 4 + 3]! >= 128 ? 1 : 0;
      return finish(mask, width, height, 'alpha');
    }
  }
  const band = Math.max(2, Math.round(Math.min(width, height) * 0.02));
  const border: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (x >= band && y >= band && x < width - band && y < height - band) continue;
      border.push(y * width + x);
    }
  }
  // Two rounds: fit, drop border pixels far off the fit (the object may touch the border), fit again.
  let sample = border;
  let fit = fitField(pixels, channels, width, height, sample);
  for (let round = 0; round < 2; round++) {
    const res = sample.map((i) => distance(pixels, channels, fit, i, width, height));
    const sigma = 1.4826 * median(res) + 0.5;
    const kept = sample.filter((_, k) => res[k]! <= 3 * sigma + 4);
    if (kept.length < 16 || kept.length === sample.length) break;
    sample = kept;
    fit = fitField(pixels, channels, width, height, sample);
  }
  const res = sample.map((i) => distance(pixels, channels, fit, i, width, height));
  const sigma = 1.4826 * median(res);
  const threshold = Math.max(14, 4.5 * sigma + 6);
  let mask: Uint8Array = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = distance(pixels, channels, fit, i, width, height) > threshold ? 1 : 0;
  // Speckles of noise off, small gaps (faces close to the background colour) closed.
  mask = dilate(erode(mask, width, height), width, height);
  mask = erode(dilate(mask, width, height), width, height);
  return finish(mask, width, height, 'background');
}

function finish(mask: Uint8Array, width: number, height: number, method: Segmentation['method']): Segmentation {
  const largest = largestComponent(mask, width, height);
  fillSmallHoles(largest, width, height);
  let count = 0;
  for (let i = 0; i < largest.length; i++) count += largest[i]!;
  return { mask: largest, coverage: count / largest.length, method };
}

/** Per channel: c(x, y) = a + bx + cy + dx² + ey² + fxy, least squares over `sample`. */
type Field = Float64Array[];

function terms(x: number, y: number, width: number, height: number): number[] {
  const u = x / width - 0.5,
    v = y / height - 0.5;
  return [1, u, v, u * u, v * v, u * v];
}

function fitField(pixels: Uint8Array | Uint8ClampedArray, channels: number, width: number, height: number, sample: number[]): Field {
  const k = 6;
  const ata = Array.from({ length: k }, () => new Float64Array(k));
  const atb = Array.from({ length: 3 }, () => new Float64Array(k));
  for (const i of sample) {
    const t = terms(i % width, Math.floor(i / width), width, height);
    for (let r = 0; r < k; r++) {
      for (let c = 0; c < k; c++) ata[r]![c]! += t[r]! * t[c]!;
      for (let ch = 0; ch < 3; ch++) atb[ch]![r]! += t[r]! * pixels[i * channels + ch]!;
    }
  }
  // A little ridge keeps the quadratic terms tame when the border says little about them.
  for (let r = 1; r < k; r++) ata[r]![r]! += sample.length * 1e-4;
  return atb.map((b) =>
    solve(
      ata.map((row) => Float64Array.from(row)),
      Float64Array.from(b),
    ),
  );
}

function solve(a: Float64Array[], b: Float64Array): Float64Array {
  const k = b.length;
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    [a[c], a[p]] = [a[p]!, a[c]!];
    [b[c], b[p]] = [b[p]!, b[c]!];
    const d = a[c]![c]! || 1e-12;
    for (let r = c + 1; r < k; r++) {
      const f = a[r]![c]! / d;
      for (let cc = c; cc < k; cc++) a[r]![cc]! -= f * a[c]![cc]!;
      b[r]! -= f * b[c]!;
    }
  }
  const x = new Float64Array(k);
  for (let r = k - 1; r >= 0; r--) {
    let s = b[r]!;
    for (let c = r + 1; c < k; c++) s -= a[r]![c]! * x[c]!;
    x[r] = s / (a[r]![r]! || 1e-12);
  }
  return x;
}

function distance(pixels: Uint8Array | Uint8ClampedArray, channels: number, fit: Field, i: number, width: number, height: number): number {
  const t = terms(i % width, Math.floor(i / width), width, height);
  let d = 0;
  for (let ch = 0; ch < 3; ch++) {
    const f = fit[ch]!;
    let e = 0;
    for (let k = 0; k < 6; k++) e += f[k]! * t[k]!;
    const diff = pixels[i * channels + ch]! - e;
    d += diff * diff;
  }
  return Math.sqrt(d);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = Float64Array.from(values).sort();
  return s[Math.floor(s.length / 2)]!;
}

export function erode(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      out[i] =
        mask[i]! &&
        (x === 0 || mask[i - 1]!) &&
        (x === width - 1 || mask[i + 1]!) &&
        (y === 0 || mask[i - width]!) &&
        (y === height - 1 || mask[i + width]!)
          ? 1
          : 0;
    }
  }
  return out;
}

export function dilate(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      out[i] =
        mask[i]! ||
        (x > 0 && mask[i - 1]!) ||
        (x < width - 1 && mask[i + 1]!) ||
        (y > 0 && mask[i - width]!) ||
        (y < height - 1 && mask[i + width]!)
          ? 1
          : 0;
    }
  }
  return out;
}

/** Labels 4-connected regions of value `value`; returns labels (−1 elsewhere) and region sizes. */
export function components(
  mask: Uint8Array,
  width: number,
  height: number,
  value: number,
): { labels: Int32Array; sizes: number[]; touchesBorder: boolean[] } {
  const labels = new Int32Array(mask.length).fill(-1);
  const sizes: number[] = [];
  const touchesBorder: boolean[] = [];
  const stack = new Int32Array(mask.length);
  for (let s = 0; s < mask.length; s++) {
    if (mask[s] !== value || labels[s] !== -1) continue;
    const label = sizes.length;
    let size = 0,
      border = false,
      top = 0;
    stack[top++] = s;
    labels[s] = label;
    while (top > 0) {
      const i = stack[--top]!;
      size++;
      const x = i % width,
        y = (i - x) / width;
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1) border = true;
      const push = (j: number) => {
        if (mask[j] === value && labels[j] === -1) {
          labels[j] = label;
          stack[top++] = j;
        }
      };
      if (x > 0) push(i - 1);
      if (x < width - 1) push(i + 1);
      if (y > 0) push(i - width);
      if (y < height - 1) push(i + width);
    }
    sizes.push(size);
    touchesBorder.push(border);
  }
  return { labels, sizes, touchesBorder };
}

export function largestComponent(mask: Uint8Array, width: number, height: number): Uint8Array {
  const { labels, sizes } = components(mask, width, height, 1);
  let best = -1;
  for (let k = 0; k < sizes.length; k++) if (best < 0 || sizes[k]! > sizes[best]!) best = k;
  const out = new Uint8Array(mask.length);
  if (best < 0) return out;
  for (let i = 0; i < mask.length; i++) if (labels[i] === best) out[i] = 1;
  return out;
}

/** Background islands inside the object below 0.5% of its area are taken as misread object pixels. */
function fillSmallHoles(mask: Uint8Array, width: number, height: number): void {
  let area = 0;
  for (let i = 0; i < mask.length; i++) area += mask[i]!;
  const { labels, sizes, touchesBorder } = components(mask, width, height, 0);
  const limit = area * 0.005;
  for (let i = 0; i < mask.length; i++) {
    const l = labels[i]!;
    if (l >= 0 && !touchesBorder[l] && sizes[l]! < limit) mask[i] = 1;
  }
}
