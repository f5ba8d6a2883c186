import { describe, expect, it, vi } from 'vitest';
import { loadStartup, parseConfig, resolveUrl } from './config';

const origin = 'http://localhost:8080';
const good = { baseUrl: '/', authUrl: '/', clientId: 'workbench-app', scopes: 'openid profile tenant roles offline_access' };

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('resolveUrl', () => {
  it('resolves relative URLs against the origin, without a trailing slash', () => {
    expect(resolveUrl('/', origin)).toBe('http://localhost:8080');
    expect(resolveUrl('/api/', origin)).toBe('http://localhost:8080/api');
    expect(resolveUrl('api', origin)).toBe('http://localhost:8080/api');
  });
  it('keeps absolute URLs', () => {
    expect(resolveUrl('https://auth.example.com/', origin)).toBe('https://auth.example.com');
    expect(resolveUrl('https://api.example.com/tenant', origin)).toBe('https://api.example.com/tenant');
  });
  it('rejects non-http schemes', () => {
    expect(() => resolveUrl('javascript:alert(1)', origin)).toThrow(/http/);
  });
});

describe('parseConfig', () => {
  it('accepts the shipped relative config and derives issuer and token URL', () => {
    const result = parseConfig(good, origin);
    expect(result).toEqual({
      ok: true,
      config: {
        origin,
        baseUrl: 'http://localhost:8080',
        authUrl: 'http://localhost:8080',
        issuer: 'http://localhost:8080/oauth2/default',
        tokenUrl: 'http://localhost:8080/oauth2/default/v1/token',
        clientId: 'workbench-app',
        scopes: 'openid profile tenant roles offline_access',
        uploadMaxBytes: 4 * 1024 * 1024 * 1024,
      },
    });
  });

  it('signs in at another provider when the service names its issuer; client credentials stay with authUrl', () => {
    const result = parseConfig({ ...good, issuer: 'https://login.example.com/realms/acme/' }, origin);
    expect(result.ok && result.config.issuer).toBe('https://login.example.com/realms/acme');
    expect(result.ok && result.config.tokenUrl).toBe('http://localhost:8080/oauth2/default/v1/token');
    expect(parseConfig({ ...good, issuer: 'ftp://x' }, origin).ok).toBe(false);
  });

  it('names every missing or wrong field', () => {
    const result = parseConfig({ baseUrl: '/', clientId: 3 }, origin);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.some((i) => i.startsWith('authUrl:'))).toBe(true);
    expect(result.issues.some((i) => i.startsWith('clientId:'))).toBe(true);
    expect(result.issues.some((i) => i.startsWith('scopes:'))).toBe(true);
  });

  it('rejects a URL field that is not http(s)', () => {
    const result = parseConfig({ ...good, authUrl: 'ftp://example.com' }, origin);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues[0]).toMatch(/^authUrl:/);
  });
});

describe('loadStartup', () => {
  it('loads the config and checks the identity provider discovery document', async () => {
    const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      if (url === `${origin}/config.json`) return json(good);
      if (url === `${origin}/oauth2/default/.well-known/openid-configuration`) return json({ issuer: `${origin}/oauth2/default` });
      return new Response('nope', { status: 404 });
    });
    const result = await loadStartup(origin, fetchMock as typeof fetch);
    expect(result.ok).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('reports a config file that cannot be fetched', async () => {
    const result = await loadStartup(origin, (async () => new Response('', { status: 404, statusText: 'Not Found' })) as typeof fetch);
    expect(result).toEqual({
      ok: false,
      problem: { kind: 'config-unreachable', url: `${origin}/config.json`, detail: 'HTTP 404 Not Found' },
    });
  });

  it('reports a config file that is not JSON', async () => {
    const result = await loadStartup(origin, (async () => new Response('<html>', { status: 200 })) as typeof fetch);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.kind).toBe('config-invalid');
  });

  it('reports an invalid config with its issues', async () => {
    const result = await loadStartup(origin, (async () => json({ baseUrl: '/' })) as typeof fetch);
    expect(result.ok).toBe(false);
    if (!result.ok && result.problem.kind === 'config-invalid') expect(result.problem.issues.length).toBeGreaterThan(0);
    else throw new Error('expected config-invalid');
  });

  it('reports an unreachable identity provider', async () => {
    const fetchMock = async (input: RequestInfo | URL) => {
      if (String(input).endsWith('/config.json')) return json({ ...good, authUrl: 'https://idp.example.com' });
      throw new TypeError('Failed to fetch');
    };
    const result = await loadStartup(origin, fetchMock as typeof fetch);
    expect(result).toEqual({
      ok: false,
      problem: {
        kind: 'identity-unreachable',
        url: 'https://idp.example.com/oauth2/default/.well-known/openid-configuration',
        detail: 'Failed to fetch',
      },
    });
  });

  it('reports an identity provider that answers with an error', async () => {
    const fetchMock = async (input: RequestInfo | URL) =>
      String(input).endsWith('/config.json') ? json(good) : new Response('down', { status: 503 });
    const result = await loadStartup(origin, fetchMock as typeof fetch);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatchObject({ kind: 'identity-unreachable', detail: 'HTTP 503' });
  });
});
