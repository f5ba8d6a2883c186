import { keepPreviousData, queryOptions, useMutation, useQuery, type QueryClient } from '@tanstack/react-query';
import { apiErrorBodySchema, errorCodeForStatus, errorCodes } from '../contract/errors';
import {
  createImageResponseSchema,
  imageMatchesResponseSchema,
  type CreateImageRequest,
  type ImageMatchesResponse,
} from '../contract/images';
import { ApiError, apiClient, clientErrorCodes } from './client';
import { completingModels } from './folders';

const path = '/v2/images';

export interface ImageMatchParams {
  /** Image ids of one object, 1..10; the service combines them into one search. */
  ids: readonly string[];
  page?: number;
  perPage?: number;
  /** A filter expression (contract/filter.ts `formatFilter`). */
  filter?: string;
  /** Only models scoring at least this much (0–100); `matchCount` counts those. */
  threshold?: number;
}

export interface UploadImageInput {
  file: Blob;
  filename: string;
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
}

/** POST /v2/images: the image's id and its signed upload address. */
export async function createImage(filename: string, signal?: AbortSignal) {
  const data = await apiClient().request(path, {
    method: 'POST',
    body: { filename } satisfies CreateImageRequest,
    schema: createImageResponseSchema,
    signal,
  });
  return data.image;
}

const putFallbacks: Record<number, string> = {
  403: 'The upload address was refused (it may have expired). Remove the image and add it again.',
  409: 'This image was already sent once. Remove it and add it again.',
  413: 'The image is larger than the service takes (10 MiB).',
  415: 'This is not an image the service can read (PNG, JPEG or WebP).',
};

/** The service refuses a bad image at the PUT with the contract's error JSON; its message says why. */
export function putError(status: number, responseText: string): ApiError {
  let body: unknown;
  try {
    body = responseText ? JSON.parse(responseText) : undefined;
  } catch {
    body = undefined;
  }
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) return new ApiError(status, parsed.data.error.code, parsed.data.error.message);
  if (status === 0) return new ApiError(0, clientErrorCodes.network, 'The image could not be sent. Check your connection and try again.');
  const code = errorCodeForStatus(status) ?? (status >= 500 ? errorCodes.internal : `http_${status}`);
  const message =
    putFallbacks[status] ??
    (status >= 500 ? `The service had a problem storing the image (HTTP ${status}).` : `The image was refused (HTTP ${status}).`);
  return new ApiError(status, code, message);
}

/**
 * PUT the bytes to the signed address with every header it came with. XMLHttpRequest rather than
 * fetch because only it reports upload progress.
 */
export function putImage(
  url: string,
  headers: Record<string, string>,
  file: Blob,
  options: Pick<UploadImageInput, 'onProgress' | 'signal'> = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const { signal, onProgress } = options;
    if (signal?.aborted) {
      reject(new DOMException('The upload was stopped.', 'AbortError'));
      return;
    }
    const xhr = new XMLHttpRequest();
    const onAbort = () => xhr.abort();
    const done = () => signal?.removeEventListener('abort', onAbort);
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => onProgress?.(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      done();
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(file.size, file.size);
        resolve();
      } else {
        reject(putError(xhr.status, xhr.responseText));
      }
    };
    xhr.onerror = () => {
      done();
      reject(putError(0, ''));
    };
    xhr.onabort = () => {
      done();
      reject(new DOMException('The upload was stopped.', 'AbortError'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    xhr.send(file);
  });
}

/** The interface's two steps for one image: create it, then PUT the file. Resolves the image id. */
export async function uploadImage({ file, filename, onProgress, signal }: UploadImageInput): Promise<string> {
  const image = await createImage(filename, signal);
  await putImage(image.uploadUrl, image.headers, file, { onProgress, signal });
  return image.id;
}

export async function fetchImageMatches(
  params: ImageMatchParams,
  signal?: AbortSignal,
  client?: QueryClient,
): Promise<ImageMatchesResponse> {
  return apiClient().request(`${path}/model-matches`, {
    query: { id: params.ids, page: params.page, perPage: params.perPage, filter: params.filter, threshold: params.threshold },
    schema: imageMatchesResponseSchema,
    prepare: completingModels(client),
    signal,
  });
}

export const imageQueries = {
  all: () => ['images'] as const,
  matches: () => [...imageQueries.all(), 'model-matches'] as const,
  /** The order of the ids does not change the search, so it does not change the key either. */
  modelMatches: (params: ImageMatchParams) => {
    const key = { ...params, ids: [...params.ids].sort() };
    return queryOptions({
      queryKey: [...imageQueries.matches(), key] as const,
      queryFn: ({ signal, client }) => fetchImageMatches(key, signal, client),
      // Results of a search do not change unless models are added; no need to refetch on focus.
      staleTime: 60_000,
    });
  },
};

/** Matches for the searched images; nothing is asked while there are none. Keeps the last page on screen while the next loads. */
export function useImageMatches(params: ImageMatchParams | null) {
  return useQuery({
    ...imageQueries.modelMatches(params ?? { ids: [] }),
    enabled: params !== null && params.ids.length > 0,
    placeholderData: keepPreviousData,
  });
}

/** One image's upload (create + PUT with progress); the page runs one per image. */
export function useUploadImage() {
  return useMutation({ mutationFn: uploadImage });
}
