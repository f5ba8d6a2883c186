import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { folderListResponseSchema, folderResponseSchema, folderSchema, type CreateFolderRequest, type Folder } from '../contract/folders';
import { apiClient } from './client';
import { completeFolder, completeModels, folderPathsOf, lacksPaths, modelsOf, type FolderPaths } from './published-answers';

/**
 * Folder paths for answers that lack them (published-answers.ts): from the cached folder tree,
 * read when first needed; without a query client, none (paths fall back to names).
 */
export async function folderPathsFrom(client: QueryClient | undefined): Promise<FolderPaths | undefined> {
  return client ? folderPathsOf(await client.ensureQueryData(folderQueries.tree())) : undefined;
}

/** Model answers (lists, one model, matches, grouped reports) completed where the deployment sends only published fields. */
export const completingModels = (client?: QueryClient) => async (body: unknown) =>
  completeModels(body, lacksPaths(modelsOf(body)) ? await folderPathsFrom(client) : undefined);

const lacksPath = (folders: unknown[]) => folders.some((f) => typeof (f as { path?: unknown } | null)?.path !== 'string');

/** A folder answer completed with its path where the deployment sends none. */
const completingFolder = (client?: QueryClient) => async (body: unknown) => {
  const folder = (body as { folder?: unknown } | null)?.folder;
  return folder && lacksPath([folder]) ? { ...(body as object), folder: completeFolder(folder, await folderPathsFrom(client)) } : body;
};

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

export async function fetchFolders(params: FolderListParams, signal?: AbortSignal, paths?: () => Promise<FolderPaths | undefined>) {
  return apiClient().request(path, {
    query: { page: params.page, perPage: params.perPage, search: params.search, filter: params.filter, order: params.order },
    schema: folderListResponseSchema,
    prepare: async (body) => {
      const folders = (body as { folders?: unknown[] } | null)?.folders;
      if (!folders || !lacksPath(folders)) return body;
      const known = await paths?.();
      return { ...(body as object), folders: folders.map((f) => completeFolder(f, known)) };
    },
    signal,
  });
}

/** A page of the folder list as any deployment sends it: the published API sends no paths. */
const folderPageSchema = folderListResponseSchema.extend({ folders: z.array(folderSchema.extend({ path: z.string().optional() })) });

/** Every folder of the tenant (all pages), for the folder tree; paths a deployment does not send come from the names. */
export async function fetchAllFolders(signal?: AbortSignal): Promise<Folder[]> {
  const folders: z.infer<typeof folderPageSchema>['folders'] = [];
  for (let page = 1; page <= treePageLimit; page++) {
    const data = await apiClient().request(path, { query: { page, perPage: 100 }, schema: folderPageSchema, signal });
    folders.push(...data.folders);
    if (page >= data.pageData.lastPage || data.folders.length === 0) break;
  }
  const paths = folderPathsOf(folders);
  return folders.map((f) => ({ ...f, path: f.path ?? paths.get(f.id) ?? f.name }));
}

export async function fetchFolder(id: number, signal?: AbortSignal, client?: QueryClient): Promise<Folder> {
  const data = await apiClient().request(`${path}/${id}`, { schema: folderResponseSchema, prepare: completingFolder(client), signal });
  return data.folder;
}

export async function createFolder(body: CreateFolderRequest): Promise<Folder> {
  const data = await apiClient().request(path, { method: 'POST', body, schema: folderResponseSchema, prepare: completingFolder() });
  return data.folder;
}

export async function renameFolder({ id, name }: { id: number; name: string }): Promise<Folder> {
  const data = await apiClient().request(`${path}/${id}`, {
    method: 'PATCH',
    body: { name },
    schema: folderResponseSchema,
    prepare: completingFolder(),
  });
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
      queryFn: ({ signal, client }) => fetchFolders(params, signal, () => folderPathsFrom(client)),
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
      queryFn: ({ signal, client }) => fetchFolder(id, signal, client),
    }),
};

export function useFolders(params: FolderListParams = {}) {
  return useQuery(folderQueries.list(params));
}

/** Every folder; `fresh` asks again on mount (a page that chooses among them, after scripts may have added some). */
export function useFolderTree({ fresh = false }: { fresh?: boolean } = {}) {
  return useQuery({ ...folderQueries.tree(), ...(fresh ? { refetchOnMount: 'always' as const } : {}) });
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
