// Test-only: a signed-in user with given roles, and pages rendered as the app renders them
// (auth, query client, router). Every feature's page tests may use it (auth is the one feature
// the others import).
import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { User, type UserManager } from 'oidc-client-ts';
import type { Auth } from '../auth-client';
import { AuthProvider } from '../auth-context';

export function fakeAuth(roles: string[]): Auth {
  const user = new User({
    access_token: 'tok',
    token_type: 'Bearer',
    profile: { sub: 'u1', iss: 'i', aud: 'a', exp: 0, iat: 0, name: 'Demo Designer', roles },
    expires_at: Math.floor(Date.now() / 1000) + 3600,
  });
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
    getUser: async () => user,
  } as unknown as UserManager;
  return {
    userManager,
    getUser: async () => user,
    getAccessToken: async () => 'tok',
    renew: async () => null,
    signIn: async () => undefined,
    requireUser: async () => user,
    completeSignIn: async () => '/',
    signOut: async () => undefined,
  };
}

/** Renders routes at a path with a fresh query client (no retries), signed in with the given roles. */
export function renderRoutes(routes: RouteObject[], path: string, roles: string[] = ['viewer', 'editor']) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <AuthProvider auth={fakeAuth(roles)}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </AuthProvider>,
  );
  return { router, queryClient };
}
