import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { bracket, plateWithHoles } from '../testing/fixtures';
import { creaseNormals } from '../mesh/normals';
import { downsample, renderThumbnail, resample, type RawImage } from './thumbnail';

const toPng = (img: RawImage) =>
  sharp(Buffer.from(img.rgba.buffer, img.rgba.byteOffset, img.rgba.byteLength), {
    raw: { width: img.width, height: img.height, channels: 4 },
  }).png();

describe('renderThumbnail', () => {
  it('draws the bracket: foreground and background, antialiased, shaded, encodes to PNG', async () => {
    const part = await bracket(); // modelled y-up: the L stands on its horizontal leg
    const img = renderThumbnail(part.mesh, 256, { up: 'y' });
    expect(img.width).toBe(256);
    expect(img.height).toBe(256);
    expect(img.rgba.length).toBe(256 * 256 * 4);

    let opaque = 0,
      clear = 0,
      partial = 0,
      fringeMin = 255;
    const levels = new Set<number>();
    let sumR = 0,
      sumB = 0;
    for (let i = 0; i < img.rgba.length; i += 4) {
      const a = img.rgba[i + 3]!;
      if (a === 0) clear++;
      else if (a === 255) {
        opaque++;
        levels.add(img.rgba[i + 2]! >> 3);
        sumR += img.rgba[i]!;
        sumB += img.rgba[i + 2]!;
      } else {
        partial++;
        fringeMin = Math.min(fringeMin, Math.max(img.rgba[i]!, img.rgba[i + 1]!, img.rgba[i + 2]!));
      }
    }
    const n = 256 * 256;
    expect(opaque / n).toBeGreaterThan(0.15);
    expect(clear / n).toBeGreaterThan(0.15);
    expect(partial).toBeGreaterThan(200); // antialiased silhouette
    expect(fringeMin).toBeGreaterThan(40); // premultiplied downsampling: no dark halo
    expect(levels.size).toBeGreaterThan(8); // faces shaded differently, not a flat silhouette
    expect(sumB).toBeGreaterThan(sumR); // grey-blue

    const png = await toPng(img).toBuffer();
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 256, height: 256, channels: 4, hasAlpha: true });
    const back = await sharp(png).raw().toBuffer();
    expect(new Uint8Array(back)).toEqual(new Uint8Array(img.rgba.buffer, img.rgba.byteOffset, img.rgba.byteLength));
    await toPng(img).toFile('/tmp/thumb-bracket.png');
    console.log(`thumbnail: /tmp/thumb-bracket.png, ${png.byteLength} B PNG`);
  });

  it('fills a light background when asked, and reuses precomputed normals', async () => {
    const part = await plateWithHoles();
    const light = renderThumbnail(part.mesh, 128, { background: [246, 247, 249, 255] });
    for (let i = 3; i < light.rgba.length; i += 4) expect(light.rgba[i]).toBe(255);
    expect([light.rgba[0], light.rgba[1], light.rgba[2]]).toEqual([246, 247, 249]);
    const shared = renderThumbnail(creaseNormals(part.mesh), 128, { background: [246, 247, 249, 255] });
    expect(shared.rgba).toEqual(light.rgba);
  });

  it('times a 50k-triangle part (printed)', async () => {
    const part = await plateWithHoles({ holes: [8, 6], segments: 256 });
    renderThumbnail(part.mesh);
    const normals = creaseNormals(part.mesh);
    let full = Infinity,
      shared = Infinity;
    for (let i = 0; i < 3; i++) {
      let t0 = performance.now();
      renderThumbnail(part.mesh);
      full = Math.min(full, performance.now() - t0);
      t0 = performance.now();
      renderThumbnail(normals);
      shared = Math.min(shared, performance.now() - t0);
    }
    console.log(
      `thumbnail 256² (320² supersampled), ${part.mesh.indices.length / 3} triangles: ${full.toFixed(0)} ms, ${shared.toFixed(0)} ms with normals shared with the viewer file`,
    );
  });
});

describe('downsample', () => {
  it('averages premultiplied colour: half-covered white over transparent stays white, half alpha', () => {
    const src = new Uint8ClampedArray([255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0]);
    expect(Array.from(downsample(src, 2, 2, 2))).toEqual([255, 255, 255, 128]);
  });
});

describe('resample', () => {
  it('area-filters by a fractional factor (3 → 2): partly covered source pixels count by their share', () => {
    // 3×3: left column opaque white, the rest transparent.
    const src = new Uint8ClampedArray(3 * 3 * 4);
    for (let y = 0; y < 3; y++) src.set([255, 255, 255, 255], y * 3 * 4);
    const out = resample(src, 3, 3, 2, 2);
    // left output pixels: 1 of 1.5 columns covered → alpha 2/3, colour stays white; right: nothing
    expect(Array.from(out)).toEqual([255, 255, 255, 170, 0, 0, 0, 0, 255, 255, 255, 170, 0, 0, 0, 0]);
  });
});
