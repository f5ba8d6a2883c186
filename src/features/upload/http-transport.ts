// The engine's Transport on top of src/api: fetch (through the API client) for the JSON calls,
// XMLHttpRequest for the PUT of the bytes, because only it reports upload progress.
import { format as formatRange } from 'content-range';
import { errorCodes } from '../../contract/errors';
import { createModelsResponseSchema, type CreateModelsRequest } from '../../contract/models';
import { deleteModel, fetchModels } from '../../api/models';
import { ApiError, apiClient, clientErrorCodes } from '../../api/client';
import { findStoredPaths } from '../../api/stored-paths';
import { withAskedPaths } from '../../api/published-answers';
import { parseRetryAfter, TransportError, type CreatedModel, type ModelRecord, type PutOptions, type Transport } from './engine/transport';

const putMessages: Record<number, string> = {
  403: 'The upload address was refused (it may have expired).',
  404: 'The upload address does not exist any more.',
  413: 'The file is too large for the service.',
  429: 'Too many uploads at once; trying again shortly.',
};

function putErrorCode(status: number): string {
  if (status === 0) return clientErrorCodes.network;
  if (status === 403) return errorCodes.forbidden;
  if (status === 404) return errorCodes.notFound;
  if (status === 413) return errorCodes.tooLarge;
  if (status === 429) return errorCodes.rateLimited;
  return status >= 500 ? errorCodes.internal : `http_${status}`;
}

function abortError(): DOMException {
  return new DOMException('The upload was stopped.', 'AbortError');
}

/** Addresses whose PUT broke off: the next attempt asks how much arrived and sends only the rest. */
const interrupted = new Set<string>();

/**
 * PUT `body` to a signed address with its headers, reporting bytes sent. After a dropped
 * connection the engine's next attempt goes on where the bytes stopped arriving, where the
 * storage keeps them (the service's own addresses: HEAD answers `Upload-Offset`, the rest goes
 * with `Content-Range`); anywhere else it sends the whole file again.
 */
export async function putWithXhr(url: string, headers: Record<string, string>, body: Blob, options: PutOptions): Promise<void> {
  const offset = interrupted.has(url) ? await arrivedBytes(url, headers, body.size, options.signal) : 0;
  const resumed =
    offset > 0
      ? { ...headers, 'content-range': formatRange({ unit: 'bytes', start: offset, end: body.size - 1, size: body.size })! }
      : headers;
  try {
    await sendWithXhr(url, resumed, offset > 0 ? body.slice(offset) : body, offset, body.size, options);
    interrupted.delete(url);
  } catch (error) {
    if (error instanceof TransportError && error.status === 0) interrupted.add(url);
    throw error;
  }
}

/** Bytes of `url`'s upload the storage kept (0: none, or it cannot say). */
async function arrivedBytes(url: string, headers: Record<string, string>, size: number, signal: AbortSignal): Promise<number> {
  try {
    const head = await fetch(url, { method: 'HEAD', headers, signal, cache: 'no-store' });
    const arrived = Number(head.headers.get('upload-offset'));
    return head.ok && Number.isInteger(arrived) && arrived > 0 && arrived < size ? arrived : 0;
  } catch {
    return 0;
  }
}

function sendWithXhr(
  url: string,
  headers: Record<string, string>,
  body: Blob,
  offset: number,
  total: number,
  options: PutOptions,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) {
      reject(abortError());
      return;
    }
    const xhr = new XMLHttpRequest();
    const onAbort = () => xhr.abort();
    const done = () => options.signal.removeEventListener('abort', onAbort);
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      options.onProgress?.(offset + event.loaded, total);
    };
    xhr.onload = () => {
      done();
      if (xhr.status >= 200 && xhr.status < 300) {
        options.onProgress?.(total, total);
        resolve();
        return;
      }
      const retryAfterMs = parseRetryAfter(xhr.getResponseHeader('retry-after'));
      const message =
        putMessages[xhr.status] ??
        (xhr.status >= 500 ? `The storage had a problem (HTTP ${xhr.status}).` : `The upload was refused (HTTP ${xhr.status}).`);
      reject(new TransportError(xhr.status, putErrorCode(xhr.status), message, retryAfterMs));
    };
    xhr.onerror = () => {
      done();
      reject(new TransportError(0, clientErrorCodes.network, 'The upload could not reach the storage. Check your connection.'));
    };
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => {
      done();
      reject(abortError());
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    xhr.send(body);
  });
}

/**
 * POST /v2/models?createMissingFolders=...: at most 100 records, each with its signed upload
 * address (the contract's schema accepts both answer shapes), in request order.
 * (Here rather than in src/api/models.ts so it stays out of the first route's bundle.)
 */
export async function createModels(models: CreateModelsRequest['models'], createMissingFolders: boolean) {
  const data = await apiClient().request('/v2/models', {
    method: 'POST',
    query: { createMissingFolders: createMissingFolders ? 'true' : undefined },
    body: { models } satisfies CreateModelsRequest,
    schema: createModelsResponseSchema,
    // A deployment of the published API does not answer paths: they are the ones asked for, in order.
    prepare: (body) => withAskedPaths(body, models),
  });
  return data.models;
}

/** Filter expression `id(in('a','b'))`, quotes doubled. */
export function idInFilter(ids: readonly string[]): string {
  return `id(in(${ids.map((id) => `'${id.replace(/'/g, "''")}'`).join(',')}))`;
}

function toRecord(model: {
  id: string;
  filePath: string;
  state: string;
  stateReason?: string | null;
  missingParts?: string[] | null;
  isAssembly: boolean;
}): ModelRecord {
  return {
    id: model.id,
    filePath: model.filePath,
    state: model.state,
    stateReason: model.stateReason ?? null,
    missingParts: model.missingParts ?? null,
    isAssembly: model.isAssembly,
  };
}

/** The Transport the upload page gives the engine. */
export function createHttpTransport(put: Transport['put'] = putWithXhr): Transport {
  return {
    async createModels(models, { createMissingFolders }): Promise<CreatedModel[]> {
      const created = await createModels(models, createMissingFolders);
      if (created.length !== models.length) {
        throw new ApiError(
          200,
          clientErrorCodes.invalidResponse,
          `The service created ${created.length} records for ${models.length} files.`,
        );
      }
      return created.map((entry) => ({ model: toRecord(entry.model), uploadUrl: entry.uploadUrl, headers: entry.headers }));
    },
    deleteModel: (id) => deleteModel(id),
    put,
    async listModelsById(ids) {
      if (ids.length === 0) return [];
      // Without a query client: a path the deployment does not send stays the file name (records are matched by id).
      const data = await fetchModels({ filter: idInFilter(ids), perPage: 100 });
      return data.models.map(toRecord);
    },
    storedPaths: (filePaths) => findStoredPaths(filePaths),
  };
}
