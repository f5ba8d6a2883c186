import { describe, expect, it } from 'vitest';
import { clientCredentialListResponseSchema } from '../contract/client-credentials';
import { folderListResponseSchema } from '../contract/folders';
import { matchesResponseSchemaFor } from '../contract/matches';
import { assemblyTreeResponseSchema, modelResponseSchema } from '../contract/models';
import {
  completeAssemblyTree,
  completeCreatedCredential,
  completeCredentialList,
  completeFolder,
  completeModels,
  folderPathsOf,
  lacksPaths,
  modelsOf,
  unnamedTreeIds,
} from './published-answers';

// Answers as a deployment of the published API writes them: its fields only.
const published = {
  id: 'm1',
  name: 'Bracket',
  fileName: 'bracket.stl',
  fileType: 'stl',
  folderId: 2,
  isAssembly: false,
  ownerId: 'u1',
  state: 'finished',
  units: 'mm',
  createdAt: '2026-11-01T10:00:00.000Z',
};
const folders = [
  { id: 1, name: 'Parts', createdAt: '2026-11-01T10:00:00.000Z' },
  { id: 2, name: 'Brackets', parentFolderId: 1, createdAt: '2026-11-01T10:00:00.000Z' },
];

const filterData = {
  folders: [],
  properties: [],
  metadata: [],
  createdAt: [],
  isAssembly: [],
  fileType: [],
  units: [],
  collections: { names: [], tags: [], metadata: [] },
};

describe('answers of a deployment that sends only the published fields', () => {
  it('folder paths come from names and parents', () => {
    expect([...folderPathsOf(folders)]).toEqual([
      [1, 'Parts'],
      [2, 'Parts/Brackets'],
    ]);
    const list = {
      folders: folders.map((f) => completeFolder(f, folderPathsOf(folders))),
      pageData: { total: 2, perPage: 20, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 1 },
    };
    expect(folderListResponseSchema.parse(list).folders.map((f) => f.path)).toEqual(['Parts', 'Parts/Brackets']);
  });

  it('a model gets its path from its folder, updatedAt from createdAt and no metadata', () => {
    const body = { model: { ...published, metadata: [] } };
    expect(lacksPaths(modelsOf(body))).toBe(true);
    const model = modelResponseSchema.parse(completeModels(body, folderPathsOf(folders))).model;
    expect(model).toMatchObject({ filePath: 'Parts/Brackets/bracket.stl', updatedAt: published.createdAt, metadata: [] });
    // Without folder paths the file name stands in.
    expect(modelResponseSchema.parse(completeModels(body, undefined)).model.filePath).toBe('bracket.stl');
  });

  it('a match list counts from its page data; our own answers pass unchanged', () => {
    const body = {
      matches: [{ matchedModel: published, matchPercentage: 99.1 }],
      pageData: { total: 7, perPage: 1, currentPage: 1, lastPage: 7, startIndex: 0, endIndex: 0 },
      filterData,
    };
    const parsed = matchesResponseSchemaFor('part-to-part').parse(completeModels(body, folderPathsOf(folders)));
    expect(parsed.matchCount).toBe(7);
    expect(parsed.matches[0]!.matchedModel.filePath).toBe('Parts/Brackets/bracket.stl');
    const ours = {
      ...body,
      matchCount: 1,
      matches: [{ matchedModel: { ...published, filePath: 'Elsewhere/b.stl', updatedAt: 'x', metadata: [] }, matchPercentage: 99.1 }],
    };
    expect(lacksPaths(modelsOf(ours))).toBe(false);
    expect(completeModels(ours, undefined)).toEqual(ours);
  });

  it('credentials: the one client id the published API lists, and a new one named as asked', () => {
    expect(clientCredentialListResponseSchema.parse(completeCredentialList({ clientId: 'c1' })).clientCredentials).toEqual([
      { clientId: 'c1', name: 'API credential', createdAt: null, lastUsedAt: null },
    ]);
    expect(clientCredentialListResponseSchema.parse(completeCredentialList({})).clientCredentials).toEqual([]);
    const created = completeCreatedCredential(
      { clientCredentials: { clientId: 'c2', clientSecret: 's' } },
      'Nightly import',
      new Date('2026-11-26T12:00:00Z'),
    );
    expect(created).toEqual({
      clientCredentials: { clientId: 'c2', clientSecret: 's', name: 'Nightly import', createdAt: '2026-11-26T12:00:00.000Z' },
    });
  });
});

describe('assembly trees without names (published API)', () => {
  const published = {
    type: 'assemblyTree',
    modelId: 'top',
    children: [
      { type: 'subAssembly', modelId: 'sub', occurrences: 1, children: [{ type: 'assemblyPart', modelId: 'bolt', occurrences: 4 }] },
      { type: 'assemblyPart', modelId: 'gone', occurrences: 1 },
    ],
  };
  it('lists the models to look up, then names every node from them', () => {
    expect(unnamedTreeIds(published)).toEqual(['sub', 'bolt', 'gone']);
    const done = completeAssemblyTree(
      published,
      new Map([
        ['sub', 'TAIL.stp'],
        ['bolt', 'bolt.stp'],
      ]),
    );
    expect(assemblyTreeResponseSchema.parse(done).children).toEqual([
      {
        type: 'subAssembly',
        modelId: 'sub',
        name: 'TAIL.stp',
        occurrences: 1,
        children: [{ type: 'assemblyPart', modelId: 'bolt', name: 'bolt.stp', occurrences: 4 }],
      },
      { type: 'assemblyPart', modelId: 'gone', name: 'Unnamed part', occurrences: 1 },
    ]);
  });
  it('leaves a tree with names as it is', () => {
    expect(
      unnamedTreeIds({ type: 'assemblyTree', modelId: 't', children: [{ type: 'part', modelId: 'p', name: 'p.stl', transform: [] }] }),
    ).toEqual([]);
  });
});
