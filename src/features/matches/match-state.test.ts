import { describe, expect, it } from 'vitest';
import {
  defaultThreshold,
  formatMatchState,
  matchFilter,
  matchListParams,
  matchOrder,
  parseMatchState,
  searchForKind,
} from './match-state';

const parse = (kind: Parameters<typeof parseMatchState>[0], qs: string) => parseMatchState(kind, new URLSearchParams(qs));

describe('match page state in the URL', () => {
  it('defaults every kind to 80, grid, page 1, best score first', () => {
    const s = parse('part-to-part', '');
    expect(s.thresholds).toEqual({ 'part-in-part': defaultThreshold, 'part-to-part': 80, 'geo-related': 80 });
    expect(s).toMatchObject({ page: 1, view: 'grid', sort: null, direction: null, folderId: null });
    expect(matchOrder('part-to-part', s)).toBeUndefined();
  });

  it('reads the current kind from `threshold` and others from `threshold-<kind>`, clamped and rounded', () => {
    const s = parse('geo-related', 'threshold=150&threshold-part-to-part=42.6&threshold-part-in-part=-3');
    expect(s.thresholds).toEqual({ 'part-in-part': 0, 'part-to-part': 43, 'geo-related': 100 });
    expect(parse('geo-related', 'threshold=abc').thresholds['geo-related']).toBe(80);
  });

  it('round-trips, writing only what differs from the defaults', () => {
    const qs =
      'threshold=55&threshold-geo-related=30&direction=contained&sort=name&dir=asc&folder=7&metaKey=3&metaValue=Brass&page=2&view=table';
    const s = parse('part-in-part', qs);
    expect(formatMatchState('part-in-part', s).toString()).toBe(qs);
    expect(formatMatchState('part-to-part', parse('part-to-part', '')).toString()).toBe('threshold=80');
  });

  it('a tab link carries each kind its own threshold and restarts paging', () => {
    const s = parse('part-to-part', 'threshold=95&threshold-geo-related=60&page=3&sort=matchPercentage&dir=asc');
    const next = new URLSearchParams(searchForKind('geo-related', s));
    expect(next.get('threshold')).toBe('60');
    expect(next.get('threshold-part-to-part')).toBe('95');
    expect(next.get('page')).toBeNull();
    // matchPercentage is not a part-in-part order field: dropped on that tab.
    expect(new URLSearchParams(searchForKind('part-in-part', s)).get('sort')).toBeNull();
  });

  it('builds the service filter and order', () => {
    expect(matchFilter({ folderId: 12, metadataKeyId: 3, metadataValue: "O'Brien" })).toBe(
      "folderId(eq(12)),metadata.3(like('O''Brien*'))",
    );
    expect(matchFilter({ folderId: null, metadataKeyId: 3, metadataValue: '' })).toBeUndefined();
    expect(matchOrder('part-in-part', { sort: null, sortDirection: 'desc', direction: 'contained' })).toBe('-reverseMatchPercentage');
    expect(matchOrder('part-in-part', { sort: null, sortDirection: 'desc', direction: 'contains' })).toBe('-forwardMatchPercentage');
    expect(matchOrder('geo-related', { sort: 'createdAt', sortDirection: 'asc', direction: 'contains' })).toBe('createdAt');
    const params = matchListParams('part-to-part', parse('part-to-part', 'threshold=90&page=2'));
    expect(params).toEqual({ threshold: 90, page: 2, perPage: 24, filter: undefined, order: undefined });
  });
});
