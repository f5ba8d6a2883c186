import { describe, expect, it } from 'vitest';
import { describeSketch, enclosedShape, inkOf } from './describe-sketch';

const SIZE = 200;

/** A square's outline (side 120, line 3 pixels) on white, with a gap of `gap` pixels in its top side. */
function square(gap: number, channels = 1, ground = 255): Uint8Array {
  const px = new Uint8Array(SIZE * SIZE * channels).fill(ground);
  const ink = (x: number, y: number) => {
    for (let c = 0; c < channels; c++) px[(y * SIZE + x) * channels + c] = c === 3 ? 255 : 20;
  };
  for (let t = 40; t < 160; t++)
    for (let w = 0; w < 3; w++) {
      if (Math.abs(t - 100) >= gap / 2) ink(t, 40 + w);
      ink(t, 157 + w);
      ink(40 + w, t);
      ink(157 + w, t);
    }
  return px;
}

describe('a sketch as the service reads it', () => {
  it('fills an outline, closing a gap of up to 3 % of the drawing', () => {
    for (const gap of [0, 5]) {
      const { ink } = inkOf(square(gap), SIZE, SIZE, 1);
      const shape = enclosedShape(ink, SIZE, SIZE)!;
      let area = 0;
      for (const v of shape) area += v;
      // The square with its lines: 120 × 120, give or take the gap's corner pixels.
      expect(area, `gap ${gap}`).toBeGreaterThan(0.97 * 120 * 120);
      expect(area).toBeLessThan(1.01 * 120 * 120);
    }
  });

  it('refuses an outline open wider than that, and tells why', () => {
    const d = describeSketch(square(30), SIZE, SIZE, 1);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.reason).toMatch(/do not enclose/);
  });

  it('describes a drawing on a transparent ground as on white paper', () => {
    const onWhite = describeSketch(square(0), SIZE, SIZE, 1);
    const transparent = square(0, 4, 0);
    const onNothing = describeSketch(transparent, SIZE, SIZE, 4);
    expect(onWhite.ok && onNothing.ok).toBe(true);
    if (onWhite.ok && onNothing.ok) expect(Array.from(onNothing.descriptor)).toEqual(Array.from(onWhite.descriptor));
  });
});
