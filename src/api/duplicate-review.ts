import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  duplicateActionResponseSchema,
  duplicateDecisionResponseSchema,
  duplicateReportListResponseSchema,
  duplicateReportResponseSchema,
  maxModelsPerAction,
  reportGroupsResponseSchema,
  type DuplicateActionRequest,
  type DuplicateDecisionRequest,
  type DuplicateReport,
  type DuplicateReportRequest,
} from '../contract/duplicate-review';
import { apiClient } from './client';

const reports = '/v2/duplicate-reports';
const decisions = '/v2/duplicate-decisions';

/** How often a running report is asked for its progress. */
export const reportPollMs = 700;
/** Groups per page of the review: one shared canvas draws them (architecture budget: 24 in ≤ 3 s). */
export const groupsPerPage = 24;

const running = (r: DuplicateReport | undefined) => r?.status === 'queued' || r?.status === 'running';

export const reviewQueries = {
  all: () => ['duplicate-review'] as const,
  reportList: (page: number) =>
    queryOptions({
      queryKey: [...reviewQueries.all(), 'reports', page] as const,
      queryFn: ({ signal }) =>
        apiClient().request(reports, { query: { page, perPage: 20 }, schema: duplicateReportListResponseSchema, signal }),
      refetchInterval: (query) => (query.state.data?.reports.some(running) ? reportPollMs : false),
    }),
  report: (id: string) =>
    queryOptions({
      queryKey: [...reviewQueries.all(), 'report', id] as const,
      queryFn: async ({ signal }) =>
        (await apiClient().request(`${reports}/${encodeURIComponent(id)}`, { schema: duplicateReportResponseSchema, signal })).report,
      refetchInterval: (query) => (running(query.state.data) ? reportPollMs : false),
    }),
  groups: (id: string, page: number) =>
    queryOptions({
      queryKey: [...reviewQueries.all(), 'report', id, 'groups', page] as const,
      queryFn: ({ signal }) =>
        apiClient().request(`${reports}/${encodeURIComponent(id)}/groups`, {
          query: { page, perPage: groupsPerPage },
          schema: reportGroupsResponseSchema,
          signal,
        }),
    }),
};

export function useDuplicateReports(page: number) {
  return useQuery({ ...reviewQueries.reportList(page), placeholderData: keepPreviousData });
}

export function useDuplicateReport(id: string) {
  return useQuery(reviewQueries.report(id));
}

export function useReportGroups(id: string, page: number, enabled: boolean) {
  return useQuery({ ...reviewQueries.groups(id, page), enabled, placeholderData: keepPreviousData });
}

export function useStartReport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: DuplicateReportRequest) =>
      (await apiClient().request(reports, { method: 'POST', body, schema: duplicateReportResponseSchema })).report,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...reviewQueries.all(), 'reports'] }),
  });
}

export function useDecide() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: DuplicateDecisionRequest) =>
      (await apiClient().request(decisions, { method: 'POST', body, schema: duplicateDecisionResponseSchema })).decision,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: reviewQueries.all() }),
  });
}

export function useUndoDecision() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiClient().request(`${decisions}/${id}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: reviewQueries.all() }),
  });
}

/** Every decision of the tenant as a file's text. */
export function fetchDecisionExport(format: 'csv' | 'json'): Promise<string> {
  return apiClient().request(`${decisions}/export`, { query: { format }, text: true });
}

/** An action without its models (each variant keeps its own fields). */
export type DuplicateAction = WithoutModels<DuplicateActionRequest>;
type WithoutModels<T> = T extends unknown ? Omit<T, 'modelIds'> : never;

/**
 * Runs one action on many duplicates: requests of at most {@link maxModelsPerAction}, one after
 * another (each all or nothing); stops at the first refusal, saying how many were done.
 */
export async function runDuplicateAction(
  action: DuplicateAction,
  modelIds: readonly string[],
  onProgress: (done: number) => void,
): Promise<number> {
  let done = 0;
  for (let i = 0; i < modelIds.length; i += maxModelsPerAction) {
    const slice = modelIds.slice(i, i + maxModelsPerAction);
    await apiClient().request(`${decisions}/actions`, {
      method: 'POST',
      body: { ...action, modelIds: slice },
      schema: duplicateActionResponseSchema,
    });
    done += slice.length;
    onProgress(done);
  }
  return done;
}

export function useDuplicateAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      action,
      modelIds,
      onProgress,
    }: {
      action: DuplicateAction;
      modelIds: readonly string[];
      onProgress: (done: number) => void;
    }) => runDuplicateAction(action, modelIds, onProgress),
    // Models moved, tagged or deleted: every list that shows them, and the report's list of what is left.
    onSettled: () => queryClient.invalidateQueries(),
  });
}
