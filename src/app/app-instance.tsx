import { StrictMode } from 'react';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { configureApiClient } from '../api/client';
import { createAuth, type Auth } from '../features/auth/auth-client';
import { AuthProvider } from '../features/auth/auth-context';
import type { ResolvedConfig } from './config';
import { ConfigContext } from '../ui/config-context';
import { createQueryClient } from './query-client';
import { createAppRouter } from './router';
import { showToast } from '../ui/toast';

export interface AppInstance {
  config: ResolvedConfig;
  auth: Auth;
  queryClient: QueryClient;
  router: ReturnType<typeof createAppRouter>;
}

/**
 * Builds the app's long-lived objects once, outside React, so StrictMode's double
 * rendering never creates a second UserManager (two renewers would fight over the
 * rotating refresh token).
 */
export function createAppInstance(config: ResolvedConfig): AppInstance {
  const auth = createAuth({ issuer: config.issuer, clientId: config.clientId, scopes: config.scopes, origin: config.origin });
  configureApiClient({
    baseUrl: config.baseUrl,
    auth: {
      getAccessToken: () => auth.getAccessToken(),
      renew: () => auth.renew(),
      signIn: () => {
        auth
          .signIn()
          .catch(() =>
            showToast('Your session has ended and the sign-in service cannot be reached. Reload the page to try again.', 'error'),
          );
      },
    },
  });
  const queryClient = createQueryClient();
  const router = createAppRouter({ auth, queryClient });
  return { config, auth, queryClient, router };
}

export function App({ instance }: { instance: AppInstance }) {
  return (
    <StrictMode>
      <ConfigContext.Provider value={instance.config}>
        <AuthProvider auth={instance.auth}>
          <QueryClientProvider client={instance.queryClient}>
            <RouterProvider router={instance.router} />
          </QueryClientProvider>
        </AuthProvider>
      </ConfigContext.Provider>
    </StrictMode>
  );
}
