import { keepPreviousData, queryOptions, useQueries, useQuery, type QueryClient } from '@tanstack/react-query';
import {
  clustersFromReport,
  groupedMatchReportSchema,
  matchesResponseSchemaFor,
  matchKinds,
  type ContainmentDirection,
  type ContainmentMatchesResponse,
  type FolderDuplicatesResponse,
  type MatchKind,
  type SimilarityMatchesResponse,
} from '../contract/matches';
import { ApiError, apiClient } from './client';
import type { DeviationReportRequest } from '../contract/deviation-report';
import { completingModels } from './folders';

export interface MatchListParams {
  /** 0..100; the service's default is 0, the app's 80. */
  threshold: number;
  page?: number;
  perPage?: number;
  /** A filter expression (contract/filter.ts `formatFilter`). */
  filter?: string;
  /** e.g. `-forwardMatchPercentage` (contract/order.ts `formatOrder`); unset = best score first. */
  order?: string;
  /** Part-in-part: its assemblies (`contains`) or its parts (`contained`); unset = either. */
  direction?: ContainmentDirection;
}

export type MatchesResponse = SimilarityMatchesResponse | ContainmentMatchesResponse;

/** While the query model is still being processed the service answers 409; asked again at this pace. */
export const matchesNotReadyPollMs = 3000;

const matchesPath = (modelId: string, kind: MatchKind) => `/v2/models/${encodeURIComponent(modelId)}/${kind}-matches`;

export async function fetchMatches(
  modelId: string,
  kind: MatchKind,
  params: MatchListParams,
  signal?: AbortSignal,
  client?: QueryClient,
): Promise<MatchesResponse> {
  return apiClient().request(matchesPath(modelId, kind), {
    query: {
      threshold: params.threshold,
      page: params.page,
      perPage: params.perPage,
      filter: params.filter,
      order: params.order,
      direction: params.direction,
    },
    schema: matchesResponseSchemaFor(kind),
    prepare: completingModels(client),
    signal,
  });
}

/** A folder's duplicates (its own models, or with its subfolders'), through the published grouped match report. */
export async function fetchFolderDuplicates(
  folderId: number,
  threshold: number,
  withSubfolders: boolean,
  signal?: AbortSignal,
  client?: QueryClient,
): Promise<FolderDuplicatesResponse> {
  const report = await apiClient().request('/v2/models/grouped-match-report', {
    query: { threshold, folderIds: folderId, includeSubfolders: String(withSubfolders) },
    schema: groupedMatchReportSchema,
    prepare: completingModels(client),
    signal,
  });
  return clustersFromReport(report, threshold);
}

/** The service's "model not ready for matching" answer: the page waits instead of failing. */
export function isNotReady(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409;
}

/** 409 (not finished yet) is retried by polling, not by the query's quick retries. */
function retryUnlessNotReady(failureCount: number, error: Error): boolean {
  if (isNotReady(error)) return false;
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
  return failureCount < 2;
}

export const matchQueries = {
  all: () => ['matches'] as const,
  model: (modelId: string) => [...matchQueries.all(), 'model', modelId] as const,
  lists: (modelId: string, kind: MatchKind) => [...matchQueries.model(modelId), kind] as const,
  list: (modelId: string, kind: MatchKind, params: MatchListParams) =>
    queryOptions({
      queryKey: [...matchQueries.lists(modelId, kind), 'list', params] as const,
      queryFn: ({ signal, client }) => fetchMatches(modelId, kind, params, signal, client),
      retry: retryUnlessNotReady,
      // A model that is not finished yet: keep asking until the service accepts the query.
      refetchInterval: (query) => (isNotReady(query.state.error) ? matchesNotReadyPollMs : false),
    }),
  /** How many matches pass the threshold: one result asked for, `matchCount` read. */
  count: (modelId: string, kind: MatchKind, params: Pick<MatchListParams, 'threshold' | 'filter'>) =>
    queryOptions({
      queryKey: [...matchQueries.lists(modelId, kind), 'count', params] as const,
      queryFn: async ({ signal }) => (await fetchMatches(modelId, kind, { ...params, page: 1, perPage: 1 }, signal)).matchCount,
      retry: retryUnlessNotReady,
      refetchInterval: (query) => (isNotReady(query.state.error) ? matchesNotReadyPollMs : false),
    }),
  folderDuplicates: (folderId: number, threshold: number, withSubfolders: boolean) =>
    queryOptions({
      queryKey: [...matchQueries.all(), 'folder-duplicates', folderId, threshold, withSubfolders] as const,
      queryFn: ({ signal, client }) => fetchFolderDuplicates(folderId, threshold, withSubfolders, signal, client),
    }),
};

/** One page of matches; the previous page stays on screen while the next is fetched (no empty flash). */
export function useMatches(modelId: string, kind: MatchKind, params: MatchListParams, options: { enabled?: boolean } = {}) {
  return useQuery({ ...matchQueries.list(modelId, kind, params), enabled: options.enabled ?? true, placeholderData: keepPreviousData });
}

/** Counts of every kind, each at its own threshold, for the tabs. */
export function useMatchCounts(
  modelId: string,
  thresholds: Record<MatchKind, number>,
  filter: string | undefined,
  options: { enabled?: boolean } = {},
) {
  const results = useQueries({
    queries: matchKinds.map((kind) => ({
      ...matchQueries.count(modelId, kind, { threshold: thresholds[kind], filter }),
      enabled: options.enabled ?? true,
      placeholderData: keepPreviousData,
    })),
  });
  return Object.fromEntries(matchKinds.map((kind, i) => [kind, results[i]!])) as Record<MatchKind, (typeof results)[number]>;
}

export function useFolderDuplicates(folderId: number, threshold: number, withSubfolders: boolean) {
  return useQuery({ ...matchQueries.folderDuplicates(folderId, threshold, withSubfolders), placeholderData: keepPreviousData });
}

/** Most rows a CSV export gathers (10 pages of the largest size the contract allows). */
export const exportRowLimit = 1000;

/** Every match at these settings, page by page, up to {@link exportRowLimit}: what a CSV export writes. */
export async function fetchAllMatches(
  modelId: string,
  kind: MatchKind,
  params: Omit<MatchListParams, 'page' | 'perPage'>,
  signal?: AbortSignal,
) {
  const rows: MatchesResponse['matches'][number][] = [];
  let total = 0;
  for (let page = 1; rows.length < exportRowLimit; page++) {
    const data = await fetchMatches(modelId, kind, { ...params, page, perPage: 100 }, signal);
    total = data.matchCount;
    rows.push(...data.matches);
    if (page >= data.pageData.lastPage || data.matches.length === 0) break;
  }
  return { matches: rows.slice(0, exportRowLimit), matchCount: total };
}

/** The deviation report of a pair as a PDF file (POST /v2/models/{id}/deviation-report). */
export function fetchDeviationReport(modelId: string, body: DeviationReportRequest): Promise<Blob> {
  return apiClient().file(`/v2/models/${encodeURIComponent(modelId)}/deviation-report`, {
    method: 'POST',
    body: { ...body, format: 'pdf' },
  });
}
