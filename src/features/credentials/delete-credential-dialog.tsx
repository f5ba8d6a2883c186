import { useRef } from 'react';
import { errorMessage } from '../../api/client';
import { useDeleteClientCredential } from '../../api/client-credentials';
import { Dialog } from '../../app/ui/dialog';
import type { ClientCredential } from '../../contract/client-credentials';

export function DeleteCredentialDialog({
  credential,
  onClose,
  onDeleted,
}: {
  credential: ClientCredential;
  onClose: () => void;
  onDeleted: (clientId: string) => void;
}) {
  const remove = useDeleteClientCredential();
  const cancelRef = useRef<HTMLButtonElement>(null);

  const confirm = () => {
    remove.mutate(credential.clientId, { onSuccess: () => onDeleted(credential.clientId) });
  };

  return (
    <Dialog title="Delete credential?" onClose={onClose} initialFocusRef={cancelRef} busy={remove.isPending}>
      <p>
        <strong>{credential.name}</strong> (<code>{credential.clientId}</code>) will stop working at once: scripts using it can no
        longer get tokens, and tokens already issued with it are refused.
      </p>
      <p>This cannot be undone.</p>
      {remove.isError && (
        <p className="form-error" role="alert">
          {errorMessage(remove.error)}
        </p>
      )}
      <div className="dialog__actions">
        <button type="button" className="button" ref={cancelRef} onClick={onClose} disabled={remove.isPending}>
          Cancel
        </button>
        <button type="button" className="button button--danger" onClick={confirm} disabled={remove.isPending} aria-busy={remove.isPending}>
          {remove.isPending ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </Dialog>
  );
}
