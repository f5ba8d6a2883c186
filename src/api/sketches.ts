import { keepPreviousData, queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { imageMatchesResponseSchema, type ImageMatchesResponse, type SketchSearchRequest } from '../contract/images';
import { apiClient } from './client';
import { completingModels } from './folders';

export interface SketchMatchParams {
  /** The drawing as a `data:` address or base64 (PNG, JPEG or WebP). */
  image: string;
  filename?: string;
  /**
   * Names the drawing in the cache key (a counter of searches made): the drawing itself is large
   * and only changes when the user searches again.
   */
  drawingKey: string;
  page?: number;
  perPage?: number;
  /** A filter expression (contract/filter.ts `formatFilter`). */
  filter?: string;
  threshold?: number;
}

/** POST /v2/sketches/model-matches: models that look like the drawing, one page. */
export async function fetchSketchMatches(
  { image, filename, page, perPage, filter, threshold }: SketchMatchParams,
  signal?: AbortSignal,
  client?: QueryClient,
): Promise<ImageMatchesResponse> {
  const body: SketchSearchRequest = { image, ...(filename ? { filename } : {}) };
  return apiClient().request('/v2/sketches/model-matches', {
    method: 'POST',
    query: { page, perPage, filter, threshold },
    body,
    schema: imageMatchesResponseSchema,
    prepare: completingModels(client),
    signal,
  });
}

export const sketchQueries = {
  all: () => ['sketches'] as const,
  modelMatches: (params: SketchMatchParams) => {
    const { image: _, ...key } = params;
    return queryOptions({
      queryKey: [...sketchQueries.all(), 'model-matches', key] as const,
      queryFn: ({ signal, client }) => fetchSketchMatches(params, signal, client),
      // A search's results change only as models are added; a drawing searched again gets a new key.
      staleTime: 60_000,
      // A refused drawing (400) is not retried: the same drawing is refused again.
      retry: false,
    });
  },
};

/** Matches for the searched drawing; nothing is asked until there is one. Keeps the last page on screen while the next loads. */
export function useSketchMatches(params: SketchMatchParams | null) {
  return useQuery({
    ...sketchQueries.modelMatches(params ?? { image: '', drawingKey: '' }),
    enabled: params !== null,
    placeholderData: keepPreviousData,
  });
}
