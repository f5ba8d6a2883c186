import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../api/client';
import { createModelsResponseSchema } from '../../../contract/models';
import { isRetryable, parseRetryAfter, toApiError, TransportError } from './transport';

// The engine has no answer schema of its own: the transport parses with the contract's.
describe("the contract's createModelsResponseSchema, as the transport uses it", () => {
  const model = {
    id: 'm1',
    name: 'b.stl',
    filePath: 'a/b.stl',
    fileName: 'b.stl',
    fileType: 'stl',
    folderId: 1,
    isAssembly: false,
    state: 'incomplete-upload',
    metadata: [],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
  const headers = { 'x-sig': 'abc' };
  const parse = (entry: object) => createModelsResponseSchema.parse({ models: [entry] }).models;

  it('accepts {model, uploadUrl, headers}', () => {
    expect(parse({ model, uploadUrl: 'https://u/1', headers })).toEqual([
      { model: expect.objectContaining({ id: 'm1', state: 'incomplete-upload' }), uploadUrl: 'https://u/1', headers },
    ]);
  });

  it('accepts {model, uploadInfo: {uploadUrl, headers}} and both at once', () => {
    expect(parse({ model, uploadInfo: { uploadUrl: 'https://u/2', headers } })[0]).toMatchObject({ uploadUrl: 'https://u/2', headers });
    expect(parse({ model, uploadUrl: 'https://u/3', headers, uploadInfo: { uploadUrl: 'https://u/3', headers } })[0]).toMatchObject({
      uploadUrl: 'https://u/3',
    });
  });

  it('rejects an entry without an upload address', () => {
    expect(createModelsResponseSchema.safeParse({ models: [{ model }] }).success).toBe(false);
  });
});

describe('errors', () => {
  it('parses Retry-After in seconds or as a date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('treats network errors, 408, 429 and 5xx as retryable', () => {
    expect([0, 408, 429, 500, 503].every((s) => isRetryable(new ApiError(s, 'x', 'x')))).toBe(true);
    expect([400, 403, 404, 409, 413].some((s) => isRetryable(new ApiError(s, 'x', 'x')))).toBe(false);
    expect(toApiError(new TypeError('Failed to fetch')).status).toBe(0);
    const t = new TransportError(429, 'rate_limited', 'slow down', 2000);
    expect(t).toBeInstanceOf(ApiError);
    expect(toApiError(t)).toBe(t);
  });
});
