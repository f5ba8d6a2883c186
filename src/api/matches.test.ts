import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import { fetchAllMatches, isNotReady, matchesNotReadyPollMs, matchQueries } from './matches';
import { json, stubFetch } from './testing/test-fetch';

const model = {
  id: 'm2',
  name: 'Plate',
  filePath: 'p/plate.stl',
  fileName: 'plate.stl',
  fileType: 'stl',
  folderId: 3,
  isAssembly: false,
  state: 'finished',
  metadata: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

afterEach(() => vi.unstubAllGlobals());

describe('match queries', () => {
  it('ask the kind’s endpoint with threshold, paging, filter and order, and check the answer', async () => {
    const fetchMock = stubFetch(() =>
      json({
        matches: [{ matchedModel: model, matchPercentage: 99 }],
        matchCount: 1,
        pageData: { total: 1, perPage: 24, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 1 },
      }),
    );
    const client = new QueryClient();
    const data = await client.fetchQuery(
      matchQueries.list('m1', 'part-to-part', { threshold: 80, page: 1, perPage: 24, filter: 'folderId(eq(3))', order: 'name' }),
    );
    expect(data.matchCount).toBe(1);
    const url = new URL(String(fetchMock.mock.calls[0]![0]));
    expect(url.pathname).toBe('/v2/models/m1/part-to-part-matches');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      threshold: '80',
      page: '1',
      perPage: '24',
      filter: 'folderId(eq(3))',
      order: 'name',
    });
    // Counts per kind ask for one result only and read matchCount.
    expect(await client.fetchQuery(matchQueries.count('m1', 'part-to-part', { threshold: 90 }))).toBe(1);
    expect(new URL(String(fetchMock.mock.calls[1]![0])).searchParams.get('perPage')).toBe('1');
  });

  it('a model not ready (409) is polled, not retried or shown as a failure', async () => {
    stubFetch(() => json({ error: { message: 'The model is processing.', code: 'conflict' } }, 409));
    const client = new QueryClient();
    const options = matchQueries.list('m1', 'geo-related', { threshold: 80 });
    await expect(client.fetchQuery(options)).rejects.toSatisfy(isNotReady);
    const query = client.getQueryCache().find({ queryKey: options.queryKey })!;
    const interval = options.refetchInterval as unknown as (q: typeof query) => number | false;
    expect(interval(query)).toBe(matchesNotReadyPollMs);
    expect((options.retry as (n: number, e: Error) => boolean)(0, query.state.error!)).toBe(false);
  });

  it('an export gathers every page up to the limit', async () => {
    const fetchMock = stubFetch((url) => {
      const page = Number(url.searchParams.get('page'));
      return json({
        matches: [{ matchedModel: { ...model, id: `m${page}` }, forwardMatchPercentage: 90, reverseMatchPercentage: 10 }],
        matchCount: 3,
        pageData: { total: 3, perPage: 100, currentPage: page, lastPage: 3, startIndex: 0, endIndex: 1 },
      });
    });
    const all = await fetchAllMatches('m1', 'part-in-part', { threshold: 50 });
    expect(all.matches.map((m) => m.matchedModel.id)).toEqual(['m1', 'm2', 'm3']);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });
});
