import { useMemo, useState } from 'react';
import { fileNameOf } from '../../contract/file-paths';
import { errorMessage } from '../../api/client';
import { useCreateFolder, useFolderTree } from '../../api/folders';
import { useMoveModel } from '../../api/models';
import { Dialog } from '../../ui/dialog';
import { FolderPicker } from '../../ui/folder-picker';
import type { Folder } from '../../contract/folders';
import type { Model } from '../../contract/models';

/** What a move did: each model and the folder it came from (for Undo), and where they went. */
export interface MoveResult {
  to: Folder;
  moved: { id: string; name: string; fromFolderId: number }[];
  failed: { name: string; reason: string }[];
}

/**
 * "Move to folder" for one model or several: a folder found by searching its path, or a new one
 * made on the spot; each model keeps its file name. Models are moved one by one: a refusal (a path
 * already taken) is reported by name and the others still move.
 */
export function MoveModelDialog({
  models,
  onClose,
  onMoved,
}: {
  models: readonly Model[];
  onClose: () => void;
  onMoved?: (result: MoveResult) => void;
}) {
  const tree = useFolderTree({ fresh: true });
  const createFolder = useCreateFolder();
  const move = useMoveModel();
  const [folderId, setFolderId] = useState<number | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The models' own folder is no destination when they all share it.
  const own = useMemo(
    () => new Set(models.every((m) => m.folderId === models[0]?.folderId) && models[0] ? [models[0].folderId] : []),
    [models],
  );
  const target = tree.data?.find((f) => f.id === folderId);
  const title = models.length === 1 ? `Move ${models[0]!.name}` : `Move ${models.length} models`;

  const run = async () => {
    if (!target) return;
    const result: MoveResult = { to: target, moved: [], failed: [] };
    setError(null);
    for (const [i, model] of models.entries()) {
      setProgress(i);
      if (model.folderId === target.id) continue;
      try {
        await move.mutateAsync({ id: model.id, folderId: target.id });
        result.moved.push({ id: model.id, name: model.name, fromFolderId: model.folderId });
      } catch (e) {
        result.failed.push({ name: model.name, reason: errorMessage(e) });
      }
    }
    setProgress(null);
    if (result.failed.length && models.length === 1) {
      setError(result.failed[0]!.reason);
      return;
    }
    onMoved?.(result);
    onClose();
  };

  const busy = progress !== null;
  return (
    <Dialog title={title} onClose={onClose} busy={busy}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <div>
          {tree.isPending ? (
            <p role="status">Loading folders…</p>
          ) : (
            <FolderPicker
              folders={tree.data ?? []}
              value={folderId}
              onChange={setFolderId}
              exclude={own}
              onCreate={(name, parentFolderId) => createFolder.mutateAsync({ name, parentFolderId })}
            />
          )}
        </div>
        {target && models.length === 1 && (
          <p className="muted">
            New path: <code>{`${target.path}/${fileNameOf(models[0]!.filePath)}`}</code>
          </p>
        )}
        {busy && models.length > 1 && (
          <p role="status">
            Moving {progress! + 1} of {models.length}…
          </p>
        )}
        {(tree.isError || error) && (
          <p className="form-error" role="alert">
            {error ?? errorMessage(tree.error)}
          </p>
        )}
        <div className="dialog__actions">
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={!target || busy} aria-busy={busy}>
            {busy ? 'Moving…' : target ? `Move to ${target.name}` : 'Move'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
