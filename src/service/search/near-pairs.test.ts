// The pruned sweep finds exactly the pairs a plain all-pairs loop finds, on data built to make
// pruning bite: rows strung along one direction (which becomes the principal one) with
// neighbours just inside and just outside the radius along it, duplicates, and scattered rows.
import { describe, expect, it } from 'vitest';
import { prng } from '../../geometry/search/descriptors/sampling';
import { pairsWithin, TooManyPairs } from './near-pairs';

function bruteForce(data: Float32Array, n: number, dim: number, radius: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let s = 0;
      for (let k = 0; k < dim; k++) {
        const d = data[i * dim + k]! - data[j * dim + k]!;
        s += d * d;
      }
      if (s <= radius * radius) out.push(`${i}:${j}:${s}`);
    }
  }
  return out.sort();
}

const found = (data: Float32Array, n: number, dim: number, radius: number) =>
  pairsWithin(data, n, dim, radius)
    .map(({ i, j, d2 }) => (i < j ? `${i}:${j}:${d2}` : `${j}:${i}:${d2}`))
    .sort();

function stringOfRows(seed: number, dim: number, radius: number) {
  const rand = prng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const axis = Array.from({ length: dim }, gauss);
  const len = Math.hypot(...axis);
  const rows: number[][] = [];
  let t = 0;
  for (let m = 0; m < 150; m++) {
    // Steps along the axis of 0.9–1.1 radii: half the neighbours just inside, half just outside.
    t += radius * (0.9 + 0.2 * rand());
    const jitter = 0.02 * radius * rand();
    rows.push(axis.map((a) => (a / len) * t + jitter * gauss()));
    if (m % 10 === 0) rows.push([...rows.at(-1)!]); // an exact duplicate
  }
  for (let m = 0; m < 150; m++) rows.push(Array.from({ length: dim }, () => 3 * radius * gauss())); // scattered
  return { n: rows.length, data: Float32Array.from(rows.flat()) };
}

describe('pairsWithin', () => {
  it('finds exactly the pairs within the radius, with the all-pairs distances', () => {
    for (const [seed, dim, radius] of [
      [1, 24, 0.66],
      [2, 139, 0.66],
      [3, 8, 2.5],
    ] as const) {
      const { n, data } = stringOfRows(seed, dim, radius);
      for (const r of [radius, radius * 0.5, radius * 2]) {
        const want = bruteForce(data, n, dim, r);
        expect(want.length).toBeGreaterThan(0);
        expect(found(data, n, dim, r), `seed ${seed}, radius ${r}`).toEqual(want);
      }
    }
  });

  it('handles the edges: radius 0 (exact duplicates only), an infinite radius, fewer than two rows, no coordinates', () => {
    const { n, data } = stringOfRows(4, 16, 1);
    expect(found(data, n, 16, 0)).toEqual(bruteForce(data, n, 16, 0));
    expect(found(data, n, 16, 0).length).toBe(15);
    expect(found(data, 40, 16, Infinity)).toHaveLength((40 * 39) / 2);
    expect(pairsWithin(data, 1, 16, 1)).toEqual([]);
    expect(pairsWithin(new Float32Array(0), 5, 0, 1)).toHaveLength(10); // no coordinates: all at distance 0
  });

  it('refuses past maxPairs instead of collecting every pair of a radius that links nearly everything', () => {
    const { n, data } = stringOfRows(5, 16, 1);
    const all = bruteForce(data, n, 16, 1).length;
    expect(pairsWithin(data, n, 16, 1, all)).toHaveLength(all);
    expect(() => pairsWithin(data, n, 16, 1, all - 1)).toThrow(TooManyPairs);
    expect(() => pairsWithin(data, n, 16, Infinity, 1000)).toThrow(TooManyPairs);
  });
});
