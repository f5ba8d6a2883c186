import { useId, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/client';
import { useCreateFolder, useDeleteFolder, useRenameFolder } from '../../api/folders';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
import { Dialog } from '../../ui/dialog';
import type { Folder } from '../../contract/folders';
import { folderNameProblem } from '../../contract/file-paths';

type NameDialogProps =
  | { mode: 'create'; parent: Folder | null; onClose: () => void; onDone: (folder: Folder) => void }
  | { mode: 'rename'; folder: Folder; onClose: () => void; onDone: (folder: Folder) => void };

/** Create a (sub)folder or rename one; the name rules are checked here and again by the service. */
export function FolderNameDialog(props: NameDialogProps) {
  const create = useCreateFolder();
  const rename = useRenameFolder();
  const mutation = props.mode === 'create' ? create : rename;
  const [name, setName] = useState(props.mode === 'rename' ? props.folder.name : '');
  const [localError, setLocalError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const errorId = useId();

  const title = props.mode === 'rename' ? 'Rename folder' : props.parent ? `New folder in ${props.parent.name}` : 'New top-level folder';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const problem = folderNameProblem(trimmed);
    if (problem) {
      setLocalError(trimmed ? problem : 'Enter a name for the folder.');
      return;
    }
    setLocalError(null);
    if (props.mode === 'create') {
      create.mutate({ name: trimmed, parentFolderId: props.parent?.id ?? null }, { onSuccess: props.onDone });
    } else if (trimmed === props.folder.name) {
      props.onClose();
    } else {
      rename.mutate({ id: props.folder.id, name: trimmed }, { onSuccess: props.onDone });
    }
  };

  const error = localError ?? (mutation.isError ? errorMessage(mutation.error) : null);

  return (
    <Dialog title={title} onClose={props.onClose} initialFocusRef={inputRef} busy={mutation.isPending}>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={inputId}>Folder name</label>
          <input
            id={inputId}
            ref={inputRef}
            type="text"
            value={name}
            maxLength={100}
            autoComplete="off"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(event) => {
              setName(event.target.value);
              setLocalError(null);
            }}
          />
          <p className="field__hint">Up to 100 characters, without / \ : * ? " &lt; &gt; | # [ ].</p>
        </div>
        {error && (
          <p id={errorId} className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="dialog__actions">
          <button type="button" className="button" onClick={props.onClose} disabled={mutation.isPending}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={mutation.isPending} aria-busy={mutation.isPending}>
            {mutation.isPending ? 'Saving…' : props.mode === 'create' ? 'Create folder' : 'Rename'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function DeleteFolderDialog({
  folder,
  hasSubfolders,
  onClose,
  onDeleted,
}: {
  folder: Folder;
  hasSubfolders: boolean;
  onClose: () => void;
  onDeleted: (folder: Folder) => void;
}) {
  const remove = useDeleteFolder();
  // Without a count (deployments of the published API) the service decides, and says why.
  const models = folder.modelCount ?? 0;
  const blocked = hasSubfolders || models > 0;

  return (
    <ConfirmDeleteDialog
      title="Delete folder?"
      onClose={onClose}
      onConfirm={() => remove.mutate(folder.id, { onSuccess: () => onDeleted(folder) })}
      pending={remove.isPending}
      error={remove.isError ? remove.error : null}
      disabled={blocked}
    >
      {blocked ? (
        <p>
          <strong>{folder.name}</strong> is not empty:{' '}
          {models > 0 ? `it holds ${models} ${models === 1 ? 'model' : 'models'}` : 'it has subfolders'}. Only empty folders can be deleted
          — move or delete what is inside first.
        </p>
      ) : (
        <p>
          The empty folder <strong>{folder.name}</strong> (<code>{folder.path}</code>) will be deleted.
        </p>
      )}
    </ConfirmDeleteDialog>
  );
}
