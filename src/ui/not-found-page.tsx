import { useLocation } from 'react-router';
import { MissingPage } from './states';

export function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <MissingPage title="Page not found">
      <p>
        There is nothing at <code>{pathname}</code>. The link may be old, or the item may have been removed.
      </p>
    </MissingPage>
  );
}
