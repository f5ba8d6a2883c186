import { useId, useMemo, useRef, useState } from 'react';
import { fileNameOf } from '../../contract/file-paths';
import { errorMessage } from '../../api/client';
import { useFolderTree } from '../../api/folders';
import { useMoveModel } from '../../api/models';
import { Dialog } from '../../ui/dialog';
import type { Model } from '../../contract/models';

/** "Move to folder": any folder of the tenant but the model's own; the service's refusal in place. */
export function MoveModelDialog({ model, onClose }: { model: Model; onClose: () => void }) {
  const tree = useFolderTree();
  const move = useMoveModel();
  const selectId = useId();
  const selectRef = useRef<HTMLSelectElement>(null);
  const options = useMemo(
    () => (tree.data ?? []).filter((f) => f.id !== model.folderId).sort((a, b) => a.path.localeCompare(b.path)),
    [tree.data, model.folderId],
  );
  const [folderId, setFolderId] = useState<number | null>(null);
  const fileName = fileNameOf(model.filePath);
  const target = options.find((f) => f.id === folderId);
  return (
    <Dialog title={`Move ${model.name}`} onClose={onClose} initialFocusRef={selectRef} busy={move.isPending}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (folderId !== null) move.mutate({ id: model.id, folderId }, { onSuccess: onClose });
        }}
      >
        <div className="field">
          <label htmlFor={selectId}>Folder</label>
          <select
            id={selectId}
            ref={selectRef}
            value={folderId ?? ''}
            onChange={(event) => setFolderId(event.target.value ? Number(event.target.value) : null)}
            disabled={tree.isPending}
          >
            <option value="">{tree.isPending ? 'Loading folders…' : 'Choose a folder…'}</option>
            {options.map((f) => (
              <option key={f.id} value={f.id}>
                {f.path}
              </option>
            ))}
          </select>
        </div>
        {target && (
          <p className="muted">
            New path: <code>{`${target.path}/${fileName}`}</code>
          </p>
        )}
        {(tree.isError || move.isError) && (
          <p className="form-error" role="alert">
            {errorMessage(move.error ?? tree.error)}
          </p>
        )}
        <div className="dialog__actions">
          <button type="button" className="button" onClick={onClose} disabled={move.isPending}>
            Cancel
          </button>
          <button
            type="submit"
            className="button button--primary"
            disabled={folderId === null || move.isPending}
            aria-busy={move.isPending}
          >
            {move.isPending ? 'Moving…' : 'Move'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
