import { lazy, Suspense, useId, useMemo, useState, type ReactNode } from 'react';
import { fileNameOf } from '../../contract/file-paths';
import { defaultUpAxis, extensionOf, type UpAxis } from '../../contract/file-types';
import { Link, useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useFolder } from '../../api/folders';
import { useAttachFile } from '../../api/attach-file';
import { useMatchCounts } from '../../api/matches';
import { useAssemblyTree, useDeleteModel, useModel, useReprocessModel, useSetUpAxis, useSourceFile, useViewerFile } from '../../api/models';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
import { formatDateTime } from '../../ui/format';
import { RelativeTime } from '../../ui/relative-time';
import { ErrorState, LoadingState, MissingPage, RecordPageState } from '../../ui/states';
import { defaultMatchThreshold } from '../../contract/matches';
import { isSettled, searchableStates, upAxisOf, type AssemblyTreeNode, type Model } from '../../contract/models';
import { factRows } from './model-facts';
import { formatBytes } from '../../ui/format-bytes';
import { fileTypeLabel, StateBadge, stateInfo } from '../../ui/model-state';
import { safeImageUrl } from '../../ui/safe-url';
import { CompareSetToggle } from '../../ui/compare-set-toggle';
import { assemblyOrigin, placementsOf, withQuantities } from './assembly-rows';
import { MetadataSection } from './metadata-section';
import { WhereUsedSection } from './where-used-section';
import { PartListDownload } from './part-list-download';
import { MoveModelDialog } from './move-model-dialog';
import { useCanEdit } from '../auth/permissions';
import './folders.css';
import { Breadcrumbs } from '../../ui/breadcrumbs';
import { useDisplayUnit } from '../../ui/lengths';
import { UnitSwitch } from '../../ui/unit-switch';
import { paths } from '../../ui/paths';

// three.js and the viewer load only when a model page shows a preview: they are most of the
// page's code, and the first view of a model page must not wait for them.
const ModelPreview = lazy(() => import('../../viewer/model-preview').then((m) => ({ default: m.ModelPreview })));

// The matches feature's routes (features do not import each other; the URLs are the contract).
const matchLinks = [
  { kind: 'part-to-part', label: 'Part-to-part matches', hint: 'the same part, however it is placed or exported' },
  { kind: 'part-in-part', label: 'Part-in-part matches', hint: 'assemblies containing it, parts it contains' },
  { kind: 'geo-related', label: 'Geo-related models', hint: 'similar size, proportions and holes' },
] as const;

function hasGeometry(state: string): boolean {
  return (searchableStates as readonly string[]).includes(state);
}

/** Sends the file of a model still waiting for it: the same record, a fresh upload address. */
function AttachFile({ model, folderPath }: { model: Model; folderPath: string | undefined }) {
  const attach = useAttachFile();
  // A deployment of the published API answers the file name only: the path is the folder's and it.
  const fileName = fileNameOf(model.filePath);
  const filePath = folderPath ? `${folderPath}/${fileName}` : model.filePath;
  const inputId = useId();
  const extension = extensionOf(model.filePath);
  const [problem, setProblem] = useState<string | null>(null);
  const onFile = (file: File | undefined) => {
    if (!file) return;
    if (extensionOf(file.name) !== extension) {
      setProblem(`This model is a .${extension} file; choose a .${extension} file (you chose “${file.name}”).`);
      return;
    }
    setProblem(null);
    attach.mutate({ model: { id: model.id, name: model.name, filePath }, file });
  };
  return (
    <div className="attach-file">
      <label htmlFor={inputId} className={`button button--small${attach.isPending ? ' is-disabled' : ''}`}>
        {attach.isPending ? 'Sending the file…' : 'Attach file'}
      </label>
      <input
        id={inputId}
        type="file"
        className="visually-hidden"
        accept={extension}
        disabled={attach.isPending}
        onChange={(event) => {
          onFile(event.target.files?.[0]);
          event.target.value = '';
        }}
      />
      {(problem ?? (attach.isError ? errorMessage(attach.error) : null)) && (
        <p className="form-error" role="alert">
          {problem ?? errorMessage(attach.error)}
        </p>
      )}
    </div>
  );
}

/** How many matches of each kind pass the lists' opening threshold, each a link to its list. */
function MatchSummary({ model, working }: { model: Model; working: boolean }) {
  const searchable = hasGeometry(model.state);
  const thresholds = { 'part-to-part': defaultMatchThreshold, 'part-in-part': defaultMatchThreshold, 'geo-related': defaultMatchThreshold };
  const counts = useMatchCounts(model.id, thresholds, undefined, { enabled: searchable });
  if (!searchable) {
    return (
      <p className="muted model__no-matches">
        {working
          ? 'Matches can be searched once processing has finished.'
          : 'This model cannot be matched: its geometry could not be read.'}
      </p>
    );
  }
  return (
    <nav className="match-summary" aria-label={`Matches at ${defaultMatchThreshold}% or more`}>
      {matchLinks.map((link) => {
        const count = counts[link.kind];
        const text = count.data !== undefined ? String(count.data) : count.isError ? '–' : '…';
        return (
          <Link key={link.kind} className="match-summary__link" to={paths.matches.href(model.id, link.kind)}>
            <span className="match-summary__count" aria-busy={count.data === undefined && !count.isError}>
              {text}
            </span>{' '}
            <span className="match-summary__label">{link.label}</span> <span className="match-summary__hint">{link.hint}</span>
          </Link>
        );
      })}
    </nav>
  );
}

/** A row of the assembly tree shown in the 3D view. */
interface ShownPart {
  modelId: string;
  name: string;
  placements: number[][];
}

/** Which axis the model stands on; a designer fixes a file that breaks its format's rule. */
function UpAxisChoice({ model }: { model: Model }) {
  const editable = useCanEdit();
  const setUp = useSetUpAxis();
  const id = useId();
  const usual = defaultUpAxis(model.fileName);
  const note = (axis: UpAxis) => (axis === usual ? ' (usual for this file type)' : '');
  return (
    <div className="model__up-axis">
      <label htmlFor={id}>Up axis</label>
      <select
        id={id}
        value={upAxisOf(model)}
        // A deployment that does not report the axis cannot keep a choice either.
        disabled={!editable || setUp.isPending || model.upAxis === undefined}
        onChange={(event) => setUp.mutate({ id: model.id, upAxis: event.target.value as UpAxis })}
      >
        <option value="z">Z is up{note('z')}</option>
        <option value="y">Y is up{note('y')}</option>
      </select>
      {setUp.isPending && <span className="muted">Saving…</span>}
      {setUp.isError && (
        <span className="form-error" role="alert">
          {errorMessage(setUp.error)}
        </span>
      )}
    </div>
  );
}

function PreviewSection({ model, shownPart, isolate }: { model: Model; shownPart: ShownPart | null; isolate: boolean }) {
  const ready = hasGeometry(model.state);
  const viewerFile = useViewerFile(model, ready);
  const partFile = useViewerFile({ id: shownPart?.modelId ?? '', viewerFile: null }, ready && shownPart !== null);
  const highlight = useMemo(
    () => (shownPart && partFile.data ? { url: partFile.data, placements: shownPart.placements, isolate } : null),
    [shownPart, partFile.data, isolate],
  );
  const thumbnail = safeImageUrl(model.thumbnail);
  // Keep showing the address the viewer loaded: a refreshed (re-signed) address of the same
  // processed file must not reload the model and reset the view. A new version (after
  // reprocessing) does replace it.
  const [shown, setShown] = useState<{ url: string; version: string } | null>(null);
  const fresh = viewerFile.data !== undefined && !viewerFile.isFetching ? viewerFile.data : undefined;
  if (fresh !== undefined && shown?.version !== model.updatedAt) setShown({ url: fresh, version: model.updatedAt });
  const viewerUrl = shown?.version === model.updatedAt ? shown.url : undefined;
  const label = `3D preview of ${model.name}`;

  let body;
  if (!ready) {
    const working = !isSettled(model.state);
    body = (
      <div className="preview-placeholder">
        {thumbnail && <img src={thumbnail} alt="" className="preview-placeholder__image" />}
        <p>
          {working
            ? 'The 3D preview appears when processing has finished.'
            : 'There is no 3D preview: the geometry of this file could not be read.'}
        </p>
      </div>
    );
  } else if (viewerUrl) {
    body = (
      <Suspense
        fallback={
          <div className="viewer viewer--placeholder" role="status">
            Loading the 3D viewer…
          </div>
        }
      >
        <ModelPreview
          url={viewerUrl}
          label={shownPart ? `${label}, ${shownPart.name} highlighted` : label}
          fallbackImageUrl={thumbnail}
          highlight={highlight}
          up={upAxisOf(model)}
        />
      </Suspense>
    );
  } else if (viewerFile.isError) {
    body = (
      <ErrorState
        title="The 3D preview could not be loaded"
        message={errorMessage(viewerFile.error)}
        onRetry={() => void viewerFile.refetch()}
      />
    );
  } else {
    body = <div className="viewer viewer--placeholder" aria-busy="true" />;
  }
  return (
    <section className="card model__preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading" className="card__title">
        Preview
      </h2>
      {body}
      <UpAxisChoice model={model} />
      {shownPart && (
        <p className="muted" role="status">
          {partFile.isError
            ? `${shownPart.name} could not be loaded: ${errorMessage(partFile.error)}`
            : `${shownPart.name} is highlighted${isolate ? ', alone' : ''}.`}
        </p>
      )}
    </section>
  );
}

interface PartShowing {
  shown: ShownPart | null;
  onShow: (part: ShownPart | null) => void;
}

function AssemblyNodeLabel({ node, placements, showing }: { node: AssemblyTreeNode; placements: number[][]; showing: PartShowing }) {
  const count = node.occurrences ?? 1;
  const modelId = node.modelId;
  const pressed = modelId !== null && showing.shown?.modelId === modelId && showing.shown.placements === placements;
  return (
    <span className="assembly__row">
      <span className="assembly__kind">{node.type === 'subAssembly' ? 'Sub-assembly' : 'Part'}</span>{' '}
      {node.modelId ? (
        <Link className="assembly__name" to={paths.model.href(node.modelId)}>
          {node.name}
        </Link>
      ) : (
        <>
          <span className="assembly__name">{node.name}</span> <span className="badge badge--failed">Missing</span>
        </>
      )}
      {count > 1 && (
        <>
          {' '}
          <span className="assembly__count" title={`Used ${count} times`}>
            ×{count}
          </span>
        </>
      )}
      {modelId && placements.length > 0 && (
        <>
          {' '}
          <button
            type="button"
            className="button button--small assembly__show"
            aria-pressed={pressed}
            aria-label={`Show ${node.name} in the 3D view`}
            onClick={() => showing.onShow(pressed ? null : { modelId, name: node.name, placements })}
          >
            {pressed ? 'Shown' : 'Show'}
          </button>
        </>
      )}
    </span>
  );
}

/** Parts and sub-assemblies, repeated parts as one row with a quantity, sub-assemblies folding. */
function AssemblyNodes({
  nodes,
  level = 1,
  parentPlacements,
  showing,
}: {
  nodes: readonly AssemblyTreeNode[];
  level?: number;
  parentPlacements: readonly number[][];
  showing: PartShowing;
}) {
  const rows = useMemo(
    () => withQuantities(nodes).map((node) => ({ node, placements: placementsOf(parentPlacements, node) })),
    [nodes, parentPlacements],
  );
  return (
    <ul className="assembly">
      {rows.map(({ node, placements }, index) => (
        <li key={`${node.modelId ?? node.name}-${index}`} className="assembly__node">
          {node.children && node.children.length > 0 ? (
            <details open={level < 2}>
              <summary>
                <AssemblyNodeLabel node={node} placements={placements} showing={showing} />
              </summary>
              <AssemblyNodes nodes={node.children} level={level + 1} parentPlacements={placements} showing={showing} />
            </details>
          ) : (
            <AssemblyNodeLabel node={node} placements={placements} showing={showing} />
          )}
        </li>
      ))}
    </ul>
  );
}

function AssemblySection({
  model,
  showing,
  isolate,
  onIsolate,
}: {
  model: Model;
  showing: PartShowing;
  isolate: boolean;
  onIsolate: (isolate: boolean) => void;
}) {
  const tree = useAssemblyTree(model.id, isSettled(model.state));
  const missing = model.missingParts ?? [];
  return (
    <section className="card model__tree" aria-labelledby="assembly-heading">
      <h2 id="assembly-heading" className="card__title">
        Assembly
      </h2>
      {model.partCount != null && (
        <p className="muted">
          {model.partCount} {model.partCount === 1 ? 'part' : 'parts'}
        </p>
      )}
      {missing.length > 0 && (
        <div className="warning" role="note">
          <p>
            <strong>
              {missing.length} {missing.length === 1 ? 'part is' : 'parts are'} missing.
            </strong>{' '}
            Upload {missing.length === 1 ? 'it' : 'them'} into this folder or a subfolder; the assembly is then linked and processed again.
          </p>
          <ul>
            {missing.map((name) => (
              <li key={name}>
                <code>{name}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {!isSettled(model.state) ? (
        <p className="muted">The part list appears when processing has finished.</p>
      ) : tree.isPending ? (
        <LoadingState label="Loading the part list…" />
      ) : tree.isError ? (
        <ErrorState title="The part list could not be loaded" message={errorMessage(tree.error)} onRetry={() => void tree.refetch()} />
      ) : tree.data.children.length === 0 ? (
        <p className="muted">No parts are listed for this assembly.</p>
      ) : (
        <>
          {showing.shown && (
            <div className="assembly__showing" role="group" aria-label="Part in the 3D view">
              <span>
                <strong>{showing.shown.name}</strong> is highlighted in the 3D view.
              </span>
              <label className="check">
                <input type="checkbox" checked={isolate} onChange={(e) => onIsolate(e.target.checked)} /> Show it alone
              </label>
              <button type="button" className="button button--small" onClick={() => showing.onShow(null)}>
                Show the whole assembly
              </button>
            </div>
          )}
          <AssemblyNodes nodes={tree.data.children} parentPlacements={assemblyOrigin} showing={showing} />
          <PartListDownload model={model} />
        </>
      )}
    </section>
  );
}

function DeleteModelDialog({ model, onClose, onDeleted }: { model: Model; onClose: () => void; onDeleted: () => void }) {
  const remove = useDeleteModel();
  return (
    <ConfirmDeleteDialog
      title="Delete model?"
      onClose={onClose}
      onConfirm={() => remove.mutate(model.id, { onSuccess: onDeleted })}
      pending={remove.isPending}
      error={remove.isError ? remove.error : null}
    >
      <p>
        <strong>{model.name}</strong> (<code>{model.filePath}</code>) will be deleted with its file, its 3D preview and its matches.
      </p>
      <p>This cannot be undone.</p>
    </ConfirmDeleteDialog>
  );
}

function ModelView({ model }: { model: Model }) {
  const editable = useCanEdit();
  const navigate = useNavigate();
  const folder = useFolder(model.folderId);
  const reprocess = useReprocessModel();
  const download = useSourceFile();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [moving, setMoving] = useState(false);
  const [shownPart, setShownPart] = useState<ShownPart | null>(null);
  const [isolate, setIsolate] = useState(false);
  const showing = useMemo(() => ({ shown: shownPart, onShow: setShownPart }), [shownPart]);
  const displayUnit = useDisplayUnit();
  const hasFile = model.state !== 'incomplete-upload';
  const info = stateInfo(model.state);
  const working = !isSettled(model.state);
  const facts = model.facts ? factRows(model.facts, displayUnit) : null;
  const folderLabel = folder.data?.path ?? `Folder ${model.folderId}`;
  const details: { label: string; value: ReactNode }[] = [
    { label: 'File path', value: <code>{model.filePath}</code> },
    { label: 'Folder', value: <Link to={paths.folder.href(model.folderId)}>{folderLabel}</Link> },
    { label: 'Type', value: `${fileTypeLabel(model.fileType)}${model.isAssembly ? ' assembly' : ''}` },
    ...(model.fileSize != null ? [{ label: 'File size', value: formatBytes(model.fileSize) }] : []),
    {
      label: 'Created',
      value: (
        <>
          <RelativeTime value={model.createdAt} /> <span className="muted">({formatDateTime(model.createdAt)})</span>
        </>
      ),
    },
    {
      label: 'Updated',
      value: (
        <>
          <RelativeTime value={model.updatedAt} /> <span className="muted">({formatDateTime(model.updatedAt)})</span>
        </>
      ),
    },
    ...(facts ?? []),
  ];

  return (
    <div className="page model">
      <header className="page__header model__header">
        <div>
          <Breadcrumbs
            trail={[
              { label: 'All folders', to: paths.folders.href() },
              { label: folderLabel, to: paths.folder.href(model.folderId) },
            ]}
          />
          <h1>{model.name}</h1>
          <p className="model__badges">
            <StateBadge state={model.state} />
            <span className="muted">{fileTypeLabel(model.fileType)}</span>
            {model.isAssembly && <span className="muted">Assembly</span>}
          </p>
        </div>
        <div className="actions model__actions">
          {hasFile && (
            <button
              type="button"
              className="button"
              disabled={download.isPending}
              aria-busy={download.isPending}
              // The answer is an attachment: the browser saves it and the page stays.
              onClick={() => download.mutate(model.id, { onSuccess: (url) => window.location.assign(url) })}
            >
              {download.isPending ? 'Preparing…' : 'Download original'}
            </button>
          )}
          {editable && (
            <button
              type="button"
              className="button"
              disabled={working || reprocess.isPending}
              aria-busy={reprocess.isPending}
              title={working ? 'The model is still being processed.' : undefined}
              onClick={() => reprocess.mutate(model.id)}
            >
              {reprocess.isPending ? 'Starting…' : 'Reprocess'}
            </button>
          )}
          {editable && (
            <button type="button" className="button" onClick={() => setMoving(true)}>
              Move to folder
            </button>
          )}
          <CompareSetToggle model={model} />
          {editable && (
            <button type="button" className="button button--danger-quiet" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          )}
        </div>
      </header>
      {download.isError && (
        <p className="form-error" role="alert">
          The original file could not be downloaded: {errorMessage(download.error)}
        </p>
      )}
      {reprocess.isError && (
        <p className="form-error" role="alert">
          Reprocessing could not start: {errorMessage(reprocess.error)}
        </p>
      )}

      {working ? (
        <div className="state model__progress" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" />
          <div>
            <p className="state__title">{info.label}</p>
            <p>{info.progress}</p>
            <p className="muted">This page updates by itself.</p>
            {!hasFile && editable && <AttachFile model={model} folderPath={folder.data?.path} />}
          </div>
        </div>
      ) : (
        model.stateReason && (
          <div className={info.tone === 'failed' ? 'state state--error' : 'warning'} role="note">
            <p className="state__title">{info.label}</p>
            <p>{model.stateReason}</p>
          </div>
        )
      )}

      <MatchSummary model={model} working={working} />

      {/* An assembly's tree sits beside its 3D view, so "Show" highlights a part in a view on screen. */}
      <div className="model__grid">
        <PreviewSection model={model} shownPart={shownPart} isolate={isolate} />
        {model.isAssembly && <AssemblySection model={model} showing={showing} isolate={isolate} onIsolate={setIsolate} />}
        <section className="card model__details" aria-labelledby="details-heading">
          <div className="card__heading-row">
            <h2 id="details-heading" className="card__title">
              Details
            </h2>
            {facts && <UnitSwitch />}
          </div>
          <dl className="facts">
            {details.map((row) => (
              <div key={row.label} className="facts__row">
                <dt>{row.label}</dt>
                <dd>{row.value}</dd>
              </div>
            ))}
          </dl>
          {!facts && (
            <p className="muted">{working ? 'Geometry facts appear when processing has finished.' : 'No geometry facts for this model.'}</p>
          )}
        </section>
      </div>

      <WhereUsedSection model={model} />
      <MetadataSection model={model} editable={editable} />

      {moving && <MoveModelDialog models={[model]} onClose={() => setMoving(false)} />}
      {confirmDelete && (
        <DeleteModelDialog
          model={model}
          onClose={() => setConfirmDelete(false)}
          onDeleted={() => void navigate(paths.folder.href(model.folderId), { replace: true })}
        />
      )}
    </div>
  );
}

/** /models/:modelId: one model, polled while it is being processed. */
export function ModelPage() {
  const modelId = useParams().modelId ?? '';
  const model = useModel(modelId);

  if (!model.data) {
    return (
      <RecordPageState
        query={model}
        noun="model"
        notFound={
          <MissingPage title="Model not found">
            <p>This model does not exist any more, or it is not visible to you.</p>
          </MissingPage>
        }
      />
    );
  }
  return <ModelView model={model.data} />;
}
