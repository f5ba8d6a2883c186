import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { metadataKeyListResponseSchema, metadataKeyResponseSchema, type MetadataKey } from '../contract/metadata-keys';
import { apiClient } from './client';

const path = '/v2/metadata-keys';
const pageLimit = 50;

/** Every metadata key of the tenant (all pages): a small vocabulary the metadata editor offers. */
export async function fetchMetadataKeys(signal?: AbortSignal): Promise<MetadataKey[]> {
  const keys: MetadataKey[] = [];
  for (let page = 1; page <= pageLimit; page++) {
    const data = await apiClient().request(path, { query: { page, perPage: 100 }, schema: metadataKeyListResponseSchema, signal });
    keys.push(...data.metadataKeys);
    if (page >= data.pageData.lastPage || data.metadataKeys.length === 0) break;
  }
  return keys;
}

export async function createMetadataKey(name: string): Promise<MetadataKey> {
  const data = await apiClient().request(path, { method: 'POST', body: { name }, schema: metadataKeyResponseSchema });
  return data.metadataKey;
}

export const metadataKeyQueries = {
  all: () => ['metadata-keys'] as const,
  lists: () => [...metadataKeyQueries.all(), 'list'] as const,
  list: () =>
    queryOptions({
      queryKey: metadataKeyQueries.lists(),
      queryFn: ({ signal }) => fetchMetadataKeys(signal),
      staleTime: 5 * 60_000,
    }),
};

export function useMetadataKeys(enabled = true) {
  return useQuery({ ...metadataKeyQueries.list(), enabled });
}

export function useCreateMetadataKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createMetadataKey,
    onSuccess: (key) => {
      queryClient.setQueryData(metadataKeyQueries.list().queryKey, (old) => (old ? [...old.filter((k) => k.id !== key.id), key] : old));
      return queryClient.invalidateQueries({ queryKey: metadataKeyQueries.all() });
    },
  });
}
