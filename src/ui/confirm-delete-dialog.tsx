import { useRef, type ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { Dialog } from './dialog';

/** A "Delete …?" confirmation: Cancel has the focus, the service's refusal is shown in place. */
export function ConfirmDeleteDialog({
  title,
  onClose,
  onConfirm,
  pending,
  error,
  disabled = false,
  children,
}: {
  title: string;
  onClose: () => void;
  onConfirm: () => void;
  pending: boolean;
  /** The failed mutation's error, or null. */
  error: unknown;
  /** Deleting is impossible (the text says why); only Cancel works. */
  disabled?: boolean;
  children: ReactNode;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog title={title} onClose={onClose} initialFocusRef={cancelRef} busy={pending}>
      {children}
      {error != null && (
        <p className="form-error" role="alert">
          {errorMessage(error)}
        </p>
      )}
      <div className="dialog__actions">
        <button type="button" className="button" ref={cancelRef} onClick={onClose} disabled={pending}>
          Cancel
        </button>
        <button type="button" className="button button--danger" onClick={onConfirm} disabled={pending || disabled} aria-busy={pending}>
          {pending ? 'Deleting…' : 'Delete'}
        </button>
      </div>
    </Dialog>
  );
}
