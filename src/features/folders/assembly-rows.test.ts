import { describe, expect, it } from 'vitest';
import type { AssemblyTreeNode } from '../../contract/models';
import { assemblyOrigin, placementsOf, withQuantities } from './assembly-rows';

const node = (modelId: string | null, name: string, occurrences?: number): AssemblyTreeNode => ({
  type: 'part',
  modelId,
  name,
  transform: [modelId === null ? 0 : 1],
  ...(occurrences ? { occurrences } : {}),
});

describe('assembly rows', () => {
  it('shows a part placed several times once, with its quantity, where it first appears', () => {
    const rows = withQuantities([
      node('a', 'bolt.stp'),
      node('b', 'plate.stp'),
      node('a', 'bolt.stp'),
      node('a', 'bolt.stp', 2),
      node(null, 'lost.stp'),
      node(null, 'lost.stp'),
    ]);
    expect(rows.map((r) => [r.name, r.occurrences])).toEqual([
      ['bolt.stp', 4],
      ['plate.stp', 1],
      ['lost.stp', 2],
    ]);
    expect(rows[0]?.transforms).toHaveLength(3);
  });
});

describe('placementsOf', () => {
  const translate = (x: number, y: number, z: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
  it('places every occurrence under every placement of its parent', () => {
    const bolt: AssemblyTreeNode = {
      type: 'part',
      modelId: 'b',
      name: 'bolt.step',
      transform: translate(1, 0, 0),
      transforms: [translate(1, 0, 0), translate(2, 0, 0)],
    };
    const sub = placementsOf(assemblyOrigin, {
      type: 'subAssembly',
      modelId: 's',
      name: 'sub.step',
      transform: translate(0, 10, 0),
      transforms: [translate(0, 10, 0), translate(0, 20, 0)],
    });
    const placed = placementsOf(sub, bolt).map((m) => m.slice(12, 15));
    expect(placed).toEqual([
      [1, 10, 0],
      [2, 10, 0],
      [1, 20, 0],
      [2, 20, 0],
    ]);
  });
  it('uses the one transform of a row without a list', () => {
    expect(
      placementsOf(assemblyOrigin, { type: 'part', modelId: 'p', name: 'p.step', transform: translate(0, 0, 5) })[0]!.slice(12, 15),
    ).toEqual([0, 0, 5]);
  });
});
