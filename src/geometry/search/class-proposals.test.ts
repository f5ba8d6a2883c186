import { describe, expect, it } from 'vitest';
import { proposeClasses } from './class-proposals';

/** Rows at the given 2-D points (the descriptor distance is plain L2; a score of 50 is about 22 apart). */
const set = (points: [string, number, number][]) => ({
  ids: points.map((p) => p[0]),
  dim: 2,
  data: new Float32Array(points.flatMap((p) => [p[1], p[2]])),
});

describe('classes proposed from examples', () => {
  it('takes the value the nearest examples agree on, confident when they agree and one is close', () => {
    const vectors = set([
      ['bolt-1', 0, 0],
      ['bolt-2', 0.1, 0],
      ['bolt-3', 0, 0.1],
      ['nut-1', 60, 60],
      ['nut-2', 60.1, 60],
      ['q-near-bolts', 0.05, 0.05],
      ['q-between', 30, 30],
    ]);
    const labels = new Map([
      ['bolt-1', 'Bolt'],
      ['bolt-2', 'Bolt'],
      ['bolt-3', 'Bolt'],
      ['nut-1', 'Nut'],
      ['nut-2', 'Nut'],
    ]);
    const p = proposeClasses(vectors, labels);
    expect([...p.keys()].sort()).toEqual(['q-between', 'q-near-bolts']);
    const near = p.get('q-near-bolts')!;
    expect(near.value).toBe('Bolt');
    expect(near.neighbours.map((n) => n.value)).toEqual(['Bolt', 'Bolt', 'Bolt', 'Nut', 'Nut']);
    expect(near.confidence).toBeGreaterThan(0.9);
    // Half-way between two classes: as near to one as to the other, a confidence of one half.
    expect(p.get('q-between')!.confidence).toBeCloseTo(0.5, 2);
  });

  it('proposes nothing without examples, and never for a labelled model', () => {
    const vectors = set([
      ['a', 0, 0],
      ['b', 1, 1],
    ]);
    expect(proposeClasses(vectors, new Map()).size).toBe(0);
    expect([...proposeClasses(vectors, new Map([['a', 'X']])).keys()]).toEqual(['b']);
  });
});
