// What the routes of this feature start loading before their page renders, so data and the
// page's code arrive together instead of one after the other.
// Pure query options and URL parsing only, so the router can import it without the pages.
import type { QueryClient } from '@tanstack/react-query';
import { folderQueries } from '../../api/folders';
import { modelQueries } from '../../api/models';
import { parseFolderId } from '../../contract/folders';
import { browseListParams, parseBrowseState, withSubfolderDefault } from './browse-state';

const ignore = () => undefined;

/** /folders and /folders/:folderId: the tree, the folder and the page of models the URL asks for. */
export function prefetchBrowse(queryClient: QueryClient, url: URL, folderParam?: string): void {
  queryClient.ensureQueryData(folderQueries.tree()).catch(ignore);
  if (folderParam === undefined) return;
  const folderId = parseFolderId(folderParam);
  if (folderId === null) return;
  queryClient.ensureQueryData(folderQueries.detail(folderId)).catch(ignore);
  const chosen = parseBrowseState(url.searchParams);
  // With subfolders (or until the folder list says whether to include them), the list's filter
  // names the folders below: it waits for the folder list.
  const folders = chosen.subfolders !== false ? queryClient.ensureQueryData(folderQueries.tree()) : Promise.resolve([]);
  folders
    .then((list) =>
      queryClient.ensureQueryData(modelQueries.list(browseListParams(folderId, withSubfolderDefault(chosen, folderId, list), list))),
    )
    .catch(ignore);
}

/** /models/:modelId: the model record (the page asks for its viewer file once it is processed). */
export function prefetchModel(queryClient: QueryClient, modelParam: string | undefined): void {
  if (!modelParam) return;
  queryClient.ensureQueryData(modelQueries.detail(modelParam)).catch(ignore);
}
