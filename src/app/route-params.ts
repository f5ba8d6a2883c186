import type { FolderListParams } from '../api/folders';

/** Folder list parameters as they appear in the /folders query string. */
export function folderListParams(search: URLSearchParams): FolderListParams {
  const page = Number(search.get('page'));
  return {
    page: Number.isInteger(page) && page > 1 ? page : 1,
    perPage: 100,
    search: search.get('search')?.trim() || undefined,
  };
}
