import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  acceptProposalsResponseSchema,
  classProposalsResponseSchema,
  metadataKeyListResponseSchema,
  metadataKeyResponseSchema,
  type AcceptProposalsRequest,
  type MetadataKey,
} from '../contract/metadata-keys';
import { modelQueries } from './models';
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

export interface ClassProposalParams {
  keyId: number;
  folderId: number;
  value?: string | undefined;
  minConfidence: number;
  page: number;
}

/** Not below the model lists (an upload renews those every second); accepting renews them. */
export const classProposalQueries = {
  all: () => ['class-proposals'] as const,
  of: (p: ClassProposalParams) =>
    queryOptions({
      queryKey: [...classProposalQueries.all(), p] as const,
      queryFn: ({ signal }) =>
        apiClient().request(`${path}/${p.keyId}/proposals`, {
          query: { folderIds: p.folderId, value: p.value, minConfidence: p.minConfidence, page: p.page, perPage: 50 },
          schema: classProposalsResponseSchema,
          signal,
        }),
    }),
};

export function useClassProposals(p: ClassProposalParams | null) {
  return useQuery({
    ...classProposalQueries.of(p ?? { keyId: 0, folderId: 0, minConfidence: 0, page: 1 }),
    enabled: p !== null,
    placeholderData: (previous) => previous,
  });
}

/** Sets the class of these models (as proposed, or corrected); the models and the proposals are read again. */
export function useAcceptProposals() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, items }: { keyId: number } & AcceptProposalsRequest) =>
      apiClient().request(`${path}/${keyId}/proposals/accept`, { method: 'POST', body: { items }, schema: acceptProposalsResponseSchema }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: classProposalQueries.all() }),
        queryClient.invalidateQueries({ queryKey: modelQueries.all() }),
      ]),
  });
}
