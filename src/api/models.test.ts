import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { Model } from '../contract/models';
import { folderQueries } from './folders';
import { metadataKeyQueries } from './metadata-keys';
import { json, stubFetch } from './testing/test-fetch';
import { modelListPollMs, modelListRefetchInterval, modelPollMs, modelQueries, modelRefetchInterval } from './models';

const pageData = { total: 1, perPage: 20, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 1 };

function model(state: string, id = 'm1'): Model {
  return {
    id,
    name: 'Bracket',
    filePath: 'parts/bracket.stl',
    fileName: 'bracket.stl',
    fileType: 'stl',
    folderId: 3,
    isAssembly: false,
    state,
    metadata: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

afterEach(() => vi.unstubAllGlobals());

describe('model polling', () => {
  it('polls while a model is not settled and stops once it is', () => {
    expect(modelRefetchInterval(model('incomplete-upload'))).toBe(modelPollMs);
    expect(modelRefetchInterval(model('processing'))).toBe(modelPollMs);
    for (const state of ['finished', 'finished-incomplete', 'failed', 'failed-incomplete', 'unsupported']) {
      expect(modelRefetchInterval(model(state))).toBe(false);
    }
  });

  it('treats states it does not know as still working', () => {
    expect(modelRefetchInterval(model('queued-for-tessellation'))).toBe(modelPollMs);
    expect(modelRefetchInterval(model(''))).toBe(modelPollMs);
  });

  it('does not poll before there is data', () => {
    expect(modelRefetchInterval(undefined)).toBe(false);
  });

  it('polls a list page as one request while any model on it is working', () => {
    expect(modelListRefetchInterval({ models: [model('finished'), model('processing', 'm2')], pageData })).toBe(modelListPollMs);
    expect(modelListRefetchInterval({ models: [model('finished'), model('failed', 'm2')], pageData })).toBe(false);
  });

  it('wires the function into the detail query options', () => {
    const options = modelQueries.detail('m1');
    const interval = options.refetchInterval as (q: { state: { data: Model | undefined } }) => number | false;
    expect(interval({ state: { data: model('processing') } })).toBe(modelPollMs);
    expect(interval({ state: { data: model('finished') } })).toBe(false);
  });
});

describe('model queries', () => {
  it('sends page, perPage, search, filter and order to GET /v2/models', async () => {
    const fetchMock = stubFetch(() => json({ models: [model('finished')], pageData }));
    const client = new QueryClient();
    const params = { page: 2, perPage: 24, search: 'gear', filter: 'folderId(eq(3)),state(in(finished))', order: '-createdAt' };
    const data = await client.fetchQuery(modelQueries.list(params));
    expect(data.models).toHaveLength(1);
    const url = new URL(String(fetchMock.mock.calls[0]?.[0]));
    expect(url.pathname).toBe('/v2/models');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      page: '2',
      perPage: '24',
      search: 'gear',
      filter: params.filter,
      order: '-createdAt',
    });
  });

  it('keys go from general to specific, with viewer file and tree under the model', () => {
    expect(modelQueries.list({ page: 1 }).queryKey).toEqual(['models', 'list', { page: 1 }]);
    expect(modelQueries.detail('a/b').queryKey).toEqual(['models', 'detail', 'a/b']);
    expect(modelQueries.viewerFile('m1').queryKey.slice(0, 3)).toEqual(modelQueries.detail('m1').queryKey);
    expect(modelQueries.assemblyTree('m1').queryKey.slice(0, 3)).toEqual(modelQueries.detail('m1').queryKey);
    expect(folderQueries.detail(4).queryKey).toEqual(['folders', 'detail', 4]);
    expect(metadataKeyQueries.list().queryKey).toEqual(['metadata-keys', 'list']);
  });

  it('keeps viewer-file addresses for less than their lifetime', () => {
    const staleTime = modelQueries.viewerFile('m1').staleTime as number;
    expect(staleTime).toBeGreaterThan(0);
    expect(staleTime).toBeLessThanOrEqual(5 * 60_000);
  });

  it('uses a carried viewer address only while it has a minute left', async () => {
    const { usableAddress } = await import('./models');
    const now = Date.parse('2026-01-01T00:00:00Z');
    const at = (s: number) => `http://h/files/models/m/viewer.glb?v=1&expires=${Math.floor(now / 1000) + s}&sig=x`;
    expect(usableAddress(at(600), now)).toBe(at(600));
    expect(usableAddress(at(30), now)).toBeUndefined();
    expect(usableAddress('http://h/other.glb', now)).toBe('http://h/other.glb');
    expect(usableAddress(null, now)).toBeUndefined();
    expect(usableAddress('not a url', now)).toBeUndefined();
  });

  it('escapes model ids in paths and reads viewer file, tree, and reprocess answers', async () => {
    const calls: string[] = [];
    stubFetch((url, init) => {
      calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
      if (url.pathname.endsWith('/viewer-file')) return json({ viewerFile: 'http://localhost:8080/files/v.glb?sig=1' });
      if (url.pathname.endsWith('/assembly-tree')) {
        return json({ type: 'assemblyTree', modelId: 'a b', children: [{ type: 'part', modelId: null, name: 'bolt.stp', transform: [] }] });
      }
      if (url.pathname.endsWith('/reprocess')) return json({ model: model('processing', 'a b') });
      return json({ error: { message: 'no', code: 'not_found' } }, 404);
    });
    const client = new QueryClient();
    await expect(client.fetchQuery(modelQueries.viewerFile('a b'))).resolves.toBe('http://localhost:8080/files/v.glb?sig=1');
    const tree = await client.fetchQuery(modelQueries.assemblyTree('a b'));
    expect(tree.children[0]?.modelId).toBeNull();
    const { reprocessModel } = await import('./models');
    await expect(reprocessModel('a b')).resolves.toMatchObject({ state: 'processing' });
    expect(calls).toEqual(['GET /v2/models/a%20b/viewer-file', 'GET /v2/models/a%20b/assembly-tree', 'POST /v2/models/a%20b/reprocess']);
  });

  it('reads every page of folders for the tree', async () => {
    const fetchMock = stubFetch((url) => {
      const page = Number(url.searchParams.get('page'));
      const folder = {
        id: page,
        name: `F${page}`,
        parentFolderId: null,
        path: `F${page}`,
        createdAt: '2026-01-01T00:00:00Z',
        modelCount: 0,
      };
      return json({
        folders: [folder],
        pageData: { total: 3, perPage: 100, currentPage: page, lastPage: 3, startIndex: page - 1, endIndex: page },
      });
    });
    const folders = await new QueryClient().fetchQuery(folderQueries.tree());
    expect(folders.map((f) => f.id)).toEqual([1, 2, 3]);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });
});
