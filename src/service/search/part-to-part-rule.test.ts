import { describe, expect, it } from 'vitest';
import { EXACT_FLOOR, needsExact } from './part-to-part-rule';

/** A geo-related vector carrying only what the gate reads: extents (4 · ln) and area (ln / 2). */
function geo(extents: [number, number, number], area: number): Float32Array {
  const g = new Float32Array(10);
  extents.forEach((e, k) => (g[k] = 4 * Math.log(e)));
  g[9] = Math.log(area) / 2;
  return g;
}

describe('which candidates get the exact comparison', () => {
  const part = geo([100, 60, 20], 18_000);

  it('compares parts of one size only when the descriptor finds them alike enough', () => {
    const copy = geo([101, 59, 20], 18_100);
    expect(needsExact(part, copy, EXACT_FLOOR.same + 1)).toBe(true);
    expect(needsExact(part, copy, EXACT_FLOOR.same - 1)).toBe(false);
  });

  it('compares a copy of one proportion at another size from a lower descriptor score', () => {
    const twice = geo([200, 120, 40], 72_000);
    expect(needsExact(part, twice, EXACT_FLOOR.scaled + 1)).toBe(true);
    expect(needsExact(part, twice, EXACT_FLOOR.scaled - 1)).toBe(false);
  });

  it('never compares parts of other sizes and proportions', () => {
    expect(needsExact(part, geo([100, 30, 20], 12_000), 99)).toBe(false);
  });
});
