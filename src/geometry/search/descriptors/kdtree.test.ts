import { describe, expect, it } from 'vitest';
import { KdTree } from './kdtree';
import { prng } from './sampling';

/** Points on a few planes and a cylinder (like surface samples: flat, clustered, with exact ties on a grid). */
function cloud(n: number, seed: number): Float64Array {
  const r = prng(seed);
  const p = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const kind = i % 3;
    const u = r() * 40,
      v = r() * 40;
    const xyz = kind === 0 ? [u, v, 0] : kind === 1 ? [Math.round(u), 5, Math.round(v)] : [10 * Math.cos(u / 6), 10 * Math.sin(u / 6), v];
    p.set(xyz, i * 3);
  }
  return p;
}

const d2 = (p: Float64Array, i: number, x: number, y: number, z: number) =>
  (p[i * 3]! - x) ** 2 + (p[i * 3 + 1]! - y) ** 2 + (p[i * 3 + 2]! - z) ** 2;

describe('kd-tree queries', () => {
  const points = cloud(3000, 5);
  const tree = new KdTree(points);
  const r = prng(9);
  const queries = Array.from({ length: 400 }, () => [r() * 50 - 5, r() * 50 - 5, r() * 10 - 5] as const);

  it('finds the nearest point as a full scan does, within the distance asked', () => {
    const out = new Float64Array(1);
    for (const [x, y, z] of queries) {
      let best = Infinity;
      for (let i = 0; i < 3000; i++) best = Math.min(best, d2(points, i, x, y, z));
      const j = tree.nearest(x, y, z, Infinity, out);
      expect(d2(points, j, x, y, z)).toBe(best);
      expect(out[0]).toBe(best);
      const gated = tree.nearest(x, y, z, Math.sqrt(best) * 0.99);
      expect(gated).toBe(-1);
    }
  });

  it('visits every point within the radius once, and stops when told', () => {
    for (const [x, y, z] of queries.slice(0, 100)) {
      const expected = new Set<number>();
      for (let i = 0; i < 3000; i++) if (d2(points, i, x, y, z) <= 9) expected.add(i);
      const seen: number[] = [];
      tree.within(x, y, z, 3, (i, dd) => {
        expect(dd).toBe(d2(points, i, x, y, z));
        seen.push(i);
      });
      expect(seen.length).toBe(expected.size);
      expect(new Set(seen)).toEqual(expected);
      let calls = 0;
      tree.within(x, y, z, 3, () => ++calls === 2);
      expect(calls).toBe(Math.min(2, expected.size));
    }
  });
});
