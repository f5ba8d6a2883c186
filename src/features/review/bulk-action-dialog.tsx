import { useRef, useState } from 'react';
import { errorMessage } from '../../api/client';
import { useDuplicateAction, type DuplicateAction } from '../../api/duplicate-review';
import { useCreateFolder, useFolderTree } from '../../api/folders';
import { useMetadataKeys } from '../../api/metadata-keys';
import type { DecidedDuplicate } from '../../contract/duplicate-review';
import { Dialog } from '../../ui/dialog';
import { FolderPicker } from '../../ui/folder-picker';
import { toggled } from './toggled';

type Kind = DuplicateAction['action'];

const kindWords: Record<Kind, string> = {
  move: 'Move them to a folder',
  'set-metadata': 'Set a metadata value on them',
  delete: 'Delete them',
};

/**
 * Acts on every decided duplicate of a report, after a confirmation that lists exactly what
 * happens to each; a duplicate an assembly uses is deleted only once that assembly is confirmed by
 * name. Sent in requests of at most 100 (each all or nothing), with progress.
 */
export function BulkActionDialog({
  reportId,
  duplicates: current,
  onClose,
}: {
  /** The report acted from: its list of decided duplicates drops these, and it stays current. */
  reportId: string;
  duplicates: readonly DecidedDuplicate[];
  onClose: () => void;
}) {
  // What was confirmed stays on screen as it was: the report's list empties as it is acted on.
  const [sent, setSent] = useState<readonly DecidedDuplicate[] | null>(null);
  const duplicates = sent ?? current;
  const [kind, setKind] = useState<Kind>('move');
  const [folderId, setFolderId] = useState<number | null>(null);
  const [keyId, setKeyId] = useState<number | null>(null);
  const [value, setValue] = useState('');
  const [confirmed, setConfirmed] = useState<Set<string>>(new Set());
  const [done, setDone] = useState(0);
  const folders = useFolderTree({ fresh: true });
  const createFolder = useCreateFolder();
  const keys = useMetadataKeys(kind === 'set-metadata');
  const run = useDuplicateAction();
  const undo = useDuplicateAction();
  const cancelRef = useRef<HTMLButtonElement>(null);

  const folder = folders.data?.find((f) => f.id === folderId);
  const key = keys.data?.find((k) => k.id === keyId);
  // Assemblies that reference a duplicate lose a part when it is deleted (those only found to contain its shape do not).
  const assemblies = [
    ...new Map(duplicates.flatMap((d) => d.usedIn.filter((a) => a.by === 'reference')).map((a) => [a.id, a])).values(),
  ].filter((a) => !duplicates.some((d) => d.model.id === a.id));
  const ready =
    kind === 'move' ? folder !== undefined : kind === 'set-metadata' ? key !== undefined : assemblies.every((a) => confirmed.has(a.id));
  const finished = run.isSuccess;

  const effect = (d: DecidedDuplicate) => {
    if (kind === 'move') return folder ? `${d.model.filePath} → ${folder.path}/${d.model.fileName}` : d.model.filePath;
    if (kind === 'set-metadata') return `${d.model.filePath}: ${key?.name ?? 'the key'} = ${value || d.master.filePath}`;
    return `${d.model.filePath} is deleted (${d.master.filePath} is kept)`;
  };
  // Each moved duplicate back to the folder it came from (as the confirmed plan had it).
  const undoMove = async () => {
    const byFolder = new Map<number, string[]>();
    for (const d of duplicates) byFolder.set(d.model.folderId, [...(byFolder.get(d.model.folderId) ?? []), d.model.id]);
    try {
      for (const [from, modelIds] of byFolder)
        await undo.mutateAsync({ action: { action: 'move', folderId: from, reportId }, modelIds, onProgress: () => {} });
    } catch {
      // Shown from undo.error; what moved back stays moved back.
    }
  };
  const action = (): DuplicateAction =>
    kind === 'move'
      ? { action: 'move', folderId: folderId!, reportId }
      : kind === 'set-metadata'
        ? { action: 'set-metadata', metadataKeyId: keyId!, reportId, ...(value ? { value } : {}) }
        : { action: 'delete', confirmedAssemblyIds: [...confirmed], reportId };

  return (
    <Dialog
      title={`Act on ${duplicates.length} decided ${duplicates.length === 1 ? 'duplicate' : 'duplicates'}`}
      onClose={onClose}
      initialFocusRef={cancelRef}
      busy={run.isPending}
      className="dialog--wide"
    >
      <fieldset
        disabled={run.isPending}
        hidden={finished}
        style={{ border: 0, padding: 0, margin: 0, display: finished ? 'none' : 'grid', gap: '0.5rem' }}
      >
        <legend className="visually-hidden">Action</legend>
        {(Object.keys(kindWords) as Kind[]).map((k) => (
          <label key={k} className="check">
            <input type="radio" name="bulk-kind" checked={kind === k} onChange={() => setKind(k)} />
            {kindWords[k]}
          </label>
        ))}
        {kind === 'move' && (
          <FolderPicker
            folders={folders.data ?? []}
            value={folderId}
            onChange={setFolderId}
            onCreate={(name, parentFolderId) => createFolder.mutateAsync({ name, parentFolderId })}
          />
        )}
        {kind === 'set-metadata' && (
          <>
            <label className="field">
              <span>Metadata key</span>
              <select value={keyId ?? ''} onChange={(event) => setKeyId(event.target.value ? Number(event.target.value) : null)}>
                <option value="">{keys.isPending ? 'Loading keys…' : 'Choose a key…'}</option>
                {keys.data?.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.name}
                  </option>
                ))}
              </select>
              {keys.data?.length === 0 && (
                <span className="field__hint">No metadata keys yet: create one on a model page first (for example “duplicateOf”).</span>
              )}
            </label>
            <label className="field">
              <span>Value</span>
              <input
                type="text"
                maxLength={10_000}
                value={value}
                placeholder="Empty: each duplicate's master path"
                onChange={(event) => setValue(event.target.value)}
              />
            </label>
          </>
        )}
        {kind === 'delete' && assemblies.length > 0 && (
          <div className="warning" role="note">
            <p>
              Some duplicates are used in assemblies. Those assemblies are processed again and will name the part missing. Confirm each one:
            </p>
            {assemblies.map((a) => (
              <label key={a.id} className="check" style={{ whiteSpace: 'normal' }}>
                <input
                  type="checkbox"
                  checked={confirmed.has(a.id)}
                  onChange={(event) => setConfirmed(toggled(confirmed, a.id, event.target.checked))}
                />
                Delete parts used by {a.filePath}
              </label>
            ))}
          </div>
        )}
      </fieldset>
      <p>{finished ? 'What was done:' : `Exactly this happens (${duplicates.length}):`}</p>
      <ol className="review-plan" data-testid="bulk-plan">
        {duplicates.map((d) => (
          <li key={d.model.id}>{effect(d)}</li>
        ))}
      </ol>
      <p className="muted">Masters are never changed. The decisions stay recorded.</p>
      {(run.isPending || finished || run.isError) && (
        <p role="status" aria-live="polite">
          {finished
            ? `Done: ${done} of ${duplicates.length}.`
            : run.isError
              ? `Stopped after ${done} of ${duplicates.length}.`
              : `Working… ${done} of ${duplicates.length}`}
        </p>
      )}
      {run.isError && (
        <p className="form-error" role="alert">
          {errorMessage(run.error)}
        </p>
      )}
      {undo.isSuccess && (
        <p role="status" data-testid="bulk-undone">
          Moved back: each duplicate is in its folder again and is listed to act on.
        </p>
      )}
      {undo.isError && (
        <p className="form-error" role="alert">
          Moving back stopped: {errorMessage(undo.error)}
        </p>
      )}
      <div className="dialog__actions">
        <button type="button" className="button" ref={cancelRef} onClick={onClose} disabled={run.isPending}>
          {finished ? 'Close' : 'Cancel'}
        </button>
        {finished && kind === 'move' && !undo.isSuccess && (
          <button type="button" className="button" disabled={undo.isPending} aria-busy={undo.isPending} onClick={() => void undoMove()}>
            {undo.isPending ? 'Moving back…' : 'Undo the move'}
          </button>
        )}
        {!finished && (
          <button
            type="button"
            className={kind === 'delete' ? 'button button--danger' : 'button button--primary'}
            disabled={!ready || run.isPending || duplicates.length === 0}
            aria-busy={run.isPending}
            onClick={() => {
              setDone(0);
              setSent(duplicates);
              run.mutate(
                { action: action(), modelIds: duplicates.map((d) => d.model.id), onProgress: setDone },
                // Stopped part way: what is left to do is the report's list again.
                { onError: () => setSent(null) },
              );
            }}
          >
            {run.isPending
              ? 'Working…'
              : kind === 'delete'
                ? `Delete ${duplicates.length}`
                : kind === 'move'
                  ? `Move ${duplicates.length}`
                  : `Set on ${duplicates.length}`}
          </button>
        )}
      </div>
    </Dialog>
  );
}
