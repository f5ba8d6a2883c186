// The query side of sketch search: a drawing of a part — dark lines on a light ground, drawn on
// the sketch page's canvas or a scan or photo of paper — → the view descriptor of the object it
// outlines, comparable with a model's rendered views (model-views.ts) as a photo is. The outline
// encloses the silhouette; lines inside it are the part's edges, as creases are in a rendered
// view. Hand drawing leaves gaps, so the lines are thickened before the inside is found: a gap up
// to GAP_SHARE of the drawing's size still closes.
import type { ImageDescription } from './describe-image';
import { luminance, normaliseView } from './image-view';
import { polarSignature } from './polar-signature';
import { components, dilate, erode, largestComponent } from './segment';
import { describeView } from './shape-features';

/** A gap in the outline up to this share of the image's longer side still encloses the shape. */
export const GAP_SHARE = 0.03;
/** Ink: darker than this share of the paper's luminance (the image's median). */
const INK_SHARE = 0.6;

/** Paper darker than this (luminance 0–255) is not a drawing's light ground. */
const DARKEST_PAPER = 96;

/**
 * Ink pixels (1) of a drawing: clearly darker than the paper, and the paper's luminance; a
 * transparent ground counts as white paper.
 */
export function inkOf(
  pixels: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  channels: number,
): { ink: Uint8Array; paper: number } {
  const n = width * height;
  const lum = luminance(pixels, channels);
  if (channels === 4) for (let i = 0; i < n; i++) if (pixels[i * 4 + 3]! < 128) lum[i] = 255;
  // The paper is most of a drawing: its luminance is the median (a histogram: 8-bit values).
  const histogram = new Uint32Array(256);
  for (let i = 0; i < n; i++) histogram[Math.min(255, Math.max(0, Math.round(lum[i]!)))]!++;
  let paper = 0;
  for (let v = 0, seen = 0; v < 256; v++)
    if ((seen += histogram[v]!) >= n / 2) {
      paper = v;
      break;
    }
  const ink = new Uint8Array(n);
  const limit = Math.max(paper * INK_SHARE, 8);
  for (let i = 0; i < n; i++) ink[i] = lum[i]! < limit ? 1 : 0;
  return { ink, paper };
}

/** The shape a drawing's lines enclose (lines included), or null when they enclose nothing. */
export function enclosedShape(ink: Uint8Array, width: number, height: number): Uint8Array | null {
  const reach = Math.max(1, Math.round((GAP_SHARE * Math.max(width, height)) / 2));
  let closed = ink;
  for (let k = 0; k < reach; k++) closed = dilate(closed, width, height);
  // Paper reached from the image border is outside; every other pixel is the shape.
  const { labels, touchesBorder } = components(closed, width, height, 0);
  let shape: Uint8Array = new Uint8Array(ink.length);
  for (let i = 0; i < ink.length; i++) shape[i] = labels[i]! >= 0 && touchesBorder[labels[i]!] ? 0 : 1;
  // Back to the lines' own extent, then the largest piece (stray marks are left out).
  for (let k = 0; k < reach; k++) shape = erode(shape, width, height);
  shape = largestComponent(shape, width, height);
  let area = 0,
    inkInside = 0;
  for (let i = 0; i < shape.length; i++) {
    area += shape[i]!;
    if (shape[i] && ink[i]) inkInside++;
  }
  // Lines alone (nothing enclosed between them) are not an outline.
  return area > 0 && area >= 1.6 * inkInside ? shape : null;
}

/** Interleaved 8-bit pixels (grey, RGB or RGBA) of a drawing → the descriptor of the part it outlines. */
export function describeSketch(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: number): ImageDescription {
  const { ink, paper } = inkOf(pixels, width, height, channels);
  if (paper < DARKEST_PAPER)
    return { ok: false, reason: 'The image is dark all over: draw dark lines on a light ground (or scan the drawing on white paper).' };
  let inkCount = 0;
  for (let i = 0; i < ink.length; i++) inkCount += ink[i]!;
  if (inkCount < ink.length * 0.001) return { ok: false, reason: 'The drawing is empty: draw the outline of the part in dark lines.' };
  if (inkCount > ink.length * 0.5)
    return { ok: false, reason: 'Most of the image is dark: draw dark lines on a light ground (or scan the drawing on white paper).' };
  const shape = enclosedShape(ink, width, height);
  if (!shape)
    return {
      ok: false,
      reason: 'The lines do not enclose a shape: draw the part’s whole outline, its ends joined, then the edges inside it.',
    };
  let area = 0;
  for (let i = 0; i < shape.length; i++) area += shape[i]!;
  // Inner lines as dark strokes on a light part, as a rendered view shows creases.
  const lum = new Float32Array(ink.length);
  for (let i = 0; i < lum.length; i++) lum[i] = ink[i] ? 40 : 200;
  const view = normaliseView(shape, lum, width, height);
  const descriptor = view && describeView(view);
  const signature = view && polarSignature(view);
  if (!descriptor || !signature) return { ok: false, reason: 'The drawing is too small: draw larger.' };
  return { ok: true, descriptor, signature, coverage: area / shape.length };
}
