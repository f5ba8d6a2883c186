import { filterBuilder, filterLimits, formatFilter } from '../../contract/filter';
import type { Folder } from '../../contract/folders';

/** The folder and every folder below it (by path), so "in this folder" includes its subfolders. */
export function folderAndBelow(folders: readonly Folder[], folderId: number): number[] {
  const root = folders.find((folder) => folder.id === folderId);
  if (!root) return [folderId];
  const prefix = `${root.path}/`;
  return folders.filter((folder) => folder.id === folderId || folder.path.startsWith(prefix)).map((folder) => folder.id);
}

/** The matches' `filter` for a folder choice; undefined for all folders. */
export function folderFilter(folders: readonly Folder[], folderId: number | null): string | undefined {
  if (folderId === null) return undefined;
  const ids = folderAndBelow(folders, folderId).slice(0, filterLimits.maxInValues);
  return formatFilter([ids.length === 1 ? filterBuilder.eq('folderId', folderId) : filterBuilder.in('folderId', ids)]);
}

/** A model's folder as a path, from the folder list; the model's own filePath when the list lacks it. */
export function folderPathOf(folders: ReadonlyMap<number, Folder>, model: { folderId: number; filePath: string }): string {
  const known = folders.get(model.folderId)?.path;
  if (known) return known;
  const slash = model.filePath.lastIndexOf('/');
  return slash > 0 ? model.filePath.slice(0, slash) : '';
}
