import { useRef } from 'react';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import type { NewCredential } from './create-credential-form';
import { TokenRequestExample } from './token-request-example';

/** Shows a new credential's secret, once. The secret exists only in the parent's state while this is open. */
export function NewSecretDialog({ credential, tokenUrl, onClose }: { credential: NewCredential; tokenUrl: string; onClose: () => void }) {
  const copySecretRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog title="Credential created" onClose={onClose} initialFocusRef={copySecretRef} className="dialog--wide">
      <p>
        <strong>{credential.name}</strong> is ready. Use its client ID and secret to request access tokens.
      </p>
      <p className="warning" role="note">
        <strong>Copy the secret now.</strong> This is the only time it is shown — it cannot be shown again. Store it like a password. If you
        lose it, delete this credential and create a new one.
      </p>
      <dl className="secret-list">
        <div className="secret-list__row">
          <dt>Client ID</dt>
          <dd>
            <code className="secret" data-testid="new-client-id">
              {credential.clientId}
            </code>
            <CopyButton text={credential.clientId} label="Copy client ID" className="button button--small" />
          </dd>
        </div>
        <div className="secret-list__row">
          <dt>Client secret</dt>
          <dd>
            <code className="secret" data-testid="new-client-secret">
              {credential.clientSecret}
            </code>
            <CopyButton
              text={credential.clientSecret}
              label="Copy secret"
              className="button button--small button--primary"
              ref={copySecretRef}
            />
          </dd>
        </div>
      </dl>
      <details className="details">
        <summary>Token request with this secret</summary>
        <TokenRequestExample
          tokenUrl={tokenUrl}
          clientId={credential.clientId}
          clientSecret={credential.clientSecret}
          label="curl command with the new secret"
        />
      </details>
      <div className="dialog__actions">
        <button type="button" className="button" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
