import { useDeleteClientCredential } from '../../api/client-credentials';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
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

  const confirm = () => {
    remove.mutate(credential.clientId, { onSuccess: () => onDeleted(credential.clientId) });
  };

  return (
    <ConfirmDeleteDialog
      title="Delete credential?"
      onClose={onClose}
      onConfirm={confirm}
      pending={remove.isPending}
      error={remove.isError ? remove.error : null}
    >
      <p>
        <strong>{credential.name}</strong> (<code>{credential.clientId}</code>) will stop working at once: scripts using it can no longer
        get tokens, and tokens already issued with it are refused.
      </p>
      <p>This cannot be undone.</p>
    </ConfirmDeleteDialog>
  );
}
