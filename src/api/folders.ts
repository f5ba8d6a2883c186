import { queryOptions, useQuery } from '@tanstack/react-query';
import { folderListResponseSchema } from '../contract/folders';
import { apiClient } from './client';

export interface FolderListParams {
  page?: number;
  perPage?: number;
  search?: string;
  filter?: string;
  order?: string;
}

export async function fetchFolders(params: FolderListParams, signal?: AbortSignal) {
  return apiClient().request('/v2/folders', {
    query: { page: params.page, perPage: params.perPage, search: params.search, filter: params.filter, order: params.order },
    schema: folderListResponseSchema,
    signal,
  });
}

export const folderQueries = {
  all: () => ['folders'] as const,
  lists: () => [...folderQueries.all(), 'list'] as const,
  list: (params: FolderListParams = {}) =>
    queryOptions({
      queryKey: [...folderQueries.lists(), params] as const,
      queryFn: ({ signal }) => fetchFolders(params, signal),
    }),
};

export function useFolders(params: FolderListParams = {}) {
  return useQuery(folderQueries.list(params));
}
