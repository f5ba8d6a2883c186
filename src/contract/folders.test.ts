import { describe, expect, it } from 'vitest';
import { folderAndBelow, folderFilter, modelCountsWithSubfolders, parseFolderId, type Folder } from './folders';

const folder = (id: number, path: string, parentFolderId: number | null = null, modelCount = 0): Folder => ({
  id,
  name: path.split('/').pop()!,
  parentFolderId,
  path,
  createdAt: '2026-01-01T00:00:00.000Z',
  modelCount,
});
const folders = [
  folder(1, 'Pumps', null, 2),
  folder(2, 'Pumps/Housings', 1, 3),
  folder(3, 'Pumps/Housings/Old', 2, 4),
  folder(4, 'Pumps2', null, 1),
  folder(5, 'Valves'),
];

describe('folders with their subfolders', () => {
  it('covers a folder and its subfolders, not folders that only share a prefix', () => {
    expect(folderAndBelow(folders, 1)).toEqual([1, 2, 3]);
    expect(folderFilter(folders, 1)).toBe('folderId(in(1,2,3))');
    expect(folderFilter(folders, 5)).toBe('folderId(eq(5))');
    expect(folderFilter(folders, null)).toBeUndefined();
    // Before the folder list has arrived: the chosen folder alone.
    expect(folderFilter([], 9)).toBe('folderId(eq(9))');
  });

  it("counts a folder's models with those of every folder below it", () => {
    const totals = modelCountsWithSubfolders(folders);
    expect(Object.fromEntries(totals)).toEqual({ 1: 9, 2: 7, 3: 4, 4: 1, 5: 0 });
  });

  it('accepts only numeric folder ids from the route', () => {
    expect(parseFolderId('42')).toBe(42);
    expect(parseFolderId('abc')).toBeNull();
    expect(parseFolderId('4e2')).toBeNull();
    expect(parseFolderId(undefined)).toBeNull();
  });
});
