// Test-only: plain records as the API answers them, for app tests of any feature.
import type { Folder } from '../../contract/folders';
import type { Model } from '../../contract/models';

export function makeModel(overrides: Partial<Model> = {}): Model {
  return {
    id: 'm1',
    name: 'Bracket',
    filePath: 'Brackets/bracket.stl',
    fileName: 'bracket.stl',
    fileType: 'stl',
    folderId: 1,
    isAssembly: false,
    state: 'finished',
    metadata: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-02T00:00:00.000Z',
    ...overrides,
  };
}

export function makeFolder(id: number, name: string, parentFolderId: number | null = null, modelCount = 0): Folder {
  return { id, name, parentFolderId, path: name, createdAt: '2026-01-01T00:00:00.000Z', modelCount };
}
