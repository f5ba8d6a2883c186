import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configureApiClient } from '../../api/client';
import { json } from '../../api/testing/test-fetch';
import { ConfigContext, type ResolvedConfig } from '../../ui/config-context';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../../contract/app-config';
import type { ClientCredential } from '../../contract/client-credentials';
import { CredentialsPage } from './credentials-page';

const origin = 'http://localhost:8080';
// What the app resolves from { baseUrl: '/', authUrl: '/', clientId: 'workbench-app', scopes: 'openid' }.
const config: ResolvedConfig = {
  origin,
  baseUrl: origin,
  authUrl: origin,
  issuer: `${origin}/oauth2/default`,
  tokenUrl: `${origin}/oauth2/default/v1/token`,
  clientId: 'workbench-app',
  scopes: 'openid',
  uploadMaxBytes: DEFAULT_UPLOAD_MAX_BYTES,
};

const secret = 'sk_live_only-once_9f8e7d6c5b4a';

interface Options {
  credentials?: ClientCredential[];
  createError?: { status: number; message: string; code: string };
  listFails?: boolean;
}

/** A tiny in-memory /client-credentials behind a stubbed fetch: the only thing replaced. */
function setup({ credentials = [], createError, listFails = false }: Options = {}) {
  const state = { credentials: [...credentials] };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    const headers = init?.headers as Record<string, string>;
    if (headers.authorization !== 'Bearer test-token') return json({ error: { message: 'no token', code: 'unauthorized' } }, 401);
    if (url.pathname === '/client-credentials' && method === 'GET') {
      if (listFails) return new Response('upstream down', { status: 503 });
      return json({ clientCredentials: state.credentials });
    }
    if (url.pathname === '/client-credentials' && method === 'POST') {
      if (createError) return json({ error: { message: createError.message, code: createError.code } }, createError.status);
      const { name } = JSON.parse(String(init?.body)) as { name: string };
      const createdAt = new Date().toISOString();
      const clientId = `cc_${state.credentials.length + 1}_new`;
      state.credentials.push({ clientId, name, createdAt, lastUsedAt: null });
      return json({ clientCredentials: { clientId, clientSecret: secret, name, createdAt } }, 201);
    }
    const match = /^\/client-credentials\/([^/]+)$/.exec(url.pathname);
    if (match && method === 'DELETE') {
      const id = decodeURIComponent(match[1] ?? '');
      state.credentials = state.credentials.filter((c) => c.clientId !== id);
      return new Response(null, { status: 204 });
    }
    return json({ error: { message: 'not found', code: 'not_found' } }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  const signIn = vi.fn();
  configureApiClient({ baseUrl: config.baseUrl, auth: { getAccessToken: async () => 'test-token', renew: async () => null, signIn } });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const user = userEvent.setup();
  render(
    <ConfigContext.Provider value={config}>
      <QueryClientProvider client={queryClient}>
        <CredentialsPage />
      </QueryClientProvider>
    </ConfigContext.Provider>,
  );
  return { state, fetchMock, queryClient, user };
}

const existing: ClientCredential[] = [
  { clientId: 'cc_old_1', name: 'Nightly import', createdAt: '2026-01-10T09:00:00.000Z', lastUsedAt: null },
  {
    clientId: 'cc_old_2',
    name: 'CI pipeline',
    createdAt: '2026-02-01T09:00:00.000Z',
    lastUsedAt: new Date(Date.now() - 3 * 3600_000).toISOString(),
  },
];

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('CredentialsPage', () => {
  it('lists credentials with name, client id, created and last used', async () => {
    setup({ credentials: existing });
    expect(screen.getByRole('heading', { level: 1, name: 'API credentials' })).toBeTruthy();
    const rows = await screen.findAllByTestId('credential-row');
    expect(rows).toHaveLength(2);
    // Newest first.
    expect(within(rows[0]!).getByText('CI pipeline')).toBeTruthy();
    expect(within(rows[0]!).getByText('cc_old_2')).toBeTruthy();
    expect(within(rows[0]!).getByText(/hours ago/)).toBeTruthy();
    expect(within(rows[1]!).getByText('Never')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete Nightly import' })).toBeTruthy();

    const curl = screen.getByTestId('curl-example');
    expect(curl.textContent).toContain("curl --request POST 'http://localhost:8080/oauth2/default/v1/token'");
    expect(curl.textContent).toContain("CLIENT_ID='cc_old_2'");
    expect(curl.textContent).toContain("--data 'grant_type=client_credentials&scope=tenantApp%20roles'");
  });

  it('shows an empty state without credentials', async () => {
    setup();
    expect(await screen.findByText('No credentials yet')).toBeTruthy();
    expect(screen.queryAllByTestId('credential-row')).toHaveLength(0);
  });

  it('shows a load error with a retry', async () => {
    setup({ listFails: true });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/could not be loaded/);
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('creates a credential and shows its secret once, dropping it when the dialog closes', async () => {
    const { user, queryClient, fetchMock } = setup({ credentials: existing });
    await screen.findAllByTestId('credential-row');

    await user.type(screen.getByLabelText('Name'), 'Render farm');
    await user.click(screen.getByRole('button', { name: 'Create credential' }));

    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('new-client-id').textContent).toBe('cc_3_new');
    expect(within(dialog).getByTestId('new-client-secret').textContent).toBe(secret);
    expect(dialog.textContent).toMatch(/only time it is shown/);
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === 'POST');
    expect(post?.[1]?.body).toBe('{"name":"Render farm"}');

    await user.click(within(dialog).getByRole('button', { name: 'Copy secret' }));
    expect(await navigator.clipboard.readText()).toBe(secret);
    expect(within(dialog).getByText('Copied')).toBeTruthy();

    // The new credential is listed (refetched) and picked for the curl example; no secret in any cache.
    await waitFor(() => expect(screen.getAllByTestId('credential-row')).toHaveLength(3));
    expect(screen.getByTestId('curl-example').textContent).toContain("CLIENT_ID='cc_3_new'");
    expect(screen.getByTestId('curl-example').textContent).not.toContain(secret);
    expect(
      JSON.stringify(
        queryClient
          .getQueryCache()
          .getAll()
          .map((q) => q.state.data),
      ),
    ).not.toContain(secret);
    await waitFor(() =>
      expect(
        JSON.stringify(
          queryClient
            .getMutationCache()
            .getAll()
            .map((m) => m.state.data),
        ),
      ).not.toContain(secret),
    );
    expect(JSON.stringify({ ...sessionStorage })).not.toContain(secret);
    expect(JSON.stringify({ ...localStorage })).not.toContain(secret);

    await user.click(within(dialog).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.body.textContent).not.toContain(secret);
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('');
  });

  it('shows server errors inline and no dialog', async () => {
    const { user } = setup({ createError: { status: 409, code: 'conflict', message: 'A credential named "CI pipeline" already exists.' } });
    await screen.findByText('No credentials yet');
    await user.type(screen.getByLabelText('Name'), 'CI pipeline');
    await user.click(screen.getByRole('button', { name: 'Create credential' }));
    expect((await screen.findByRole('alert')).textContent).toBe('A credential named "CI pipeline" already exists.');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('asks for a name before creating', async () => {
    const { user, fetchMock } = setup();
    await screen.findByText('No credentials yet');
    await user.click(screen.getByRole('button', { name: 'Create credential' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/Enter a name/);
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'POST')).toBe(false);
  });

  it('deletes only after confirmation', async () => {
    const { user, fetchMock } = setup({ credentials: existing });
    await screen.findAllByTestId('credential-row');

    await user.click(screen.getByRole('button', { name: 'Delete Nightly import' }));
    let dialog = screen.getByRole('dialog');
    expect(dialog.textContent).toContain('cc_old_1');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Delete Nightly import' }));
    dialog = screen.getByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const del = fetchMock.mock.calls.find(([, init]) => init?.method === 'DELETE');
    expect(String(del?.[0])).toBe('http://localhost:8080/client-credentials/cc_old_1');
    await waitFor(() => expect(screen.getAllByTestId('credential-row')).toHaveLength(1));
    expect(screen.queryByText('Nightly import')).toBeNull();
  });
});

describe('CredentialsPage dialogs', () => {
  it('hide the page behind them from the accessibility tree while open', async () => {
    const { user } = setup({ credentials: existing });
    await screen.findAllByTestId('credential-row');
    await user.click(screen.getByRole('button', { name: 'Delete Nightly import' }));
    // Only the dialog's own "Delete" is reachable by role now.
    expect(screen.getAllByRole('button', { name: /Delete/ }).map((b) => b.textContent)).toEqual(['Delete']);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getAllByRole('button', { name: /^Delete / })).toHaveLength(2);
    // Focus goes back to the button that opened the dialog.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete Nightly import' }));
  });
});
