import { describe, expect, it } from 'vitest';
import type { AssemblyTreeNode } from '../../contract/models';
import { withQuantities } from './assembly-rows';

const node = (modelId: string | null, name: string, occurrences?: number): AssemblyTreeNode => ({ type: 'part', modelId, name, transform: [modelId === null ? 0 : 1], ...(occurrences ? { occurrences } : {}) });

describe('assembly rows', () => {
  it('shows a part placed several times once, with its quantity, where it first appears', () => {
    const rows = withQuantities([node('a', 'bolt.stp'), node('b', 'plate.stp'), node('a', 'bolt.stp'), node('a', 'bolt.stp', 2), node(null, 'lost.stp'), node(null, 'lost.stp')]);
    expect(rows.map((r) => [r.name, r.occurrences])).toEqual([
      ['bolt.stp', 4],
      ['plate.stp', 1],
      ['lost.stp', 2],
    ]);
    expect(rows[0]?.transforms).toHaveLength(3);
  });
});
