import { createBrowserRouter, data, redirect, type LoaderFunctionArgs } from 'react-router';
import type { QueryClient } from '@tanstack/react-query';
import type { Auth } from '../features/auth/auth-client';
import { createCallbackLoader, SignInErrorScreen, SigningInScreen } from '../features/auth/auth-callback';
import { clientCredentialQueries } from '../api/client-credentials';
import { webhookQueries } from '../api/webhooks';
import { folderQueries } from '../api/folders';
import { prefetchBrowse, prefetchModel } from '../features/folders/prefetch';
import { AppShell } from './layout';
import { NotFoundPage } from '../ui/not-found-page';
import { RouteError } from './route-error';
import { FullPageWait } from '../ui/full-page-wait';
import { paths } from '../ui/paths';

const matchKinds = new Set(['part-in-part', 'part-to-part', 'geo-related']);

function StartingScreen() {
  return (
    <FullPageWait>
      <p>Loading the workbench…</p>
    </FullPageWait>
  );
}

export interface RouterDeps {
  auth: Auth;
  queryClient: QueryClient;
}

export function createAppRoutes({ auth, queryClient }: RouterDeps) {
  /** Loader of a signed-in page: sign in first (coming back here), then start its data early. */
  const protect =
    (prefetch?: (args: LoaderFunctionArgs) => void) =>
    async (args: LoaderFunctionArgs): Promise<null> => {
      const url = new URL(args.request.url);
      await auth.requireUser(`${url.pathname}${url.search}${url.hash}`);
      // Not awaited: the page shows its own loading and error states.
      prefetch?.(args);
      return null;
    };

  return [
    {
      path: paths.authCallback.pattern,
      loader: createCallbackLoader(auth),
      Component: SigningInScreen,
      HydrateFallback: SigningInScreen,
      ErrorBoundary: SignInErrorScreen,
    },
    {
      id: 'root',
      Component: AppShell,
      ErrorBoundary: RouteError,
      HydrateFallback: StartingScreen,
      children: [
        { index: true, loader: () => redirect(paths.folders.href()), Component: () => null },
        {
          path: paths.folders.pattern,
          loader: protect(({ request }) => prefetchBrowse(queryClient, new URL(request.url))),
          lazy: async () => ({ Component: (await import('../features/folders/folders-page')).FoldersPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.folder.pattern,
          loader: protect(({ request, params }) => prefetchBrowse(queryClient, new URL(request.url), params.folderId)),
          lazy: async () => ({ Component: (await import('../features/folders/folder-page')).FolderPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.folderDuplicates.pattern,
          loader: protect(),
          lazy: async () => ({ Component: (await import('../features/folders/duplicates-page')).DuplicatesPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.folderClasses.pattern,
          loader: protect(),
          lazy: async () => ({ Component: (await import('../features/folders/classes-page')).ClassesPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.model.pattern,
          loader: protect(({ params }) => prefetchModel(queryClient, params.modelId)),
          lazy: async () => ({ Component: (await import('../features/folders/model-page')).ModelPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.matches.pattern,
          loader: async (args: LoaderFunctionArgs) => {
            if (!matchKinds.has(args.params.kind ?? '')) throw data('Unknown match kind', { status: 404 });
            return protect()(args);
          },
          lazy: async () => ({ Component: (await import('../features/matches/matches-page')).MatchesPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.compare.pattern,
          loader: protect(),
          lazy: async () => ({ Component: (await import('../features/matches/compare-page')).ComparePage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.reviews.pattern,
          loader: protect(() => {
            void queryClient.prefetchQuery(folderQueries.tree());
          }),
          lazy: async () => ({ Component: (await import('../features/review/reviews-page')).ReviewsPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.review.pattern,
          loader: protect(),
          lazy: async () => ({ Component: (await import('../features/review/report-page')).ReportPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.compareSet.pattern,
          loader: protect(),
          lazy: async () => ({ Component: (await import('../features/compare-set/compare-set-page')).CompareSetPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.upload.pattern,
          loader: protect(),
          lazy: async () => ({ Component: (await import('../features/upload/upload-page')).UploadPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.imageSearch.pattern,
          // The folder list names each result's folder and feeds the folder filter.
          loader: protect(() => {
            void queryClient.prefetchQuery(folderQueries.tree());
          }),
          lazy: async () => ({ Component: (await import('../features/image-search/image-search-page')).ImageSearchPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.sketchSearch.pattern,
          loader: protect(() => {
            void queryClient.prefetchQuery(folderQueries.tree());
          }),
          lazy: async () => ({ Component: (await import('../features/sketch-search/sketch-search-page')).SketchSearchPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.credentials.pattern,
          loader: protect(() => {
            void queryClient.prefetchQuery(clientCredentialQueries.list());
          }),
          lazy: async () => ({ Component: (await import('../features/credentials/credentials-page')).CredentialsPage }),
          ErrorBoundary: RouteError,
        },
        {
          path: paths.webhooks.pattern,
          loader: protect(() => {
            void queryClient.prefetchQuery(webhookQueries.list());
          }),
          lazy: async () => ({ Component: (await import('../features/webhooks/webhooks-page')).WebhooksPage }),
          ErrorBoundary: RouteError,
        },
        // Public on purpose: a mistyped link shows this page even before sign-in.
        { path: '*', Component: NotFoundPage },
      ],
    },
  ];
}

export function createAppRouter(deps: RouterDeps) {
  return createBrowserRouter(createAppRoutes(deps));
}
