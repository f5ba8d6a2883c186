// Decoding of uploaded images (PNG, JPEG, WebP) with sharp, and the query descriptor of the
// object they show (geometry/search/views/describe-image.ts).
import sharp, { type Metadata } from 'sharp';
import { describeImage, type ImageDescription } from '../../geometry/search/views/describe-image';
import { describeSketch } from '../../geometry/search/views/describe-sketch';

/** Formats the service takes, as sharp names them. */
const ACCEPTED = new Set(['png', 'jpeg', 'webp']);
/** Working size: the longer side is reduced to this before segmentation (speed; descriptors are normalised anyway). */
const WORK_SIZE = 320;
/** A drawing's: larger, so that a 1-pixel pen line of a 1,000-pixel scan stays dark enough to be ink. */
const SKETCH_WORK_SIZE = 512;
/** Longer side of the preview kept with a query image (search answers show it). */
const PREVIEW_SIZE = 160;
/** Larger images are refused before decoding (decompression bombs). */
const MAX_PIXELS = 60_000_000;

export type DecodedImage =
  | { ok: true; format: string; width: number; height: number; description: ImageDescription; preview: Uint8Array }
  | { ok: false; reason: string };

/** How the picture shows the part: a photo of it, or a drawing of it (lines on a light ground). */
export type PictureKind = 'photo' | 'sketch';

export async function decodeAndDescribe(bytes: Uint8Array, kind: PictureKind = 'photo'): Promise<DecodedImage> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata();
  } catch {
    return { ok: false, reason: 'The file is not a readable PNG, JPEG or WebP image.' };
  }
  if (!meta.format || !ACCEPTED.has(meta.format)) {
    return {
      ok: false,
      reason: `The file is ${meta.format ? `a ${meta.format.toUpperCase()} image` : 'not an image'}; send a PNG, JPEG or WebP image.`,
    };
  }
  try {
    const work = kind === 'sketch' ? SKETCH_WORK_SIZE : WORK_SIZE;
    // rotate() applies the EXIF orientation of phone photos; failOn 'error' refuses truncated files.
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
      .rotate()
      .resize(work, work, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    // From the working copy, so a hostile original is decoded once.
    const preview = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 70 })
      .toBuffer();
    return {
      ok: true,
      format: meta.format,
      width: meta.width ?? info.width,
      height: meta.height ?? info.height,
      description: (kind === 'sketch' ? describeSketch : describeImage)(pixels, info.width, info.height, info.channels),
      preview: new Uint8Array(preview),
    };
  } catch {
    return { ok: false, reason: `The ${meta.format.toUpperCase()} image is damaged or incomplete and cannot be decoded.` };
  }
}
