import { useRef } from 'react';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import type { NewWebhook } from './new-webhook-form';

/** How a receiver checks a delivery, with the Standard Webhooks library for Node. */
const verifyExample = (secret: string) => `import { Webhook } from 'standardwebhooks';

const wh = new Webhook('${secret}');
// body: the raw request body as text; headers: webhook-id, webhook-timestamp, webhook-signature
const event = wh.verify(body, headers); // throws if the signature or the time is wrong
console.log(event.type, event.data);`;

/** Shows a new endpoint's signing secret, once. The secret exists only in the parent's state while this is open. */
export function WebhookSecretDialog({ created, onClose }: { created: NewWebhook; onClose: () => void }) {
  const copyRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog title="Endpoint added" onClose={onClose} initialFocusRef={copyRef} className="dialog--wide">
      <p>
        Deliveries to <code>{created.webhook.url}</code> are signed with this secret. The receiver checks each one before it acts on it.
      </p>
      <p className="warning" role="note">
        <strong>Copy the secret now.</strong> This is the only time it is shown. If you lose it, delete the endpoint and add it again.
      </p>
      <dl className="secret-list">
        <div className="secret-list__row">
          <dt>Signing secret</dt>
          <dd>
            <code className="secret" data-testid="webhook-secret">
              {created.secret}
            </code>
            <CopyButton text={created.secret} label="Copy secret" className="button button--small button--primary" ref={copyRef} />
          </dd>
        </div>
      </dl>
      <details className="details">
        <summary>Checking a delivery’s signature</summary>
        <p>
          Each POST carries <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> (HMAC-SHA256 of id,
          timestamp and body, as the Standard Webhooks specification says). With its library for Node:
        </p>
        <pre className="code-block">{verifyExample(created.secret)}</pre>
      </details>
      <div className="dialog__actions">
        <button type="button" className="button" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
