import type { Folder } from '../contract/folders';

/** A model's folder as a path, from the folder list; the model's own filePath when the list lacks it. */
export function folderPathOf(folders: ReadonlyMap<number, Folder>, model: { folderId: number; filePath: string }): string {
  const known = folders.get(model.folderId)?.path;
  if (known) return known;
  const slash = model.filePath.lastIndexOf('/');
  return slash > 0 ? model.filePath.slice(0, slash) : '';
}
