import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { folderListResponseSchema, folderResponseSchema, type CreateFolderRequest, type Folder } from '../contract/folders';
import { apiClient } from './client';

export interface FolderListParams {
  page?: number;
  perPage?: number;
  search?: string;
  filter?: string;
  order?: string;
}

const path = '/v2/folders';
/** The tree is read in pages of the largest size the contract allows; this caps it at 10,000 folders. */
const treePageLimit = 100;

export async function fetchFolders(params: FolderListParams, signal?: AbortSignal) {
  return apiClient().request(path, {
    query: { page: params.page, perPage: params.perPage, search: params.search, filter: params.filter, order: params.order },
    schema: folderListResponseSchema,
    signal,
  });
}

/** Every folder of the tenant (all pages), for the folder tree. */
export async function fetchAllFolders(signal?: AbortSignal): Promise<Folder[]> {
  const folders: Folder[] = [];
  for (let page = 1; page <= treePageLimit; page++) {
    const data = await fetchFolders({ page, perPage: 100 }, signal);
    folders.push(...data.folders);
    if (page >= data.pageData.lastPage || data.folders.length === 0) break;
  }
  return folders;
}

export async function fetchFolder(id: number, signal?: AbortSignal): Promise<Folder> {
  const data = await apiClient().request(`${path}/${id}`, { schema: folderResponseSchema, signal });
  return data.folder;
}

export async function createFolder(body: CreateFolderRequest): Promise<Folder> {
  const data = await apiClient().request(path, { method: 'POST', body, schema: folderResponseSchema });
  return data.folder;
}

export async function renameFolder({ id, name }: { id: number; name: string }): Promise<Folder> {
  const data = await apiClient().request(`${path}/${id}`, { method: 'PATCH', body: { name }, schema: folderResponseSchema });
  return data.folder;
}

export async function deleteFolder(id: number): Promise<void> {
  await apiClient().request(`${path}/${id}`, { method: 'DELETE' });
}

export const folderQueries = {
  all: () => ['folders'] as const,
  lists: () => [...folderQueries.all(), 'list'] as const,
  list: (params: FolderListParams = {}) =>
    queryOptions({
      queryKey: [...folderQueries.lists(), params] as const,
      queryFn: ({ signal }) => fetchFolders(params, signal),
    }),
  tree: () =>
    queryOptions({
      queryKey: [...folderQueries.all(), 'tree'] as const,
      queryFn: ({ signal }) => fetchAllFolders(signal),
    }),
  details: () => [...folderQueries.all(), 'detail'] as const,
  detail: (id: number) =>
    queryOptions({
      queryKey: [...folderQueries.details(), id] as const,
      queryFn: ({ signal }) => fetchFolder(id, signal),
    }),
};

export function useFolders(params: FolderListParams = {}) {
  return useQuery(folderQueries.list(params));
}

export function useFolderTree() {
  return useQuery(folderQueries.tree());
}

export function useFolder(id: number | null) {
  return useQuery({ ...folderQueries.detail(id ?? -1), enabled: id !== null });
}

export function useCreateFolder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createFolder,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: folderQueries.all() }),
  });
}

export function useRenameFolder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: renameFolder,
    onSuccess: (folder) => {
      queryClient.setQueryData(folderQueries.detail(folder.id).queryKey, folder);
      // Paths of every descendant change too.
      return queryClient.invalidateQueries({ queryKey: folderQueries.all() });
    },
  });
}

export function useDeleteFolder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteFolder,
    onSuccess: (_data, id) => {
      const gone = folderQueries.detail(id).queryKey;
      // The page that showed the folder is still mounted until it navigates away: mark the
      // folder stale without asking for it again (that would only answer 404).
      void queryClient.invalidateQueries({ queryKey: gone, exact: true, refetchType: 'none' });
      return queryClient.invalidateQueries({
        queryKey: folderQueries.all(),
        predicate: (query) => !(query.queryKey.length === gone.length && query.queryKey.every((part, i) => part === gone[i])),
      });
    },
  });
}
