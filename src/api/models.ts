import { useState } from 'react';
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  assemblyTreeResponseSchema,
  isSettled,
  MAX_MODELS_PER_REQUEST,
  searchableStates,
  modelListResponseSchema,
  modelResponseSchema,
  sourceFileResponseSchema,
  stateReportResponseSchema,
  whereUsedResponseSchema,
  type StateReport,
  viewerFileResponseSchema,
  type Model,
  type ModelListResponse,
  type UpdateModelRequest,
} from '../contract/models';
import { ApiError, apiClient } from './client';
import { completingModels, folderQueries } from './folders';
import { completeAssemblyTree, unnamedTreeIds } from './published-answers';
import { filterBuilder, formatFilter } from '../contract/filter';
import type { UpAxis } from '../contract/file-types';

export interface ModelListParams {
  page?: number;
  perPage?: number;
  /** Free text over name and filePath. */
  search?: string;
  /** A filter expression; build it with `filterBuilder` + `formatFilter` (contract/filter.ts). */
  filter?: string;
  /** e.g. `-createdAt` (contract/order.ts `formatOrder`). */
  order?: string;
}

const path = '/v2/models';
const modelPath = (id: string) => `${path}/${encodeURIComponent(id)}`;

/** How often a model that is still being processed is asked for again. */
export const modelPollMs = 2000;
/** Lists with unsettled models on screen refresh more slowly: one request for the whole page. */
export const modelListPollMs = 5000;
/** The state counts of a folder while some of its models are still being worked on. */
export const stateReportPollMs = 5000;
/**
 * Viewer-file addresses are signed and expire; keep them well below their lifetime so a
 * preview never starts with an address that is about to stop working.
 */
export const viewerFileStaleMs = 5 * 60_000;

/**
 * Polling as a function of the data, not a timer of the page's: poll while the state is not
 * settled; states this app does not know count as still working.
 */
export function modelRefetchInterval(model: Model | undefined): number | false {
  if (!model) return false;
  return isSettled(model.state) ? false : modelPollMs;
}

export function modelListRefetchInterval(data: ModelListResponse | undefined): number | false {
  if (!data) return false;
  return data.models.some((m) => !isSettled(m.state)) ? modelListPollMs : false;
}

export async function fetchModels(params: ModelListParams, signal?: AbortSignal, client?: QueryClient): Promise<ModelListResponse> {
  return apiClient().request(path, {
    query: { page: params.page, perPage: params.perPage, search: params.search, filter: params.filter, order: params.order },
    schema: modelListResponseSchema,
    prepare: completingModels(client),
    signal,
  });
}

export async function fetchModel(id: string, signal?: AbortSignal, client?: QueryClient): Promise<Model> {
  const data = await apiClient().request(modelPath(id), { schema: modelResponseSchema, prepare: completingModels(client), signal });
  return data.model;
}

export async function deleteModel(id: string): Promise<void> {
  await apiClient().request(modelPath(id), { method: 'DELETE' });
}

/**
 * Deletes models, one request per {@link MAX_MODELS_PER_REQUEST} (each all or nothing). Reports
 * how many are gone as it goes; a failed request stops there, and the error says how many went.
 */
export async function deleteModels(ids: readonly string[], onProgress?: (deleted: number) => void): Promise<void> {
  for (let start = 0; start < ids.length; start += MAX_MODELS_PER_REQUEST) {
    try {
      await apiClient().request('/v2/models', { method: 'DELETE', query: { ids: ids.slice(start, start + MAX_MODELS_PER_REQUEST) } });
    } catch (error) {
      if (start === 0 || !(error instanceof ApiError)) throw error;
      throw new ApiError(error.status, error.code, `${start} of ${ids.length} were deleted; the rest were not: ${error.message}`);
    }
    onProgress?.(Math.min(ids.length, start + MAX_MODELS_PER_REQUEST));
  }
}

export async function reprocessModel(id: string): Promise<Model> {
  const data = await apiClient().request(`${modelPath(id)}/reprocess`, {
    method: 'POST',
    schema: modelResponseSchema,
    prepare: completingModels(),
  });
  return data.model;
}

export async function fetchViewerFile(id: string, signal?: AbortSignal): Promise<string> {
  const data = await apiClient().request(`${modelPath(id)}/viewer-file`, { schema: viewerFileResponseSchema, signal });
  return data.viewerFile;
}

/** Models per state in a folder and its subfolders (or the whole tenant without one). */
export async function fetchStateReport(folderId: number | null, signal?: AbortSignal): Promise<StateReport> {
  return apiClient().request('/v2/models/state-report', {
    query: { folderIds: folderId ?? undefined },
    schema: stateReportResponseSchema,
    signal,
  });
}

/** A short-lived address that downloads the file as it was uploaded. */
export async function fetchSourceFile(id: string): Promise<string> {
  const data = await apiClient().request(`${modelPath(id)}/source-file`, { schema: sourceFileResponseSchema });
  return data.sourceFile;
}

export async function fetchAssemblyTree(id: string, signal?: AbortSignal) {
  return apiClient().request(`${modelPath(id)}/assembly-tree`, {
    schema: assemblyTreeResponseSchema,
    // The published tree names no node: its models' names are looked up, 100 at a time.
    prepare: async (body) => {
      const ids = unnamedTreeIds(body);
      const names = new Map<string, string>();
      for (let start = 0; start < ids.length; start += 100) {
        const page = await fetchModels(
          { filter: formatFilter([filterBuilder.in('id', ids.slice(start, start + 100))]), perPage: 100 },
          signal,
        );
        for (const m of page.models) names.set(m.id, m.name);
      }
      return ids.length > 0 ? completeAssemblyTree(body, names) : body;
    },
    signal,
  });
}

/** The assemblies that use a model: by reference in their tree, or by shape (part-in-part). */
export async function fetchWhereUsed(id: string, signal?: AbortSignal) {
  return apiClient().request(`${modelPath(id)}/where-used`, { schema: whereUsedResponseSchema, signal });
}

/** An assembly's flattened part list as a CSV file's text (name, path, quantity, state, units). */
export function fetchPartListCsv(id: string): Promise<string> {
  return apiClient().request(`${modelPath(id)}/part-list`, { query: { format: 'csv' }, text: true });
}

export interface SetMetadataInput {
  modelId: string;
  metadataKeyId: number;
  value: string;
}

/** The answer's body (if any) is not read: the model is fetched again afterwards. */
export async function setModelMetadata({ modelId, metadataKeyId, value }: SetMetadataInput): Promise<void> {
  await apiClient().request(`${modelPath(modelId)}/metadata/${metadataKeyId}`, { method: 'PUT', body: { value } });
}

export async function deleteModelMetadata({ modelId, metadataKeyId }: Omit<SetMetadataInput, 'value'>): Promise<void> {
  await apiClient().request(`${modelPath(modelId)}/metadata/${metadataKeyId}`, { method: 'DELETE' });
}

export const modelQueries = {
  all: () => ['models'] as const,
  lists: () => [...modelQueries.all(), 'list'] as const,
  list: (params: ModelListParams = {}) =>
    queryOptions({
      queryKey: [...modelQueries.lists(), params] as const,
      queryFn: ({ signal, client }) => fetchModels(params, signal, client),
      refetchInterval: (query) => modelListRefetchInterval(query.state.data),
    }),
  details: () => [...modelQueries.all(), 'detail'] as const,
  detail: (id: string) =>
    queryOptions({
      queryKey: [...modelQueries.details(), id] as const,
      queryFn: ({ signal, client }) => fetchModel(id, signal, client),
      refetchInterval: (query) => modelRefetchInterval(query.state.data),
    }),
  /** Below the model's detail key, so invalidating the model (e.g. after reprocessing) renews it too. */
  viewerFile: (id: string) =>
    queryOptions({
      queryKey: [...modelQueries.details(), id, 'viewer-file'] as const,
      queryFn: ({ signal }) => fetchViewerFile(id, signal),
      staleTime: viewerFileStaleMs,
      gcTime: viewerFileStaleMs,
    }),
  /** Below the lists: whatever renews the lists (uploads, deletes) renews the counts too. */
  stateReport: (folderId: number | null) =>
    queryOptions({
      queryKey: [...modelQueries.lists(), 'state-report', folderId] as const,
      queryFn: ({ signal }) => fetchStateReport(folderId, signal),
      refetchInterval: (query) => (Object.keys(query.state.data?.states ?? {}).some((s) => !isSettled(s)) ? stateReportPollMs : false),
    }),
  /** Below the model: read again with it (not with the lists, which an upload renews every second). */
  whereUsed: (id: string) =>
    queryOptions({
      queryKey: [...modelQueries.details(), id, 'where-used'] as const,
      queryFn: ({ signal }) => fetchWhereUsed(id, signal),
    }),
  assemblyTree: (id: string) =>
    queryOptions({
      queryKey: [...modelQueries.details(), id, 'assembly-tree'] as const,
      queryFn: ({ signal }) => fetchAssemblyTree(id, signal),
    }),
};

export function useModels(params: ModelListParams, options: { enabled?: boolean } = {}) {
  return useQuery({ ...modelQueries.list(params), enabled: options.enabled ?? true, placeholderData: (previous) => previous });
}

export function useModel(id: string) {
  return useQuery(modelQueries.detail(id));
}

/**
 * The viewer GLB's address. A model from this service carries a signed one; it is used while it
 * has a minute left, so a page of previews needs no request per model. Otherwise it is asked for.
 */
export function useViewerFile(model: Pick<Model, 'id' | 'viewerFile'>, enabled: boolean) {
  const carried = usableAddress(model.viewerFile);
  const asked = useQuery({ ...modelQueries.viewerFile(model.id), enabled: enabled && !carried });
  const { data, isError, isFetching, error, refetch } = asked;
  return carried && enabled
    ? { data: carried, isError: false, isFetching: false, error: null, refetch }
    : { data, isError, isFetching, error, refetch };
}

/**
 * The viewer GLB's address for a preview, asked for once `enabled`: the first one is kept, because
 * a re-signed address of the same file must not reload the preview. Null when it cannot be had.
 */
export function useKeptViewerFile(model: Pick<Model, 'id' | 'viewerFile'>, enabled: boolean): string | null | undefined {
  const viewerFile = useViewerFile(model, enabled);
  const [first, setFirst] = useState<string | undefined>(undefined);
  if (viewerFile.data && !first) setFirst(viewerFile.data);
  return viewerFile.isError ? null : first;
}

/** The model's kept viewer address (useKeptViewerFile) once `enabled`; null for a model without geometry. */
export function useKeptViewerUrl(model: Model, enabled: boolean): string | null | undefined {
  const hasGeometry = (searchableStates as readonly string[]).includes(model.state);
  const url = useKeptViewerFile(model, enabled && hasGeometry);
  return hasGeometry ? url : null;
}

/** A signed address whose `expires` (unix seconds) is at least a minute away; one without it is taken as it is. */
export function usableAddress(url: string | null | undefined, nowMs = Date.now()): string | undefined {
  if (!url) return undefined;
  let expires: string | null;
  try {
    expires = new URL(url).searchParams.get('expires');
  } catch {
    return undefined;
  }
  return expires === null || Number(expires) * 1000 - nowMs > 60_000 ? url : undefined;
}

export function useStateReport(folderId: number | null) {
  return useQuery({ ...modelQueries.stateReport(folderId), placeholderData: (previous) => previous });
}

export function useWhereUsed(id: string, enabled: boolean) {
  return useQuery({ ...modelQueries.whereUsed(id), enabled });
}

export function useAssemblyTree(id: string, enabled: boolean) {
  return useQuery({ ...modelQueries.assemblyTree(id), enabled });
}

export function useDeleteModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteModel,
    onSuccess: async (_data, id) => {
      const gone = modelQueries.detail(id).queryKey;
      await queryClient.cancelQueries({ queryKey: gone });
      // The model page is still mounted until it navigates away: mark the model (and its viewer
      // file and tree) stale without asking for them again, which would only answer 404.
      await queryClient.invalidateQueries({ queryKey: gone, refetchType: 'none' });
      // Folder model counts change too.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: modelQueries.lists() }),
        queryClient.invalidateQueries({ queryKey: folderQueries.all() }),
      ]);
    },
  });
}

export async function moveModel(id: string, folderId: number): Promise<Model> {
  const data = await apiClient().request(modelPath(id), {
    method: 'PATCH',
    body: { folderId } satisfies UpdateModelRequest,
    schema: modelResponseSchema,
    prepare: completingModels(),
  });
  return data.model;
}

/** Stands a model on another axis; it is processed again (its thumbnail is drawn standing), so it polls like an upload. */
export function useSetUpAxis() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, upAxis }: { id: string; upAxis: UpAxis }) =>
      (
        await apiClient().request(modelPath(id), {
          method: 'PATCH',
          body: { upAxis } satisfies UpdateModelRequest,
          schema: modelResponseSchema,
          prepare: completingModels(),
        })
      ).model,
    onSuccess: (model) => {
      queryClient.setQueryData(modelQueries.detail(model.id).queryKey, model);
      return queryClient.invalidateQueries({ queryKey: modelQueries.lists() });
    },
  });
}

/** Moves a model to another folder; its record, the lists and the folder counts are read again. */
export function useMoveModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, folderId }: { id: string; folderId: number }) => moveModel(id, folderId),
    onSuccess: (model) => {
      queryClient.setQueryData(modelQueries.detail(model.id).queryKey, model);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: modelQueries.lists() }),
        queryClient.invalidateQueries({ queryKey: folderQueries.all() }),
      ]);
    },
  });
}

/** Deletes the selected models; the lists and folder counts are read again whatever happened. */
export function useDeleteModels() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ ids, onProgress }: { ids: readonly string[]; onProgress?: (deleted: number) => void }) => deleteModels(ids, onProgress),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: modelQueries.lists() }),
        queryClient.invalidateQueries({ queryKey: folderQueries.all() }),
      ]),
  });
}

/** Asks for a fresh download address when the user wants the file (addresses expire in minutes). */
export function useSourceFile() {
  return useMutation({ mutationFn: fetchSourceFile });
}

export function useReprocessModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: reprocessModel,
    onSuccess: (model) => {
      queryClient.setQueryData(modelQueries.detail(model.id).queryKey, model);
      // Renews the viewer file and assembly tree (they sit below the detail key) and the lists.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: modelQueries.detail(model.id).queryKey }),
        queryClient.invalidateQueries({ queryKey: modelQueries.lists() }),
      ]);
    },
  });
}

function invalidateModel(queryClient: ReturnType<typeof useQueryClient>, modelId: string) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: modelQueries.detail(modelId).queryKey, exact: true }),
    queryClient.invalidateQueries({ queryKey: modelQueries.lists() }),
  ]);
}

export function useSetModelMetadata() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setModelMetadata,
    onSuccess: (_data, input) => invalidateModel(queryClient, input.modelId),
  });
}

export function useDeleteModelMetadata() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteModelMetadata,
    onSuccess: (_data, input) => invalidateModel(queryClient, input.modelId),
  });
}
