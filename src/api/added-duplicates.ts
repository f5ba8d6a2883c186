import { queryOptions, useQueries, useQuery } from '@tanstack/react-query';
import { addedDuplicatesResponseSchema, type AddedDuplicatesResponse } from '../contract/matches';
import { apiClient } from './client';

/**
 * Models asked about in one request by the upload page: a file that finishes is asked about with at
 * most this many − 1 others (npm run bench:search: 20 at once took 0.8–1.2 s at 20,000 models, too
 * close to the 2 s the warning may take).
 */
export const ADDED_DUPLICATES_CHUNK = 5;

export interface AddedDuplicatesParams {
  modelIds?: readonly string[];
  /** ISO time: the models created since then. */
  since?: string;
  /** With `since`: the folder and its subfolders. */
  folderId?: number;
  page?: number;
  perPage?: number;
}

export function fetchAddedDuplicates(params: AddedDuplicatesParams, signal?: AbortSignal): Promise<AddedDuplicatesResponse> {
  return apiClient().request('/v2/models/added-duplicates', {
    query: {
      modelIds: params.modelIds?.length ? params.modelIds.join(',') : undefined,
      since: params.since,
      folderIds: params.folderId,
      page: params.page,
      perPage: params.perPage,
    },
    schema: addedDuplicatesResponseSchema,
    signal,
  });
}

/**
 * Not below the model lists: an upload renews those every second, and each of these answers costs
 * a part-to-part query per model. A chunk is asked again when a file joins it.
 */
export const addedDuplicateQueries = {
  of: (params: AddedDuplicatesParams) =>
    queryOptions({
      queryKey: ['added-duplicates', params] as const,
      queryFn: ({ signal }) => fetchAddedDuplicates(params, signal),
    }),
};

export type AddedDuplicate = AddedDuplicatesResponse['results'][number];

/**
 * The duplicates already in the library of the models given, by model id. Asked in fixed chunks
 * of the ids in the order given, so a newly finished file asks again only about its own chunk.
 */
export function useAddedDuplicatesOf(modelIds: readonly string[]): { byModel: ReadonlyMap<string, AddedDuplicate>; error: unknown } {
  const chunks: string[][] = [];
  for (let i = 0; i < modelIds.length; i += ADDED_DUPLICATES_CHUNK) chunks.push(modelIds.slice(i, i + ADDED_DUPLICATES_CHUNK));
  return useQueries({
    queries: chunks.map((ids) => ({
      ...addedDuplicateQueries.of({ modelIds: ids, perPage: ADDED_DUPLICATES_CHUNK }),
      placeholderData: (previous: AddedDuplicatesResponse | undefined) => previous,
    })),
    combine: byModel,
  });
}

/** A stable function, so the combined answer is rebuilt only when an answer changes (the rows are memoised on it). */
function byModel(answers: { data?: AddedDuplicatesResponse | undefined; error: unknown }[]) {
  return {
    byModel: new Map(answers.flatMap((a) => a.data?.results ?? []).map((r) => [r.model.id, r])) as ReadonlyMap<string, AddedDuplicate>,
    error: answers.find((a) => a.error)?.error ?? null,
  };
}

/** A folder's models (with subfolders) added since a time although the library held the same part. */
export function useAddedDuplicatesSince(folderId: number, since: string, page: number, enabled = true) {
  return useQuery({
    ...addedDuplicateQueries.of({ folderId, since, page, perPage: 20 }),
    enabled,
    placeholderData: (previous) => previous,
  });
}
