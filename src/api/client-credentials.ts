import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  clientCredentialListResponseSchema,
  createdClientCredentialSchema,
  type CreateClientCredentialRequest,
} from '../contract/client-credentials';
import { apiClient } from './client';
import { completeCreatedCredential, completeCredentialList } from './published-answers';

const path = '/client-credentials';

export async function fetchClientCredentials(signal?: AbortSignal) {
  const data = await apiClient().request(path, { schema: clientCredentialListResponseSchema, prepare: completeCredentialList, signal });
  return data.clientCredentials;
}

/** The only answer that carries a secret: callers keep it in component state, never in a cache. */
export async function createClientCredential(body: CreateClientCredentialRequest) {
  const data = await apiClient().request(path, {
    method: 'POST',
    body,
    schema: createdClientCredentialSchema,
    prepare: (answer) => completeCreatedCredential(answer, body.name),
  });
  return data.clientCredentials;
}

export async function deleteClientCredential(clientId: string): Promise<void> {
  await apiClient().request(`${path}/${encodeURIComponent(clientId)}`, { method: 'DELETE' });
}

export const clientCredentialQueries = {
  all: () => ['client-credentials'] as const,
  lists: () => [...clientCredentialQueries.all(), 'list'] as const,
  list: () =>
    queryOptions({
      queryKey: clientCredentialQueries.lists(),
      queryFn: ({ signal }) => fetchClientCredentials(signal),
    }),
};

export function useClientCredentials() {
  return useQuery(clientCredentialQueries.list());
}

export function useCreateClientCredential() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createClientCredential,
    // The result holds the secret: let the mutation cache drop it as soon as nobody observes it.
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clientCredentialQueries.all() }),
  });
}

export function useDeleteClientCredential() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteClientCredential,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clientCredentialQueries.all() }),
  });
}
