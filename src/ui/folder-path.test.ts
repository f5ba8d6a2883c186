import { describe, expect, it } from 'vitest';
import type { Folder } from '../contract/folders';
import { folderPathOf } from './folder-path';

const folder = (id: number, path: string): Folder => ({
  id,
  name: path.split('/').pop()!,
  parentFolderId: null,
  path,
  createdAt: '2026-01-01T00:00:00.000Z',
  modelCount: 0,
});
const folders = [
  folder(1, 'Pumps'),
  folder(2, 'Pumps/Housings'),
  folder(3, 'Pumps/Housings/Old'),
  folder(4, 'Pumps2'),
  folder(5, 'Valves'),
];

describe('result filter', () => {
  it("shows a model's folder path from the list, else from its filePath", () => {
    const byId = new Map(folders.map((f) => [f.id, f]));
    expect(folderPathOf(byId, { folderId: 2, filePath: 'x/y.stl' })).toBe('Pumps/Housings');
    expect(folderPathOf(byId, { folderId: 99, filePath: 'A/B/part.stl' })).toBe('A/B');
  });
});
