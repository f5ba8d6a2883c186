import { useCallback, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, errorMessage } from '../../api/client';
import { useFolder, useFolderTree } from '../../api/folders';
import { useModels } from '../../api/models';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { modelCountsWithSubfolders, type Folder } from '../../contract/folders';
import {
  browseListParams,
  formatBrowseState,
  parseBrowseState,
  updateBrowseState,
  withSubfolderDefault,
  type BrowseState,
} from './browse-state';
import { BrowseToolbar, Pager } from './browse-toolbar';
import { DeleteFolderDialog, FolderNameDialog } from './folder-dialogs';
import { ancestorIds } from './folder-tree-model';
import { FolderTree } from './folder-tree';
import { ModelGrid, ModelGridSkeleton, ModelTable, ModelTableSkeleton } from './model-views';
import { useCanEdit } from '../auth/permissions';
import { MovedNotice, SelectionBar } from './selection-bar';
import type { MoveResult } from './move-model-dialog';
import { StateSummary } from '../../ui/state-summary';
import './folders.css';
import { Breadcrumbs } from '../../ui/breadcrumbs';
import { paths } from '../../ui/paths';

type DialogState =
  { kind: 'create'; parent: Folder | null } | { kind: 'rename'; folder: Folder } | { kind: 'delete'; folder: Folder } | null;

function FolderTrail({ folder, folders }: { folder: Folder; folders: readonly Folder[] }) {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const trail = ancestorIds(folders, folder.id).flatMap((id) => byId.get(id) ?? []);
  return (
    <Breadcrumbs
      trail={[
        { label: 'All folders', to: paths.folders.href() },
        ...trail.map((f) => ({ key: f.id, label: f.name, to: paths.folder.href(f.id) })),
        { label: folder.name },
      ]}
    />
  );
}

/** /folders (all models) and /folders/:folderId: the folder tree beside the selected folder's models. */
function FolderEditActions({ folder, onAction }: { folder: Folder; onAction: (dialog: DialogState) => void }) {
  return (
    <>
      <button type="button" className="button button--small" onClick={() => onAction({ kind: 'create', parent: folder })}>
        New subfolder
      </button>
      <button type="button" className="button button--small" onClick={() => onAction({ kind: 'rename', folder })}>
        Rename
      </button>
      <button type="button" className="button button--small button--danger-quiet" onClick={() => onAction({ kind: 'delete', folder })}>
        Delete
      </button>
    </>
  );
}

/** The folders directly inside the one shown, before its models: name, own and total model counts. */
function SubfolderList({
  folders,
  totals,
  onOpen,
}: {
  folders: Folder[];
  totals: ReadonlyMap<number, number>;
  onOpen: (folder: Folder) => void;
}) {
  return (
    <nav className="subfolders" aria-label="Subfolders">
      <ul className="subfolders__list">
        {folders.map((f) => {
          const own = f.modelCount;
          const total = totals.get(f.id);
          return (
            <li key={f.id}>
              <Link
                to={paths.folder.href(f.id)}
                className="subfolders__link"
                onClick={(event) => {
                  event.preventDefault();
                  onOpen(f);
                }}
              >
                <span className="tree__icon" aria-hidden="true" />
                <span className="subfolders__name">{f.name}</span>{' '}
                {own !== undefined && (
                  <span className="subfolders__count muted">
                    {own === total || total === undefined
                      ? countWords(own)
                      : `${countWords(own)}, ${total.toLocaleString('en-US')} with subfolders`}
                  </span>
                )}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function countWords(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'model' : 'models'}`;
}

const noneSelected: ReadonlySet<string> = new Set();

export function BrowsePage({ folderId }: { folderId: number | null }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const chosen = useMemo(() => parseBrowseState(searchParams), [searchParams]);
  const navigate = useNavigate();
  const editable = useCanEdit();
  const [dialog, setDialog] = useState<DialogState>(null);
  const [moved, setMoved] = useState<MoveResult | null>(null);

  const tree = useFolderTree();
  const detail = useFolder(folderId);
  const folder = detail.data ?? (folderId !== null ? tree.data?.find((f) => f.id === folderId) : undefined);
  const folderMissing = folderId !== null && detail.error instanceof ApiError && detail.error.status === 404;
  const hasFolders = (tree.data?.length ?? 0) > 0;

  const view = useMemo(() => withSubfolderDefault(chosen, folderId, tree.data), [chosen, folderId, tree.data]);
  const listParams = useMemo(() => browseListParams(folderId, view, tree.data), [folderId, view, tree.data]);
  const waitsForTree = view.subfolders !== false && folderId !== null && !tree.isSuccess;
  const models = useModels(listParams, { enabled: (folderId !== null ? !folderMissing : hasFolders) && !waitsForTree });

  // Models picked for a bulk action: per list, forgotten when the list changes.
  const listKey = JSON.stringify(listParams);
  const [selection, setSelection] = useState<{ key: string; ids: ReadonlySet<string> }>({ key: listKey, ids: new Set() });
  const selected = selection.key === listKey ? selection.ids : noneSelected;
  const select = useCallback((ids: ReadonlySet<string>) => setSelection({ key: listKey, ids }), [listKey]);
  const modelSelection = editable
    ? {
        selected,
        toggle: (id: string) => {
          const next = new Set(selected);
          if (!next.delete(id)) next.add(id);
          select(next);
        },
      }
    : undefined;

  const update = useCallback(
    (change: Partial<BrowseState>, replace = false) => {
      // A new page of models starts at the top; a changed filter keeps the reader where they are.
      // From what the URL says, so that an undecided subfolder choice stays undecided.
      setSearchParams(formatBrowseState(updateBrowseState(chosen, change)), { replace, preventScrollReset: change.page === undefined });
    },
    [setSearchParams, chosen],
  );
  const onSearch = useCallback((search: string) => update({ search }, true), [update]);

  const openFolder = (target: Folder) => {
    const next = formatBrowseState({ ...chosen, page: 1 }).toString();
    void navigate(paths.folder.href(target.id, next));
  };

  const subfolders = useMemo(
    () =>
      folderId === null ? [] : (tree.data ?? []).filter((f) => f.parentFolderId === folderId).sort((a, b) => a.name.localeCompare(b.name)),
    [folderId, tree.data],
  );
  const hasSubfolders = subfolders.length > 0;
  const totals = useMemo(() => modelCountsWithSubfolders(tree.data ?? []), [tree.data]);
  const filtered = view.search !== '' || view.states.length > 0 || view.types.length > 0;
  const title = folderId === null ? 'Folders' : (folder?.name ?? (folderMissing ? 'Folder not found' : 'Folder'));

  let results;
  if (folderId === null && tree.isSuccess && !hasFolders) {
    results = (
      <EmptyState title="No models yet">
        <p>
          <Link to={paths.upload.href()}>Upload models</Link> — their folders are created as they arrive.
        </p>
      </EmptyState>
    );
  } else if (models.isPending) {
    results = (
      <div aria-busy="true">
        <p className="visually-hidden" role="status">
          Loading models…
        </p>
        {view.view === 'grid' ? <ModelGridSkeleton count={Math.min(view.perPage, 12)} /> : <ModelTableSkeleton rows={8} />}
      </div>
    );
  } else if (models.isError) {
    results = (
      <ErrorState title="The models could not be loaded" message={errorMessage(models.error)} onRetry={() => void models.refetch()} />
    );
  } else if (models.data.models.length === 0) {
    const { pageData } = models.data;
    if (pageData.total > 0) {
      results = (
        <EmptyState title={`There is no page ${view.page}`}>
          <p>
            The list has {pageData.lastPage} {pageData.lastPage === 1 ? 'page' : 'pages'}.
          </p>
          <button type="button" className="button" onClick={() => update({ page: pageData.lastPage })}>
            Go to the last page
          </button>
        </EmptyState>
      );
    } else if (filtered) {
      results = (
        <EmptyState title="No models match">
          <p>Nothing here matches the search and filters.</p>
          <button type="button" className="button" onClick={() => update({ search: '', states: [], types: [] })}>
            Clear search and filters
          </button>
        </EmptyState>
      );
    } else {
      results =
        hasSubfolders && !view.subfolders ? (
          <EmptyState title={`No models directly in ${folder?.name ?? 'this folder'}`}>
            <p>Its models are in the subfolders above.</p>
            <button type="button" className="button" onClick={() => update({ subfolders: true })}>
              Show the models of its subfolders
            </button>
          </EmptyState>
        ) : (
          <EmptyState title={folderId === null ? 'No models yet' : 'This folder is empty'}>
            <p>
              <Link to={paths.upload.href()}>Upload models</Link> to see them here.
            </p>
          </EmptyState>
        );
    }
  } else {
    results = (
      <div aria-busy={models.isPlaceholderData || undefined} className={models.isPlaceholderData ? 'is-refreshing' : undefined}>
        {editable && <SelectionBar models={models.data.models} selected={selected} onSelect={select} onMoved={setMoved} />}
        {view.view === 'grid' ? (
          <ModelGrid models={models.data.models} selection={modelSelection} />
        ) : (
          <ModelTable models={models.data.models} selection={modelSelection} />
        )}
      </div>
    );
  }

  return (
    <div className="page">
      <header className="page__header browse__header">
        <div>
          {folder && tree.data && <FolderTrail folder={folder} folders={tree.data} />}
          <h1>{title}</h1>
          {folderId === null ? (
            <p className="lead">Your organisation’s models, in folders.</p>
          ) : (
            folder && <p className="muted browse__path">{folder.path}</p>
          )}
          <StateSummary folderId={folderId} />
        </div>
        {folder && (
          <div className="actions browse__actions">
            {editable && (
              <Link className="button button--small" to={paths.upload.href(folder.id)}>
                Upload here
              </Link>
            )}
            <Link className="button button--small" to={paths.folderDuplicates.href(folder.id)}>
              Find duplicates
            </Link>
            <Link className="button button--small" to={paths.folderClasses.href(folder.id)}>
              Classify
            </Link>
            {editable && <FolderEditActions folder={folder} onAction={setDialog} />}
          </div>
        )}
      </header>

      <div className="browse">
        <aside className="card browse__tree" aria-labelledby="folder-tree-heading">
          <div className="browse__tree-header">
            <h2 id="folder-tree-heading" className="card__title">
              Folders
            </h2>
            {editable && (
              <button type="button" className="button button--small" onClick={() => setDialog({ kind: 'create', parent: null })}>
                New folder
              </button>
            )}
          </div>
          <Link
            to={paths.folders.href(searchParams)}
            className={`browse__all${folderId === null ? ' browse__all--selected' : ''}`}
            aria-current={folderId === null ? 'page' : undefined}
          >
            All models
          </Link>
          {tree.isPending ? (
            <LoadingState label="Loading folders…" />
          ) : tree.isError ? (
            <ErrorState title="Folders could not be loaded" message={errorMessage(tree.error)} onRetry={() => void tree.refetch()} />
          ) : tree.data.length === 0 ? (
            <EmptyState title="No folders yet">
              <p>Folders appear here when models are uploaded into them{editable ? ', or create one.' : '.'}</p>
            </EmptyState>
          ) : (
            <FolderTree folders={tree.data} selectedId={folderId} onActivate={openFolder} />
          )}
        </aside>

        <section className="card browse__models" aria-labelledby="models-heading">
          <h2 id="models-heading" className="card__title">
            {folderId === null
              ? 'All models'
              : folder
                ? `Models in ${folder.name}${view.subfolders && hasSubfolders ? ' and its subfolders' : ''}`
                : 'Models'}
          </h2>
          {folderMissing ? (
            <EmptyState title="Folder not found">
              <p>This folder does not exist any more, or it is not visible to you.</p>
              <Link to={paths.folders.href()}>Go to all folders</Link>
            </EmptyState>
          ) : detail.isError && !folder ? (
            <ErrorState title="The folder could not be loaded" message={errorMessage(detail.error)} onRetry={() => void detail.refetch()} />
          ) : (
            <>
              {hasSubfolders && <SubfolderList folders={subfolders} totals={totals} onOpen={openFolder} />}
              <BrowseToolbar state={view} onChange={(change) => update(change)} onSearch={onSearch} offerSubfolders={hasSubfolders} />
              {moved && <MovedNotice result={moved} onDone={() => setMoved(null)} />}
              {results}
              {models.data && models.data.pageData.total > 0 && (
                <Pager
                  pageData={models.data.pageData}
                  perPage={view.perPage}
                  onPage={(page) => update({ page })}
                  onPerPage={(perPage) => update({ perPage })}
                />
              )}
            </>
          )}
        </section>
      </div>

      {dialog?.kind === 'create' && (
        <FolderNameDialog
          mode="create"
          parent={dialog.parent}
          onClose={() => setDialog(null)}
          onDone={(created) => {
            setDialog(null);
            openFolder(created);
          }}
        />
      )}
      {dialog?.kind === 'rename' && (
        <FolderNameDialog mode="rename" folder={dialog.folder} onClose={() => setDialog(null)} onDone={() => setDialog(null)} />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteFolderDialog
          folder={dialog.folder}
          hasSubfolders={hasSubfolders}
          onClose={() => setDialog(null)}
          onDeleted={(deleted) => {
            setDialog(null);
            void navigate(deleted.parentFolderId == null ? paths.folders.href() : paths.folder.href(deleted.parentFolderId), {
              replace: true,
            });
          }}
        />
      )}
    </div>
  );
}
