import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ApiError, buildUrl, createApiClient, type ApiAuth } from './client';

const baseUrl = 'http://localhost:8080';
const okSchema = z.object({ ok: z.boolean() });

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function makeAuth(overrides: Partial<ApiAuth> = {}) {
  return {
    getAccessToken: vi.fn(async () => 'token-1' as string | null),
    renew: vi.fn(async () => 'token-2' as string | null),
    signIn: vi.fn(),
    ...overrides,
  };
}

function stubFetch(...responses: (Response | Error | DOMException)[]) {
  const fetchMock = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => {
    const next = responses.shift();
    if (!next) throw new Error('unexpected extra request');
    if (!(next instanceof Response)) throw next;
    return next;
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function headersOf(call: unknown[] | undefined): Record<string, string> {
  return (call?.[1] as RequestInit | undefined)?.headers as Record<string, string>;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('buildUrl', () => {
  it('joins base and path and appends query parameters', () => {
    expect(buildUrl('http://h/api/', '/v2/folders', { page: 2, search: undefined, id: ['a', 'b'] })).toBe(
      'http://h/api/v2/folders?page=2&id=a&id=b',
    );
  });
});

describe('api client', () => {
  it('sends the bearer token and accept header and validates the answer', async () => {
    const fetchMock = stubFetch(json({ ok: true }));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/v2/things', { schema: okSchema })).resolves.toEqual({ ok: true });
    expect(fetchMock.mock.calls[0]?.[0]).toBe('http://localhost:8080/v2/things');
    expect(headersOf(fetchMock.mock.calls[0])).toMatchObject({ accept: 'application/json', authorization: 'Bearer token-1' });
  });

  it('sends JSON bodies with a content type', async () => {
    const fetchMock = stubFetch(json({ ok: true }, 201));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await client.request('/client-credentials', { method: 'POST', body: { name: 'x' }, schema: okSchema });
    const init = fetchMock.mock.calls[0]?.[1];
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"name":"x"}');
    expect(headersOf(fetchMock.mock.calls[0])['content-type']).toBe('application/json');
  });

  it('resolves undefined for 204 answers', async () => {
    stubFetch(new Response(null, { status: 204 }));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/client-credentials/abc', { method: 'DELETE' })).resolves.toBeUndefined();
  });

  it('maps the contract error body into ApiError', async () => {
    stubFetch(json({ error: { message: 'name: must not be empty', code: 'invalid_input' } }, 400));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    const error = await client.request('/v2/folders', { schema: okSchema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_input', message: 'name: must not be empty' });
  });

  it('maps 409 conflicts with their code', async () => {
    stubFetch(json({ error: { message: 'A credential with this name already exists.', code: 'conflict' } }, 409));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/client-credentials', { method: 'POST', body: {} })).rejects.toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'A credential with this name already exists.',
    });
  });

  it('maps a non-JSON 502 into a readable ApiError', async () => {
    stubFetch(
      new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html' } }),
    );
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    const error = await client.request('/v2/folders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: 'internal_error' });
    expect((error as ApiError).message).toMatch(/502/);
  });

  it('maps a non-JSON 429 with Retry-After', async () => {
    stubFetch(new Response('slow down', { status: 429, headers: { 'retry-after': '30' } }));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/v2/folders')).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: expect.stringMatching(/30 seconds/),
    });
  });

  it('maps a network failure into status 0 / network_error', async () => {
    stubFetch(new TypeError('Failed to fetch'));
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/v2/folders')).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
      message: expect.stringContaining('http://localhost:8080'),
    });
  });

  it('passes aborts through untouched', async () => {
    const abort = new DOMException('The operation was aborted.', 'AbortError');
    stubFetch(abort);
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/v2/folders')).rejects.toBe(abort);
  });

  it('rejects answers that do not match the schema', async () => {
    stubFetch(json({ ok: 'yes' }));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const client = createApiClient({ baseUrl, auth: makeAuth() });
    await expect(client.request('/v2/things', { schema: okSchema })).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('on 401 renews the token once and retries with the new one', async () => {
    const fetchMock = stubFetch(json({ error: { message: 'expired', code: 'unauthorized' } }, 401), json({ ok: true }));
    const auth = makeAuth();
    const client = createApiClient({ baseUrl, auth });
    await expect(client.request('/v2/things', { schema: okSchema })).resolves.toEqual({ ok: true });
    expect(auth.renew).toHaveBeenCalledTimes(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(headersOf(fetchMock.mock.calls[1]).authorization).toBe('Bearer token-2');
    expect(auth.signIn).not.toHaveBeenCalled();
  });

  it('starts sign-in when the retry is still 401 (no second renewal)', async () => {
    const unauthorized = () => json({ error: { message: 'nope', code: 'unauthorized' } }, 401);
    const fetchMock = stubFetch(unauthorized(), unauthorized());
    const auth = makeAuth();
    const client = createApiClient({ baseUrl, auth });
    await expect(client.request('/v2/things', { schema: okSchema })).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    expect(auth.renew).toHaveBeenCalledTimes(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(auth.signIn).toHaveBeenCalledTimes(1);
  });

  it('starts sign-in when renewal fails', async () => {
    const fetchMock = stubFetch(json({ error: { message: 'expired', code: 'unauthorized' } }, 401));
    const auth = makeAuth({ renew: vi.fn(async () => null) });
    const client = createApiClient({ baseUrl, auth });
    await expect(client.request('/v2/things')).rejects.toMatchObject({ status: 401 });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(auth.signIn).toHaveBeenCalledTimes(1);
  });

  it('renews before the first request when there is no token, and signs in if that fails', async () => {
    const fetchMock = stubFetch();
    const auth = makeAuth({
      getAccessToken: vi.fn(async () => null),
      renew: vi.fn(async () => {
        throw new Error('invalid_grant');
      }),
    });
    const client = createApiClient({ baseUrl, auth });
    await expect(client.request('/v2/things')).rejects.toMatchObject({ status: 401 });
    expect(fetchMock).not.toHaveBeenCalled();
    expect(auth.signIn).toHaveBeenCalledTimes(1);
  });

  it('does not renew twice when the token was just renewed', async () => {
    const fetchMock = stubFetch(json({ error: { message: 'nope', code: 'unauthorized' } }, 401));
    const auth = makeAuth({ getAccessToken: vi.fn(async () => null) });
    const client = createApiClient({ baseUrl, auth });
    await expect(client.request('/v2/things')).rejects.toMatchObject({ status: 401 });
    expect(auth.renew).toHaveBeenCalledTimes(1);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(auth.signIn).toHaveBeenCalledTimes(1);
  });
});
