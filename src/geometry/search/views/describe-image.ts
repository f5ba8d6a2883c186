// The query side of image search: decoded pixels of a photo → the object's view descriptor.
import { luminance, normaliseView } from './image-view';
import { polarSignature } from './polar-signature';
import { segmentObject } from './segment';
import { describeView } from './shape-features';

export type ImageDescription =
  { ok: true; descriptor: Float32Array; signature: Uint8Array; coverage: number } | { ok: false; reason: string };

/** Interleaved 8-bit pixels (RGB or RGBA) → the descriptor of the object they show. */
export function describeImage(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: number): ImageDescription {
  const seg = segmentObject(pixels, width, height, channels);
  if (seg.coverage < 0.002)
    return { ok: false, reason: 'No object stands out from the background; photograph the object alone on a plain background.' };
  if (seg.coverage > 0.97) return { ok: false, reason: 'The object fills the whole image; leave some plain background around it.' };
  const view = normaliseView(seg.mask, luminance(pixels, channels), width, height);
  const descriptor = view && describeView(view);
  const signature = view && polarSignature(view);
  if (!descriptor || !signature) return { ok: false, reason: 'The object is too small in the image; move closer.' };
  return { ok: true, descriptor, signature, coverage: seg.coverage };
}
