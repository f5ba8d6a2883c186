import { useCallback, useEffect, useId, useMemo, useState, useSyncExternalStore } from 'react';
import { Link, useSearchParams } from 'react-router';
import { paths } from '../../ui/paths';
import { errorMessage } from '../../api/client';
import { useFolder, useFolderTree } from '../../api/folders';
import { parseFolderId } from '../../contract/folders';
import { fileNameOf } from '../../contract/file-paths';
import { declaredUnitChoices, type DeclaredUnit } from '../../contract/models';
import { extensionOf, needsDeclaredUnit } from '../../contract/file-types';
import { useAppConfig } from '../../ui/config-context';
import { showToast } from '../../ui/toast';
import type { EngineSnapshot, UploadEngine } from './engine/engine';
import type { SourceFile } from './engine/planner';
import { DropZone } from './drop-zone';
import { ReviewTable } from './review-table';
import { countWords, pathInFolder, statusWords, summaryOrder, toneOf } from './status-words';
import { formatBytes } from '../../ui/format-bytes';
import { UploadTable, type RowActions } from './upload-table';
import { useAddedDuplicatesOf, type AddedDuplicate } from '../../api/added-duplicates';
import { useDeleteModel } from '../../api/models';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
import type { DuplicateDecision } from './duplicate-note';
import { type UploadSession, type WhenStored } from './upload-session';
import { uploadQueue, type UploadQueue } from './upload-queue';
import './upload.css';
import { PageHeader } from '../../ui/page-header';
import { StateSummary } from '../../ui/state-summary';

const noSubscribe = () => () => undefined;
const noSnapshot = () => null;

function useEngineSnapshot(engine: UploadEngine | null): EngineSnapshot | null {
  return useSyncExternalStore(
    engine ? engine.subscribe : noSubscribe,
    engine ? engine.getSnapshot : noSnapshot,
    engine ? engine.getSnapshot : noSnapshot,
  );
}

export function UploadPage() {
  const config = useAppConfig();
  const limit = config.uploadMaxBytes;
  useEffect(() => uploadQueue.setMaxFileBytes(limit), [limit]);
  return <UploadWorkspace queue={uploadQueue} />;
}

export function UploadWorkspace({ queue }: { queue: UploadQueue }) {
  const sessions = useSyncExternalStore(queue.subscribe, queue.getSessions, queue.getSessions);
  const first = sessions[0];
  const last = sessions.at(-1)!;

  useEffect(() => {
    void first?.restore();
  }, [first]);
  // Opened from a folder (?into=<folderId>): files go there unless a target was already chosen.
  const [params] = useSearchParams();
  const into = useFolder(parseFolderId(params.get('into') ?? undefined));
  const intoPath = into.data?.path;
  useEffect(() => {
    if (intoPath) void last.offerTargetFolder(intoPath);
  }, [intoPath, last]);

  return (
    <div className="page upload-page">
      <PageHeader title="Upload">
        <p className="lead">
          Add CAD and mesh files — single files or whole folders with their subfolders. You see every file before anything is sent; uploads
          go on while you use the rest of the workbench, and more batches can be queued behind one being sent.
        </p>
      </PageHeader>
      {sessions.map((session, i) => (
        <SessionView key={sessionKey(session)} session={session} behind={session !== first} before={sessions[i - 1]} />
      ))}
    </div>
  );
}

const sessionKeys = new WeakMap<UploadSession, number>();
let nextSessionKey = 0;
function sessionKey(session: UploadSession): number {
  let key = sessionKeys.get(session);
  if (key === undefined) sessionKeys.set(session, (key = nextSessionKey++));
  return key;
}

/** One batch: choosing files and reviewing them, queued, or being sent and followed. */
function SessionView({ session, behind, before }: { session: UploadSession; behind: boolean; before: UploadSession | undefined }) {
  const state = useSyncExternalStore(session.subscribe, session.getState, session.getState);
  const snap = useEngineSnapshot(state.engine);
  // While the batch before waits for its files dropped again, its own drop zone takes them: a
  // second one for a new batch would invite the wrong drop.
  const beforeState = useSyncExternalStore(
    before?.subscribe ?? noSubscribe,
    before?.getState ?? noSnapshot,
    before?.getState ?? noSnapshot,
  );
  const beforeSnap = useEngineSnapshot(beforeState?.engine ?? null);
  const beforeNeedsFiles = (beforeSnap?.summary['needs-file'] ?? 0) > 0;
  // Queued behind only while the batch before is still to be sent; once it is done, this is a new upload.
  const waitsBehind = behind && beforeSnap?.stage !== 'done';
  const onFiles = useCallback((files: SourceFile[]) => void session.addFiles(files), [session]);
  const running = state.phase === 'running';
  const chooseId = useId();

  return (
    <>
      {state.error && (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      )}

      {!running && !state.queued && !beforeNeedsFiles && (
        <section className="card" aria-labelledby={chooseId}>
          <h2 id={chooseId} className="card__title">
            {waitsBehind ? 'Queue another batch' : 'Choose files'}
          </h2>
          {waitsBehind && <p className="muted">It is sent once the batches above have been sent.</p>}
          <TargetFolderField session={session} value={state.targetFolder} problem={state.engine ? state.folderProblem : null} />
          <DropZone onFiles={onFiles} disabled={state.phase === 'planning'} />
        </section>
      )}

      {(state.phase === 'review' || (state.phase === 'planning' && state.engine)) && snap && (
        <ReviewSection
          session={session}
          snap={snap}
          busy={state.phase === 'planning'}
          startError={state.startError}
          queued={state.queued}
        />
      )}
      {state.phase === 'planning' && !state.engine && (
        <p className="state" role="status">
          <span className="spinner" aria-hidden="true" /> Reading the files…
        </p>
      )}

      {running && snap && (
        <BatchSection session={session} snap={snap} onFiles={onFiles} attach={state.attach} saveFailed={state.saveFailed} />
      )}
    </>
  );
}

/** Where the finished batch went: its folder (the folder list when it went to the top level). */
function TargetFolderLink({ path }: { path: string }) {
  const folders = useFolderTree();
  const folder = path ? folders.data?.find((f) => f.path === path) : undefined;
  if (path && !folder) return null;
  return (
    <Link className="button button--primary" to={folder ? paths.folder.href(folder.id) : paths.folders.href()}>
      {folder ? `Open ${folder.name}` : 'Open the folders'}
    </Link>
  );
}

/** To the target folder's "Added as duplicates since …" list, from the batch's first such model. */
function AddedDuplicatesLink({ path, since }: { path: string; since: string | undefined }) {
  const folders = useFolderTree();
  const folder = path ? folders.data?.find((f) => f.path === path) : undefined;
  if (!folder || !since) return null;
  return <Link to={`${paths.folderDuplicates.href(folder.id)}?since=${encodeURIComponent(since)}`}>(list them in {folder.name})</Link>;
}

function TargetFolderField({ session, value, problem }: { session: UploadSession; value: string; problem: string | null }) {
  const folders = useFolderTree();
  const id = useId();
  const listId = useId();
  const hintId = useId();
  const errorId = useId();
  const [text, setText] = useState(value);
  // A target set from elsewhere (the folder being browsed) replaces the text; the field's own does not.
  const [seen, setSeen] = useState(value);
  const [sent, setSent] = useState(value);
  if (seen !== value) {
    setSeen(value);
    if (value !== sent) setText(value);
  }
  const send = (next: string) => {
    setSent(next);
    void session.setTargetFolder(next);
  };
  const paths = useMemo(() => [...new Set((folders.data ?? []).map((f) => f.path))].sort((a, b) => a.localeCompare(b)), [folders.data]);
  // An existing target: what it already holds (and how far its models got), from the state report.
  const existing = useMemo(() => {
    const wanted = text
      .trim()
      .replace(/^\/+|\/+$/g, '')
      .toLowerCase();
    return wanted ? (folders.data ?? []).find((f) => f.path.toLowerCase() === wanted) : undefined;
  }, [folders.data, text]);

  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => {
      setSent(text);
      void session.setTargetFolder(text);
    }, 300);
    return () => clearTimeout(timer);
  }, [text, value, session]);

  return (
    <div className="field upload-target">
      <label htmlFor={id}>Target folder</label>
      <input
        id={id}
        type="text"
        list={listId}
        value={text}
        autoComplete="off"
        placeholder="e.g. Projects/Pump"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${hintId} ${errorId}` : hintId}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => {
          if (text !== value) send(text);
        }}
      />
      <datalist id={listId}>
        {paths.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <p id={hintId} className="field__hint">
        An existing folder{folders.isError ? '' : ' (suggested as you type)'} or a new path; missing folders are created. The dropped
        folders go inside it; left empty, they go to the top level by their own names.
      </p>
      {existing && <StateSummary folderId={existing.id} />}
      {problem && (
        <p id={errorId} className="form-error">
          {problem}
        </p>
      )}
    </div>
  );
}

const unitNames: Record<DeclaredUnit, string> = { mm: 'Millimetres', in: 'Inches', m: 'Metres' };

/** STL, OBJ, PLY and OFF files do not say their unit: the batch's choice is stored on each. */
function MeshUnitsField({ session }: { session: UploadSession }) {
  const id = useId();
  const units = useSyncExternalStore(session.subscribe, () => session.getState().meshUnits);
  return (
    <div className="control upload-units">
      <label htmlFor={id}>Units of STL, OBJ, PLY, OFF and BREP files (they do not say)</label>
      <select id={id} value={units} onChange={(event) => void session.setMeshUnits(event.target.value as DeclaredUnit)}>
        {declaredUnitChoices.map((u) => (
          <option key={u} value={u}>
            {unitNames[u]}
          </option>
        ))}
      </select>
    </div>
  );
}

const storedShown = 8;

/** Files dropped at paths that already hold a model: skipped by default, or kept beside them. */
function StoredPathsField({ session, folder }: { session: UploadSession; folder: string }) {
  const stored = useSyncExternalStore(session.subscribe, () => session.getState().stored);
  const choice = useSyncExternalStore(session.subscribe, () => session.getState().whenStored);
  const queued = useSyncExternalStore(session.subscribe, () => session.getState().queued);
  const name = useId();
  if (stored.length === 0) return null;
  const choices: [WhenStored, string][] = [
    ['skip', 'Skip them: the stored models stay as they are'],
    ['keep-both', 'Keep both: send them under a free name, such as “part (2).step”'],
  ];
  return (
    <div className="warning upload-stored" data-testid="upload-stored">
      <fieldset>
        <legend>{stored.length === 1 ? 'One file is' : `${stored.length} files are`} already on the service at the same path</legend>
        <ul className="upload-stored__paths">
          {stored.slice(0, storedShown).map((p) => (
            <li key={p}>{pathInFolder(p, folder)}</li>
          ))}
          {stored.length > storedShown && <li>and {stored.length - storedShown} more</li>}
        </ul>
        {choices.map(([value, label]) => (
          <label key={value} className="upload-stored__choice">
            <input
              type="radio"
              name={name}
              value={value}
              checked={choice === value}
              disabled={queued}
              onChange={() => void session.setWhenStored(value)}
            />{' '}
            {label}
          </label>
        ))}
      </fieldset>
    </div>
  );
}

function ReviewSection({
  session,
  snap,
  busy,
  startError,
  queued,
}: {
  session: UploadSession;
  snap: EngineSnapshot;
  busy: boolean;
  startError: string | null;
  queued: boolean;
}) {
  const headingId = useId();
  const problemCount = snap.summary.problem;
  const toSend = snap.files.filter((f) => f.status !== 'problem');
  // Files dropped at stored paths and skipped are not in the batch, but they were dropped.
  const skipped = useSyncExternalStore(session.subscribe, () =>
    session.getState().whenStored === 'skip' ? session.getState().stored.length : 0,
  );
  const dropped = snap.files.length + skipped;
  const bytes = toSend.reduce((sum, f) => sum + f.size, 0);
  const roles = { part: 0, 'sub-assembly': 0, assembly: 0 };
  for (const f of toSend) if (f.role) roles[f.role]++;

  return (
    <section className="card" aria-labelledby={headingId} aria-busy={busy || undefined} data-testid={queued ? 'upload-queued' : undefined}>
      <h2 id={headingId} className="card__title">
        {queued ? 'Queued' : 'Review'}
      </h2>
      <p role="status">
        {dropped} {dropped === 1 ? 'file' : 'files'} into <strong>{snap.targetFolder || '—'}</strong>: {toSend.length} to send (
        {formatBytes(bytes)}; {countWords(roles.part, 'part', 'parts')},{' '}
        {countWords(roles['sub-assembly'], 'sub-assembly', 'sub-assemblies')}, {countWords(roles.assembly, 'assembly', 'assemblies')})
        {problemCount > 0 && (
          <>
            , <strong className="upload-problem-count">{problemCount} with problems</strong>
          </>
        )}
        {skipped > 0 && <>, {skipped} already on the service (skipped)</>}.
      </p>
      {problemCount > 0 && (
        <div className="warning" role="note">
          Files with problems are not sent. Remove them to go on, or cancel and fix them first.
        </div>
      )}
      {queued && (
        <p className="muted" role="status">
          This batch starts on its own once the batches above have been sent.
        </p>
      )}
      <StoredPathsField session={session} folder={snap.targetFolder} />
      {snap.files.some((f) => needsDeclaredUnit(f.name)) && !queued && <MeshUnitsField session={session} />}
      <ReviewTable
        files={snap.files}
        folder={snap.targetFolder}
        busy={busy || queued}
        onRemove={(index) => void session.removeFile(index)}
      />
      {startError && (
        <p className="form-error" role="alert">
          {startError}
        </p>
      )}
      <div className="actions">
        {queued ? (
          <button type="button" className="button" onClick={() => session.unqueue()}>
            Take it out of the queue
          </button>
        ) : (
          /* Not disabled while the review is re-read: the click itself can blur the target folder
             field and so replan, and a button disabled under the pointer would swallow the click.
             The session starts once the new review is ready, or says why it cannot. */
          <button type="button" className="button button--primary" onClick={() => session.start()}>
            Start upload
          </button>
        )}
        {problemCount > 0 && !queued && (
          <button type="button" className="button" disabled={busy} onClick={() => void session.removeProblemFiles()}>
            Remove {problemCount === 1 ? 'the file' : `${problemCount} files`} with problems
          </button>
        )}
        <button type="button" className="button" onClick={() => session.cancelReview()}>
          Cancel
        </button>
      </div>
    </section>
  );
}

function summaryText(snap: EngineSnapshot): string {
  const parts = summaryOrder.filter((s) => snap.summary[s] > 0).map((s) => `${snap.summary[s]} ${statusWords[s].toLowerCase()}`);
  return parts.join(', ') || 'No files';
}

const stageWords: Record<EngineSnapshot['stage'], string> = {
  review: 'Not started',
  sending: 'Uploading',
  'needs-files': 'Waiting for files',
  processing: 'Processing',
  done: 'Done',
};

function BatchSection({
  session,
  snap,
  onFiles,
  attach,
  saveFailed,
}: {
  session: UploadSession;
  snap: EngineSnapshot;
  onFiles: (files: SourceFile[]) => void;
  attach: ReturnType<UploadSession['getState']>['attach'];
  saveFailed: boolean;
}) {
  const headingId = useId();
  const [reprocessing, setReprocessing] = useState<ReadonlySet<string>>(new Set());
  const [onlyAttention, setOnlyAttention] = useState(false);
  const percent = snap.bytesTotal > 0 ? Math.round((snap.bytesSent / snap.bytesTotal) * 100) : 100;
  const summary = summaryText(snap);
  const needFiles = snap.summary['needs-file'];
  const found = useDuplicatesOfBatch(snap);
  const cancellable = snap.summary.waiting + snap.summary.uploading + snap.summary.retrying + needFiles > 0;

  const actions: RowActions = useMemo(
    () => ({
      onCancel: (filePath) => session.cancel(filePath),
      onReprocess: (modelId) => {
        setReprocessing((s) => new Set(s).add(modelId));
        session
          .reprocess(modelId)
          .catch((error: unknown) => showToast(`Could not reprocess: ${errorMessage(error)}`, 'error'))
          .finally(() =>
            setReprocessing((s) => {
              const next = new Set(s);
              next.delete(modelId);
              return next;
            }),
          );
      },
      onReplace: (modelId, filePath, file) => {
        const wanted = extensionOf(filePath);
        if (extensionOf(file.name) !== wanted) {
          showToast(`Choose a .${wanted} file: ${fileNameOf(filePath)} keeps its name and format.`, 'error');
          return;
        }
        setReprocessing((s) => new Set(s).add(modelId));
        session
          .replaceFile(modelId, filePath, file)
          .catch((error: unknown) => showToast(`Could not replace the file: ${errorMessage(error)}`, 'error'))
          .finally(() =>
            setReprocessing((s) => {
              const next = new Set(s);
              next.delete(modelId);
              return next;
            }),
          );
      },
      reprocessing,
      duplicates: found.duplicates,
      decisions: found.decisions,
      duplicateActions: found.actions,
    }),
    [session, reprocessing, found.duplicates, found.decisions, found.actions],
  );

  // Failed, refused or waiting for the user: the rows a long batch hides among the finished ones.
  const attention = snap.files.filter((f) => ['bad', 'warn'].includes(toneOf(f.status)));
  return (
    <section className="card" aria-labelledby={headingId}>
      <div className="upload-batch__header">
        <h2 id={headingId} className="card__title">
          {stageWords[snap.stage]}
          {snap.targetFolder ? ` — ${snap.targetFolder}` : ''}
        </h2>
        <div className="actions upload-batch__actions">
          {cancellable && (
            <button type="button" className="button button--danger-quiet" onClick={() => session.cancelAll()}>
              Cancel all
            </button>
          )}
          {snap.stage === 'done' && <TargetFolderLink path={snap.targetFolder} />}
          {(snap.stage === 'done' || snap.stage === 'needs-files') && (
            <button type="button" className="button" onClick={() => void session.clear()}>
              {snap.stage === 'done' ? 'Upload more files' : 'Forget this upload'}
            </button>
          )}
        </div>
      </div>

      <div
        className="upload-progress"
        role="progressbar"
        aria-label="Bytes sent"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${formatBytes(snap.bytesSent)} of ${formatBytes(snap.bytesTotal)}`}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
      <p className="muted">
        {formatBytes(snap.bytesSent)} of {formatBytes(snap.bytesTotal)} sent
        {snap.paused ? ' · state checks paused while this tab is hidden' : ''}
      </p>
      <p data-testid="upload-summary" className="upload-summary" role="status" aria-live="polite">
        {summary}
        {found.count > 0 && (
          <>
            {' · '}
            <strong data-testid="upload-duplicate-count">{found.count} already in the library</strong>{' '}
            <AddedDuplicatesLink path={snap.targetFolder} since={found.since} />
          </>
        )}
      </p>
      {saveFailed && <p className="warning">This upload could not be saved in the browser; a reload would lose track of it.</p>}

      {needFiles > 0 && (
        <div className="upload-resume">
          <p>
            {needFiles} {needFiles === 1 ? 'file was' : 'files were'} not sent before the page was reloaded. Drop or choose the same folder
            again: only the files not sent yet are uploaded.
          </p>
          <DropZone onFiles={onFiles} hint="Only files of this upload that were not sent yet are taken." />
        </div>
      )}
      {attach && (
        <p role="status" className="muted">
          {attach.resumed.length} resumed
          {attach.alreadyDone.length > 0 && `, ${attach.alreadyDone.length} already sent`}
          {attach.changed.length > 0 && `, ${attach.changed.length} changed since (not sent)`}
          {attach.unknown.length > 0 && `, ${attach.unknown.length} not part of this upload`}.
        </p>
      )}

      {attention.length > 0 && (
        <label className="check upload-attention">
          <input type="checkbox" checked={onlyAttention} onChange={(event) => setOnlyAttention(event.target.checked)} />
          Only the {attention.length === 1 ? 'file that failed or needs' : `${attention.length} files that failed or need`} something
        </label>
      )}
      <UploadTable files={onlyAttention && attention.length > 0 ? attention : snap.files} folder={snap.targetFolder} actions={actions} />
      {found.dialog}
    </section>
  );
}

const isFinished = (status: string) => status === 'finished' || status === 'finished-incomplete';

/**
 * The batch's finished files whose part the library already held (the duplicate rule), what the
 * designer decided about each, and the confirmation of "Delete the new one". Files are asked
 * about in the order they finished, so a newly finished file asks again only about its chunk.
 */
function useDuplicatesOfBatch(snap: EngineSnapshot) {
  const [order, setOrder] = useState<readonly string[]>([]);
  const known = useMemo(() => new Set(order), [order]);
  const fresh = snap.files.flatMap((f) => (f.modelId && isFinished(f.status) && !known.has(f.modelId) ? [f.modelId] : []));
  if (fresh.length) setOrder([...order, ...fresh]);
  const { byModel } = useAddedDuplicatesOf(order);
  const [decisions, setDecisions] = useState<ReadonlyMap<string, DuplicateDecision>>(new Map());
  // A deleted model drops out of the answers; its note stays, saying what happened.
  const [deleted, setDeleted] = useState<ReadonlyMap<string, AddedDuplicate>>(new Map());
  const [confirming, setConfirming] = useState<AddedDuplicate | null>(null);
  const remove = useDeleteModel();
  const resetRemove = remove.reset;
  const decide = useCallback((id: string, decision: DuplicateDecision) => setDecisions((d) => new Map(d).set(id, decision)), []);
  const actions = useMemo(
    () => ({
      onKeep: (id: string) => decide(id, 'kept'),
      onDelete: (f: AddedDuplicate) => {
        resetRemove();
        setConfirming(f);
      },
    }),
    [decide, resetRemove],
  );
  const duplicates = useMemo(() => new Map([...byModel, ...deleted]), [byModel, deleted]);
  const count = [...duplicates.keys()].filter((id) => decisions.get(id) !== 'deleted').length;
  const since = [...byModel.values()].map((d) => d.model.createdAt).sort()[0];
  const dialog = confirming && (
    <ConfirmDeleteDialog
      title={`Delete ${confirming.model.name}?`}
      onClose={() => setConfirming(null)}
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() =>
        remove.mutate(confirming.model.id, {
          onSuccess: () => {
            setDeleted((d) => new Map(d).set(confirming.model.id, confirming));
            decide(confirming.model.id, 'deleted');
            setConfirming(null);
          },
        })
      }
    >
      <p>
        The file just uploaded, {confirming.model.filePath}, is the same part as {confirming.duplicates[0]?.matchedModel.name} (
        {confirming.duplicates[0]?.matchedModel.filePath}). The new model and its file are deleted; the one already in the library stays.
      </p>
    </ConfirmDeleteDialog>
  );
  return { duplicates, decisions, actions, count, since, dialog };
}
