import type { Folder } from '../contract/folders';

/** A folder select's options: every folder by its path, in path order. */
export function FolderOptions({ folders }: { folders: readonly Folder[] | undefined }) {
  return [...(folders ?? [])]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => (
      <option key={f.id} value={f.id}>
        {f.path}
      </option>
    ));
}
