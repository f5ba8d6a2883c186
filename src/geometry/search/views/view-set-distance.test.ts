import { describe, expect, it } from 'vitest';
import { prng } from '../descriptors/sampling';
import { VIEW_STEP } from './view-index';
import { viewSetDistance, type ViewSet } from './view-set-distance';

/** The light field comparison written plainly: every taking view's closest view, averaged both ways. */
function plainDistance(a: ViewSet, b: ViewSet, step: number): number {
  const directed = (x: ViewSet, y: ViewSet) => {
    let sum = 0,
      n = 0;
    for (let i = 0; i < x.count; i += step, n++) {
      let best = Infinity;
      for (let j = 0; j < y.count; j += step) {
        let d = 0;
        for (let k = 0; k < x.dim; k++) d += Math.abs(x.data[i * x.dim + k]! - y.data[j * y.dim + k]!) * VIEW_STEP;
        best = Math.min(best, d);
      }
      sum += best;
    }
    return sum / n;
  };
  return (directed(a, b) + directed(b, a)) / 2;
}

function randomSet(random: () => number, count: number, dim: number, spread: number): ViewSet {
  const data = new Uint8Array(count * dim);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(random() * spread);
  return { count, dim, data };
}

describe('view-set distance', () => {
  it('equals the plain comparison (the early stops and the sum bound skip only views that cannot be closest)', () => {
    const random = prng(5);
    // Odd counts and dims (a tail after the 8-wide loop); a narrow spread makes ties and near sums.
    for (const [count, dim, spread] of [
      [84, 87, 256],
      [83, 13, 4],
      [7, 5, 2],
      [84, 87, 40],
    ] as const)
      for (const step of [1, 2, 3]) {
        const a = randomSet(random, count, dim, spread);
        const b = randomSet(random, count - 2, dim, spread);
        expect(viewSetDistance(a, b, step)).toBeCloseTo(plainDistance(a, b, step), 9);
        expect(viewSetDistance(a, b, step)).toBeCloseTo(viewSetDistance(b, a, step), 12);
      }
  });

  it('is 0 for identical views, and Infinity when one side has none or they are not comparable', () => {
    const a = randomSet(prng(6), 20, 9, 256);
    expect(viewSetDistance(a, { ...a, data: a.data.slice() })).toBe(0);
    expect(viewSetDistance(a, { count: 0, dim: 9, data: new Uint8Array() })).toBe(Infinity);
    expect(viewSetDistance(a, randomSet(prng(7), 20, 8, 256))).toBe(Infinity);
  });
});
