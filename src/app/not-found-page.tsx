import { Link, useLocation } from 'react-router';

export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <div className="page page--centered">
      <h1>Page not found</h1>
      <p>
        There is nothing at <code>{pathname}</code>. The link may be old, or the item may have been removed.
      </p>
      <div className="actions">
        <Link to="/folders" className="button button--primary">
          Go to folders
        </Link>
      </div>
    </div>
  );
}
