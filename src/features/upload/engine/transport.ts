// What the engine needs from the outside world. The upload page implements it on top of
// src/api (fetch for the JSON calls, XMLHttpRequest for PUT so it gets byte progress);
// tests implement it with an in-memory fake service.
import { ApiError, clientErrorCodes } from '../../../api/client';
import type { CreateModelsRequest, Model } from '../../../contract/models';

export { ApiError };

/**
 * The parts of the contract's Model the engine reads. Answers are parsed with the contract's
 * schemas (src/contract/models.ts) by the transport; the engine needs no shapes of its own.
 */
export type ModelRecord = Pick<Model, 'id' | 'state'> & Partial<Pick<Model, 'filePath' | 'stateReason' | 'missingParts' | 'isAssembly'>>;

/** One record of POST /v2/models (the contract's request item). */
export type CreateModelInput = CreateModelsRequest['models'][number];

/** One created model with its signed upload address, whatever shape the service answered in. */
export interface CreatedModel {
  model: ModelRecord;
  uploadUrl: string;
  /** Every one of these must be sent with the PUT. */
  headers: Record<string, string>;
}

export interface PutOptions {
  /** Bytes sent so far, as the upload goes. */
  onProgress?: (loaded: number, total: number) => void;
  signal: AbortSignal;
}

/**
 * Every method rejects with an ApiError (status 0 = the service could not be reached) or with
 * an AbortError DOMException when its signal was aborted.
 */
export interface Transport {
  /** POST /v2/models?createMissingFolders=..., at most 100 models; entries in request order. */
  createModels(models: CreateModelInput[], options: { createMissingFolders: boolean }): Promise<CreatedModel[]>;
  /** DELETE /v2/models/{id}. A 404 may resolve or reject; the engine treats it as done. */
  deleteModel(id: string): Promise<void>;
  /** PUT {uploadUrl} with every header, body = the file. */
  put(url: string, headers: Record<string, string>, body: Blob, options: PutOptions): Promise<void>;
  /** GET /v2/models?filter=id(in(...))&perPage=100 — at most 100 ids per call. */
  listModelsById(ids: string[]): Promise<ModelRecord[]>;
  /** Which of these paths (answered in lower case) already hold a model with its file. */
  storedPaths(filePaths: readonly string[]): Promise<Set<string>>;
}

/** An ApiError that also says how long the service asked us to wait (429/503 Retry-After). */
export class TransportError extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(status, code, message);
  }
}

/** Retry-After header (seconds or an HTTP date) in milliseconds, or undefined. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function isAbortError(error: unknown): boolean {
  return (
    (typeof DOMException !== 'undefined' && error instanceof DOMException && error.name === 'AbortError') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

/** Any rejection as an ApiError (a TypeError from fetch/XHR becomes a network error). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error && error.message ? error.message : 'The upload could not reach the service.';
  return new ApiError(0, clientErrorCodes.network, message);
}

export function retryAfterOf(error: unknown): number | undefined {
  return error instanceof TransportError ? error.retryAfterMs : undefined;
}

/** Network errors, 408, 429 and 5xx are worth another try. */
export function isRetryable(error: ApiError): boolean {
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}
