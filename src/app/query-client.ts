import { QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../api/client';
import { showToast } from '../ui/toast';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        // First loads show their error in the page; only background refreshes of data
        // already on screen need a toast. A 401 is already on its way to sign-in.
        if (query.state.data === undefined) return;
        if (error instanceof ApiError && error.status === 401) return;
        showToast(`Could not refresh: ${errorMessage(error)}`, 'error');
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: (failureCount, error) => {
          if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
          return failureCount < 2;
        },
      },
    },
  });
}
