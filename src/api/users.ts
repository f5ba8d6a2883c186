import { queryOptions, useQuery } from '@tanstack/react-query';
import { currentUserResponseSchema, type CurrentUser } from '../contract/users';
import { apiClient } from './client';

export async function fetchCurrentUser(signal?: AbortSignal): Promise<CurrentUser> {
  return apiClient().request('/v2/users/me', { schema: currentUserResponseSchema, signal });
}

export const userQueries = {
  all: () => ['users'] as const,
  /** Who the token acts for, as the service knows them (the sign-in's claims may be older). */
  me: () =>
    queryOptions({
      queryKey: [...userQueries.all(), 'me'] as const,
      queryFn: ({ signal }) => fetchCurrentUser(signal),
      staleTime: 5 * 60_000,
    }),
};

export function useCurrentUser(enabled = true) {
  return useQuery({ ...userQueries.me(), enabled });
}
