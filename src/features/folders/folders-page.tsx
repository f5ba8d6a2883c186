import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useFolders } from '../../api/folders';
import { folderListParams } from '../../app/route-params';
import { EmptyState, ErrorState, LoadingState } from '../../app/ui/states';

export function FoldersPage() {
  const [searchParams] = useSearchParams();
  const folders = useFolders(folderListParams(searchParams));

  return (
    <div className="page">
      <header className="page__header">
        <h1>Folders</h1>
        <p className="lead">Your tenant's models, organised in folders.</p>
      </header>
      <section className="card" aria-label="Folder list">
        {folders.isPending ? (
          <LoadingState label="Loading folders…" />
        ) : folders.isError ? (
          <ErrorState title="Folders could not be loaded" message={errorMessage(folders.error)} onRetry={() => void folders.refetch()} />
        ) : folders.data.folders.length === 0 ? (
          <EmptyState title="No folders yet">
            <p>Folders appear here when models are uploaded into them.</p>
          </EmptyState>
        ) : (
          <>
            <ul className="folder-list">
              {folders.data.folders.map((folder) => (
                <li key={folder.id}>
                  <Link to={`/folders/${folder.id}`} className="folder-list__link">
                    <span className="folder-list__icon" aria-hidden="true" />
                    <span className="folder-list__name">{folder.path || folder.name}</span>
                    <span className="muted">
                      {folder.modelCount} {folder.modelCount === 1 ? 'model' : 'models'}
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
            {folders.data.pageData.total > folders.data.folders.length && (
              <p className="muted">
                Showing {folders.data.folders.length} of {folders.data.pageData.total} folders.
              </p>
            )}
          </>
        )}
      </section>
    </div>
  );
}
