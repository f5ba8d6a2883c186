import { describe, expect, it } from 'vitest';
import { IMAGE_MAX_BYTES } from '../../contract/images';
import { checkImage, claimedImageType, imageAccept, uploadName } from './image-checks';

describe('local image checks', () => {
  it('takes PNG, JPEG and WebP up to 10 MiB', () => {
    expect(checkImage({ name: 'a.png', type: 'image/png', size: 1000 })).toBeNull();
    expect(checkImage({ name: 'a.jpg', type: 'image/jpeg', size: IMAGE_MAX_BYTES })).toBeNull();
    expect(checkImage({ name: 'a.webp', type: 'image/webp', size: 5 })).toBeNull();
    expect(imageAccept).toBe('image/png,image/jpeg,image/webp');
  });

  it('says why another type is refused', () => {
    expect(checkImage({ name: 'a.gif', type: 'image/gif', size: 10 })).toBe('Not a PNG, JPEG or WebP image (this file is image/gif).');
    expect(checkImage({ name: 'part.stl', type: '', size: 10 })).toBe('Not a PNG, JPEG or WebP image (this is a .stl file).');
    expect(checkImage({ name: 'noext', type: '', size: 10 })).toBe('Not a PNG, JPEG or WebP image.');
  });

  it('falls back to the extension when the browser gives no type', () => {
    expect(claimedImageType({ name: 'Photo.JPEG', type: '', size: 1 })).toBe('image/jpeg');
    expect(claimedImageType({ name: 'x.webp', type: 'application/octet-stream', size: 1 })).toBe('image/webp');
    // A type the browser did recognise wins over the name.
    expect(claimedImageType({ name: 'x.png', type: 'text/plain', size: 1 })).toBeNull();
  });

  it('refuses empty and too large files with the sizes in words', () => {
    expect(checkImage({ name: 'a.png', type: 'image/png', size: 0 })).toBe('The file is empty.');
    expect(checkImage({ name: 'a.png', type: 'image/png', size: IMAGE_MAX_BYTES + 1 })).toBe(
      'Too large: 10.1 MiB. Images can be at most 10 MiB.',
    );
    expect(checkImage({ name: 'a.png', type: 'image/png', size: 12.5 * 1024 * 1024 })).toBe(
      'Too large: 12.5 MiB. Images can be at most 10 MiB.',
    );
  });

  it('names pasted images and keeps names within 255 characters', () => {
    expect(uploadName({ name: '', type: 'image/png', size: 1 })).toBe('pasted-image.png');
    expect(uploadName({ name: '', type: 'image/jpeg', size: 1 })).toBe('pasted-image.jpg');
    // The service tells the type by the extension: one that does not fit the type is added.
    expect(uploadName({ name: 'IMG_0042', type: 'image/jpeg', size: 1 })).toBe('IMG_0042.jpg');
    expect(uploadName({ name: 'shot.JPEG', type: 'image/jpeg', size: 1 })).toBe('shot.JPEG');
    expect(uploadName({ name: 'photo.png', type: 'image/webp', size: 1 })).toBe('photo.png.webp');
    const long = uploadName({ name: `${'a'.repeat(300)}.webp`, type: 'image/webp', size: 1 });
    expect(long.length).toBeLessThanOrEqual(255);
    expect(long.endsWith('.webp')).toBe(true);
  });
});
