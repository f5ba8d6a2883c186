import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../api/client';
import { createModelsResponseSchema, isRetryable, parseRetryAfter, toApiError, TransportError } from './transport';

describe('createModelsResponseSchema', () => {
  const model = { id: 'm1', filePath: 'a/b.stl', name: 'b.stl', state: 'incomplete-upload', extra: 1 };
  const headers = { 'x-sig': 'abc' };

  it('accepts {model, uploadUrl, headers}', () => {
    expect(createModelsResponseSchema.parse({ models: [{ model, uploadUrl: 'https://u/1', headers }] })).toEqual([
      { model: expect.objectContaining({ id: 'm1', state: 'incomplete-upload' }), uploadUrl: 'https://u/1', headers },
    ]);
  });

  it('accepts {model, uploadInfo: {uploadUrl, headers}}', () => {
    const [entry] = createModelsResponseSchema.parse({ models: [{ model, uploadInfo: { uploadUrl: 'https://u/2', headers } }] });
    expect(entry).toMatchObject({ uploadUrl: 'https://u/2', headers });
  });

  it('accepts both at once, numeric ids, and rejects an entry without an address', () => {
    const [entry] = createModelsResponseSchema.parse({
      models: [{ model: { ...model, id: 7 }, uploadUrl: 'https://u/3', headers, uploadInfo: { uploadUrl: 'https://u/3', headers } }],
    });
    expect(entry).toMatchObject({ model: { id: '7' }, uploadUrl: 'https://u/3' });
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
