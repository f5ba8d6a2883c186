// Photo-like query images of a part, encoded as an upload would be: for the image benchmark
// (src/bench/image.ts) and the service tests. Not a production path.
import sharp from 'sharp';
import { randomRotation } from '../../geometry/testing/benchmark-dataset';
import { prng } from '../../geometry/search/descriptors/sampling';
import type { Mesh } from '../../geometry/mesh/mesh';
import { randomLighting, syntheticPhoto, type Photo } from '../../geometry/testing/synthetic-photo';

/**
 * One photo-like image of `mesh` from a random direction in perspective, random colour, light
 * rig and background (plain or graded), sometimes noisy or blurred, as JPEG, PNG or WebP.
 * Deterministic for a seed.
 */
export async function benchPhoto(mesh: Mesh, seed: number): Promise<{ bytes: Uint8Array; name: string; photo: Photo }> {
  const rand = prng(seed);
  const light = rand() < 0.7;
  const background: [number, number, number] = light
    ? ([200 + rand() * 55, 200 + rand() * 55, 200 + rand() * 55].map(Math.round) as [number, number, number])
    : ([20 + rand() * 60, 20 + rand() * 60, 20 + rand() * 60].map(Math.round) as [number, number, number]);
  const graded = rand() < 0.5;
  const color: [number, number, number] = [40 + rand() * 215, 40 + rand() * 215, 40 + rand() * 215].map(Math.round) as [
    number,
    number,
    number,
  ];
  const noisy = rand() < 0.35;
  const blurred = rand() < 0.35;
  const photo = syntheticPhoto(mesh, {
    width: 400,
    height: 300,
    rotation: randomRotation(rand),
    distance: 3 + rand() * 4,
    color,
    background,
    gradient: graded ? [(rand() * 2 - 1) * 30, (rand() * 2 - 1) * 30] : [0, 0],
    size: 0.45 + rand() * 0.4,
    offset: [(rand() - 0.5) * 0.15, (rand() - 0.5) * 0.1],
    lighting: randomLighting(rand),
    shading: rand() < 0.5 ? 'flat' : 'smooth',
    noise: noisy ? 3 + rand() * 5 : 0,
    rand,
  });
  let img = sharp(Buffer.from(photo.rgb), { raw: { width: photo.width, height: photo.height, channels: 3 } });
  if (blurred) img = img.blur(0.6 + rand() * 0.8);
  const format = rand();
  const [bytes, name] =
    format < 0.6
      ? [await img.jpeg({ quality: 80 + Math.round(rand() * 12) }).toBuffer(), 'photo.jpg']
      : format < 0.85
        ? [await img.png().toBuffer(), 'photo.png']
        : [await img.webp({ quality: 85 }).toBuffer(), 'photo.webp'];
  return { bytes: new Uint8Array(bytes), name, photo };
}
