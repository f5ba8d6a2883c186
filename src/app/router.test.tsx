import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { User, type UserManager } from 'oidc-client-ts';
import { configureApiClient } from '../api/client';
import type { Auth } from '../features/auth/auth-client';
import { AuthProvider } from '../features/auth/auth-context';
import { parseConfig } from './config';
import { ConfigContext } from '../ui/config-context';
import { createAppRoutes } from './router';

const parsed = parseConfig({ baseUrl: '/', authUrl: '/', clientId: 'workbench-app', scopes: 'openid' }, 'http://localhost:8080');
if (!parsed.ok) throw new Error('bad test config');

const demo = new User({
  access_token: 'tok',
  token_type: 'Bearer',
  profile: {
    sub: 'u1',
    iss: 'i',
    aud: 'a',
    exp: 0,
    iat: 0,
    name: 'Demo Designer',
    email: 'demo@example.com',
    tenant: 'demo',
    tenant_name: 'Demo Tenant',
    roles: ['viewer'],
  },
  expires_at: Math.floor(Date.now() / 1000) + 3600,
});

function fakeAuth(signedIn: boolean, overrides: Partial<Auth> = {}): Auth {
  const noop = () => undefined;
  const userManager = {
    events: {
      addUserLoaded: noop,
      removeUserLoaded: noop,
      addUserUnloaded: noop,
      removeUserUnloaded: noop,
      addUserSignedOut: noop,
      removeUserSignedOut: noop,
    },
    getUser: async () => (signedIn ? demo : null),
  } as unknown as UserManager;
  return {
    userManager,
    getUser: async () => (signedIn ? demo : null),
    getAccessToken: async () => (signedIn ? 'tok' : null),
    renew: async () => null,
    signIn: vi.fn(async () => undefined),
    requireUser: vi.fn(async () => (signedIn ? demo : new Promise<User>(() => undefined))),
    completeSignIn: vi.fn(async () => '/'),
    signOut: vi.fn(async () => undefined),
    ...overrides,
  };
}

function renderAt(path: string, auth: Auth) {
  vi.stubGlobal(
    'fetch',
    vi.fn(
      async () =>
        new Response(
          JSON.stringify({
            clientCredentials: [],
            folders: [],
            pageData: { total: 0, perPage: 100, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 0 },
          }),
          { status: 200 },
        ),
    ),
  );
  configureApiClient({ baseUrl: parsed.ok ? parsed.config.baseUrl : '', auth });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(createAppRoutes({ auth, queryClient }), { initialEntries: [path] });
  render(
    <ConfigContext.Provider value={parsed.ok ? parsed.config : null}>
      <AuthProvider auth={auth}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AuthProvider>
    </ConfigContext.Provider>,
  );
  return router;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('app routes', () => {
  it('redirects / to /folders and shows the shell navigation', async () => {
    const router = renderAt('/', fakeAuth(true));
    expect(await screen.findByRole('heading', { level: 1, name: 'Folders' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/folders');
    for (const name of ['Folders', 'Upload', 'Duplicates', 'Image search', 'Search by sketch', 'Credentials']) {
      expect(screen.getByRole('link', { name })).toBeTruthy();
    }
    expect(await screen.findByText('No folders yet')).toBeTruthy();
  });

  it('asks for sign-in with the requested page as the return path', async () => {
    const auth = fakeAuth(false);
    renderAt('/credentials?x=1', auth);
    await waitFor(() => expect(auth.requireUser).toHaveBeenCalledWith('/credentials?x=1'));
    expect(screen.queryByRole('heading', { name: 'API credentials' })).toBeNull();
  });

  it('shows the not-found page for unknown paths and unknown match kinds', async () => {
    renderAt('/no/such/page', fakeAuth(false));
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeTruthy();
    cleanup();
    renderAt('/models/m1/matches/nonsense', fakeAuth(true));
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeTruthy();
  });

  it('shows the user menu with name, email and tenant, and signs out', async () => {
    const auth = fakeAuth(true);
    renderAt('/upload', auth);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: /Demo Designer/ }));
    expect(screen.getByText('demo@example.com')).toBeTruthy();
    expect(screen.getByText(/Demo Tenant/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(auth.signOut).toHaveBeenCalled();
  });

  it('returns from /auth/callback to the page that was asked for', async () => {
    const auth = fakeAuth(true, { completeSignIn: vi.fn(async () => '/credentials') });
    const router = renderAt('/auth/callback?code=c&state=s', auth);
    expect(await screen.findByRole('heading', { level: 1, name: 'API credentials' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/credentials');
  });

  it('explains a failed sign-in and offers to try again', async () => {
    const auth = fakeAuth(false, {
      completeSignIn: vi.fn(async () => {
        throw Object.assign(new Error('access_denied'), { error: 'access_denied' });
      }),
    });
    renderAt('/auth/callback?error=access_denied&state=s', auth);
    expect(await screen.findByRole('heading', { name: 'Sign-in did not finish' })).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    expect(auth.signIn).toHaveBeenCalled();
  });
});
