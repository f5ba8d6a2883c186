import { isRouteErrorResponse, Link, useRevalidator, useRouteError } from 'react-router';
import { ApiError } from '../api/client';
import { NotFoundPage } from '../ui/not-found-page';
import { paths } from '../ui/paths';

function isChunkLoadError(error: unknown): boolean {
  return error instanceof Error && /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(error.message);
}

/** Error boundary of each route: a plain explanation and a way to try again. */
export function RouteError() {
  const error = useRouteError();
  const revalidator = useRevalidator();

  if ((isRouteErrorResponse(error) && error.status === 404) || (error instanceof ApiError && error.status === 404)) {
    return <NotFoundPage />;
  }

  let message = 'Something went wrong while showing this page.';
  let retry: () => void = () => void revalidator.revalidate();
  if (isChunkLoadError(error)) {
    message = 'This part of the app could not be loaded. The app may have been updated, or the connection dropped.';
    retry = () => window.location.reload();
  } else if (error instanceof ApiError) {
    message = error.message;
  } else if (isRouteErrorResponse(error)) {
    message = `The page could not be loaded (${error.status} ${error.statusText}).`;
  }
  if (error && !(error instanceof ApiError)) console.error(error);

  return (
    <div className="page page--centered" role="alert">
      <h1>Something went wrong</h1>
      <p>{message}</p>
      <div className="actions">
        <button type="button" className="button button--primary" onClick={retry} disabled={revalidator.state === 'loading'}>
          Try again
        </button>
        <Link to={paths.folders.href()} className="button">
          Go to folders
        </Link>
      </div>
    </div>
  );
}
