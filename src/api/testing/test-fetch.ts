// Test-only: what app tests replace is the network, nothing else. A JSON answer, and a stubbed
// fetch the API client is pointed at (fixed token). Undo with `vi.unstubAllGlobals()`.
import { vi } from 'vitest';
import { configureApiClient } from '../client';

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function stubFetch(handler: (url: URL, init: RequestInit | undefined) => Response | Promise<Response>) {
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => handler(new URL(String(input)), init));
  vi.stubGlobal('fetch', fetchMock);
  configureApiClient({
    baseUrl: 'http://localhost:8080',
    auth: { getAccessToken: async () => 'tok', renew: async () => null, signIn: () => undefined },
  });
  return fetchMock;
}
