import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError, errorMessage } from '../api/client';
import { paths } from './paths';

export function LoadingState({ label }: { label: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function ErrorState({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  return (
    <div className="state state--error" role="alert">
      <p className="state__title">{title}</p>
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state--empty">
      <p className="state__title">{title}</p>
      {children}
    </div>
  );
}

/** An honest "not built yet" page: says what will be here, shows no invented data. */
export function ComingSoon({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="page">
      <h1>{title}</h1>
      <div className="state state--empty">
        <p className="state__title">Coming in a later release</p>
        {children}
      </div>
    </div>
  );
}

/** A whole page saying that something is not there, with the way back to the folders. */
export function MissingPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="page page--centered">
      <h1>{title}</h1>
      {children}
      <div className="actions">
        <Link to={paths.folders.href()} className="button button--primary">
          Go to folders
        </Link>
      </div>
    </div>
  );
}

/**
 * The page of a record that is not there yet: loading, or why it could not be loaded (with a
 * retry); a 404 shows `notFound` where given. Render it while the query has no data.
 */
export function RecordPageState({
  query,
  noun,
  notFound,
}: {
  query: { isPending: boolean; error: unknown; refetch: () => unknown };
  noun: string;
  notFound?: ReactNode;
}) {
  if (query.isPending) {
    return (
      <div className="page">
        <LoadingState label={`Loading the ${noun}…`} />
      </div>
    );
  }
  if (notFound && query.error instanceof ApiError && query.error.status === 404) return notFound;
  return (
    <div className="page">
      <ErrorState title={`The ${noun} could not be loaded`} message={errorMessage(query.error)} onRetry={() => void query.refetch()} />
    </div>
  );
}
