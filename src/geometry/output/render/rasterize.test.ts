import { describe, expect, it } from 'vitest';
import { rasterize, snap, type ScreenVertices } from './rasterize';

/** x, y (pixels), z per vertex → the rasterizer's fixed-point input. */
function toScreen(flat: ArrayLike<number>): ScreenVertices {
  const n = flat.length / 3;
  const s: ScreenVertices = { x: new Int32Array(n), y: new Int32Array(n), z: new Float64Array(n) };
  for (let v = 0; v < n; v++) {
    s.x[v] = snap(flat[v * 3]!);
    s.y[v] = snap(flat[v * 3 + 1]!);
    s.z[v] = flat[v * 3 + 2]!;
  }
  return s;
}

/** A square of `n × n` cells, each split into two triangles, with jittered inner vertices. */
function jitteredGrid(n: number, x0: number, y0: number, size: number, jitter: number, seed = 1) {
  let s = seed;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 2;
  const screen = new Float64Array((n + 1) * (n + 1) * 3);
  for (let j = 0; j <= n; j++) {
    for (let i = 0; i <= n; i++) {
      const inner = i > 0 && j > 0 && i < n && j < n;
      const v = (j * (n + 1) + i) * 3;
      screen[v] = x0 + (i * size) / n + (inner ? rand() * jitter : 0);
      screen[v + 1] = y0 + (j * size) / n + (inner ? rand() * jitter : 0);
      screen[v + 2] = 0.5;
    }
  }
  const idx: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const a = j * (n + 1) + i,
        b = a + 1,
        c = a + n + 1,
        d = c + 1;
      if ((i + j) % 2) idx.push(a, b, d, a, d, c);
      else idx.push(a, b, c, b, d, c);
    }
  }
  return { screen: toScreen(screen), indices: Uint32Array.from(idx) };
}

describe('rasterize', () => {
  it('covers every pixel centre of a tessellated square exactly once (top-left rule, no cracks)', () => {
    // Vertices on pixel centres and on 1/16 steps put many samples exactly on shared edges.
    // 8 × 8 cells take the per-pixel path for small triangles, 2 × 2 and 3 × 3 the row-span one.
    for (const [n, x0, size, jitter] of [
      [8, 10.5, 40, 0],
      [8, 10, 37, 1.1],
      [8, 7.25, 41.5, 1.2],
      [2, 10.5, 40, 0],
      [3, 7.25, 41.5, 3.1],
      [3, 10, 45, 2.9],
    ] as const) {
      const { screen, indices } = jitteredGrid(n, x0, x0, size, jitter);
      const W = 64;
      const coverage = new Uint8Array(W * W);
      // One triangle at a time into a fresh buffer, so overdraw would show as a count of 2.
      for (let t = 0; t < indices.length / 3; t++) {
        const depth = new Float32Array(W * W).fill(Infinity);
        rasterize(screen, indices.subarray(t * 3, t * 3 + 3), W, W, depth, null);
        for (let i = 0; i < depth.length; i++) if (depth[i] !== Infinity) coverage[i]!++;
      }
      let expected = 0;
      for (let y = 0; y < W; y++) {
        for (let x = 0; x < W; x++) {
          const cx = x + 0.5,
            cy = y + 0.5;
          // The outer square's own edges: left/top inclusive, right/bottom exclusive.
          const inside = cx >= x0 && cx < x0 + size && cy >= x0 && cy < x0 + size;
          if (inside) expected++;
          expect(coverage[y * W + x], `pixel ${x},${y}`).toBe(inside ? 1 : 0);
        }
      }
      expect(expected).toBeGreaterThan(1000);
    }
  });

  it('keeps the nearest triangle and interpolates depth linearly', () => {
    const W = 32;
    // A far square (depth 0.8) and a near slanted triangle whose depth runs 0.1 → 0.3 along x.
    const screen = toScreen([0, 0, 0.8, 32, 0, 0.8, 32, 32, 0.8, 0, 32, 0.8, 4, 4, 0.1, 28, 4, 0.3, 4, 28, 0.1]);
    const indices = Uint32Array.from([0, 1, 2, 0, 2, 3, 4, 5, 6]);
    const depth = new Float32Array(W * W).fill(Infinity);
    const ids = new Int32Array(W * W).fill(-1);
    rasterize(screen, indices, W, W, depth, ids);
    expect(ids[10 * W + 10]).toBe(2);
    expect(depth[10 * W + 10]).toBeCloseTo(0.1 + (0.2 * (10.5 - 4)) / 24, 5);
    expect(ids[28 * W + 20]).toBe(1);
    expect(depth[28 * W + 20]).toBeCloseTo(0.8, 6);
  });

  it('culls back faces only when asked', () => {
    const W = 16;
    const screen = toScreen([2, 2, 0.5, 14, 2, 0.5, 2, 14, 0.5]);
    const front = Uint32Array.from([0, 2, 1]); // counter-clockwise as displayed
    const back = Uint32Array.from([0, 1, 2]);
    const count = (idx: Uint32Array, cull: 'none' | 'back') => {
      const d = new Float32Array(W * W).fill(Infinity);
      rasterize(screen, idx, W, W, d, null, cull);
      return d.filter((v) => v !== Infinity).length;
    };
    expect(count(front, 'back')).toBeGreaterThan(50);
    expect(count(back, 'back')).toBe(0);
    expect(count(back, 'none')).toBe(count(front, 'none'));
  });
});
