import { extensionOf } from '../../contract/file-types';
import { IMAGE_MAX_BYTES, imageTypes } from '../../contract/images';
import { formatBytes } from '../../ui/format-bytes';

/** MIME types the service takes for image search: PNG, JPEG and WebP. */
export const acceptedImageTypes = [...new Set(Object.values(imageTypes))];
/** For `<input accept>`: the picker offers only images the service takes. */
export const imageAccept = acceptedImageTypes.join(',');

export interface ImageFileFacts {
  name: string;
  /** MIME type as the browser guessed it; may be empty. */
  type: string;
  size: number;
}

/**
 * The image type a file claims. Browsers leave the MIME type empty (or generic) for files they do
 * not recognise; then the extension decides. Whether the bytes really are that image the service
 * checks when they arrive.
 */
export function claimedImageType(file: ImageFileFacts): string | null {
  const mime = file.type.toLowerCase();
  if ((acceptedImageTypes as string[]).includes(mime)) return mime;
  if (mime && mime !== 'application/octet-stream') return null;
  return (imageTypes as Record<string, string>)[extensionOf(file.name)] ?? null;
}

/** Why a file cannot go into a search, checked before anything is sent; null when it can. */
export function checkImage(file: ImageFileFacts): string | null {
  if (!claimedImageType(file)) {
    const what = file.type ? ` (this file is ${file.type})` : extensionOf(file.name) ? ` (this is a .${extensionOf(file.name)} file)` : '';
    return `Not a PNG, JPEG or WebP image${what}.`;
  }
  if (file.size === 0) return 'The file is empty.';
  if (file.size > IMAGE_MAX_BYTES)
    return `Too large: ${formatBytes(file.size, 'up')}. Images can be at most ${formatBytes(IMAGE_MAX_BYTES)}.`;
  return null;
}

/**
 * The name sent with the image. The service tells the type by the name's extension, so a name
 * without one that fits the file's type gets it (pasted images often have no name at all); the
 * contract allows 1..255 characters.
 */
export function uploadName(file: ImageFileFacts): string {
  const type = claimedImageType(file) ?? 'image/png';
  const ext = type === 'image/jpeg' ? 'jpg' : type.slice('image/'.length);
  const trimmed = file.name.trim();
  const base = trimmed || 'pasted-image';
  const fits = (imageTypes as Record<string, string>)[extensionOf(trimmed)] === type;
  const name = fits ? base : `${base}.${ext}`;
  if (name.length <= 255) return name;
  const own = fits ? extensionOf(name) : ext;
  return `${name.slice(0, 250 - own.length)}.${own}`;
}
