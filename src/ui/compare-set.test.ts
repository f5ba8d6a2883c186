import { beforeEach, describe, expect, it } from 'vitest';
import { addToCompareSet, COMPARE_SET_MAX, parsePicked, removeFromCompareSet, setCompareSet } from './compare-set';
import { paths } from './paths';

beforeEach(() => setCompareSet([]));

describe('compare set', () => {
  it('keeps at most four distinct models and refuses a fifth', () => {
    for (let i = 1; i <= COMPARE_SET_MAX; i++) expect(addToCompareSet({ id: `m${i}`, name: `Part ${i}` })).toBe(true);
    expect(addToCompareSet({ id: 'm1', name: 'Part 1' })).toBe(true);
    expect(addToCompareSet({ id: 'm5', name: 'Part 5' })).toBe(false);
    expect(parsePicked(localStorage.getItem('gsw:compare-set')).map((p) => p.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
    removeFromCompareSet('m2');
    expect(addToCompareSet({ id: 'm5', name: 'Part 5' })).toBe(true);
    expect(parsePicked(localStorage.getItem('gsw:compare-set')).map((p) => p.id)).toEqual(['m1', 'm3', 'm4', 'm5']);
  });

  it('reads what it can of a damaged stored list', () => {
    expect(parsePicked('not json')).toEqual([]);
    expect(parsePicked('{"id":"m1"}')).toEqual([]);
    expect(parsePicked('[{"id":"m1","name":"A"},{"id":"m1","name":"A"},{"id":2},null,{"id":"m2","name":"B"}]')).toEqual([
      { id: 'm1', name: 'A' },
      { id: 'm2', name: 'B' },
    ]);
  });

  it('links to the comparison page with the ids in order', () => {
    expect(paths.compareSet.href(['a', 'b c'])).toBe('/compare?ids=a,b%20c');
  });
});
