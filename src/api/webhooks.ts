import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createdWebhookResponseSchema,
  webhookDeliveryListResponseSchema,
  webhookListResponseSchema,
  webhookResponseSchema,
  type CreateWebhookRequest,
  type UpdateWebhookRequest,
  type WebhookDelivery,
} from '../contract/webhooks';
import { apiClient } from './client';

const path = '/v2/webhooks';
const hookPath = (id: string) => `${path}/${encodeURIComponent(id)}`;

/** While a delivery is on its way (or waiting for a retry) its log is read again this often… */
export const deliveryPollMs = 2000;
/** …and otherwise this often, so new events show while the log is open. */
export const deliveryLogRefreshMs = 5000;

const unsettled = (d: WebhookDelivery) => d.status === 'pending' || d.status === 'retrying';

export const webhookQueries = {
  all: () => ['webhooks'] as const,
  list: () =>
    queryOptions({
      queryKey: [...webhookQueries.all(), 'list'] as const,
      queryFn: async ({ signal }) => (await apiClient().request(path, { schema: webhookListResponseSchema, signal })).webhooks,
      // An endpoint whose last delivery is on its way shows how it ended.
      refetchInterval: (query) =>
        query.state.data?.some((h) => h.lastDelivery?.status === 'pending' || h.lastDelivery?.status === 'retrying')
          ? deliveryPollMs
          : false,
    }),
  deliveries: (id: string, page: number) =>
    queryOptions({
      queryKey: [...webhookQueries.all(), 'deliveries', id, page] as const,
      queryFn: ({ signal }) =>
        apiClient().request(`${hookPath(id)}/deliveries`, {
          query: { page, perPage: 20 },
          schema: webhookDeliveryListResponseSchema,
          signal,
        }),
      refetchInterval: (query) => (query.state.data?.deliveries.some(unsettled) ? deliveryPollMs : deliveryLogRefreshMs),
    }),
};

export function useWebhooks() {
  return useQuery(webhookQueries.list());
}

export function useWebhookDeliveries(id: string, page: number) {
  return useQuery({ ...webhookQueries.deliveries(id, page), placeholderData: (previous) => previous });
}

/** The only answer that carries the signing secret: callers keep it in component state, never in a cache. */
export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWebhookRequest) => apiClient().request(path, { method: 'POST', body, schema: createdWebhookResponseSchema }),
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all() }),
  });
}

export function useUpdateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: UpdateWebhookRequest }) =>
      apiClient().request(hookPath(id), { method: 'PATCH', body: change, schema: webhookResponseSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all() }),
  });
}

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiClient().request(hookPath(id), { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all() }),
  });
}

/** Sends a `ping` now; the log shows it arrive. */
export function usePingWebhook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiClient().request(`${hookPath(id)}/ping`, { method: 'POST' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookQueries.all() }),
  });
}
