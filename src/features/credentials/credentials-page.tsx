import { useId, useMemo, useState } from 'react';
import { errorMessage } from '../../api/client';
import { useClientCredentials } from '../../api/client-credentials';
import { useAppConfig } from '../../ui/config-context';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import type { ClientCredential } from '../../contract/client-credentials';
import { CreateCredentialForm, type NewCredential } from './create-credential-form';
import { CredentialsTable } from './credentials-table';
import { DeleteCredentialDialog } from './delete-credential-dialog';
import { NewSecretDialog } from './new-secret-dialog';
import { TokenRequestExample } from './token-request-example';
import { PageHeader } from '../../ui/page-header';

export function CredentialsPage() {
  const config = useAppConfig();
  const credentials = useClientCredentials();
  // The one place a secret lives: this state, while the dialog is open.
  const [created, setCreated] = useState<NewCredential | null>(null);
  const [toDelete, setToDelete] = useState<ClientCredential | null>(null);
  const [exampleClientId, setExampleClientId] = useState<string | null>(null);
  const selectId = useId();

  const sorted = useMemo(
    () => [...(credentials.data ?? [])].sort((a, b) => (Date.parse(b.createdAt ?? '') || 0) - (Date.parse(a.createdAt ?? '') || 0)),
    [credentials.data],
  );
  const known = exampleClientId && (sorted.some((c) => c.clientId === exampleClientId) || created?.clientId === exampleClientId);
  const shownClientId = (known ? exampleClientId : null) ?? sorted[0]?.clientId ?? null;

  return (
    <div className="page">
      <PageHeader title="API credentials">
        <p className="lead">
          Client credentials let scripts and other programs call the API as you — in your tenant, with your roles. Activity done with them
          is recorded as yours.
        </p>
        <p>
          {/* Served by the deployment itself, outside the app: a plain link, not a route. */}
          <a href={`${config.baseUrl}/docs`}>API documentation</a> — every operation, its parameters and answers; sign in there and try
          them, creating a credential included.
        </p>
      </PageHeader>

      <section className="card" aria-labelledby="create-heading">
        <h2 id="create-heading" className="card__title">
          Create a credential
        </h2>
        <CreateCredentialForm
          onCreated={(credential) => {
            setCreated(credential);
            setExampleClientId(credential.clientId);
          }}
        />
      </section>

      <section className="card" aria-labelledby="list-heading">
        <h2 id="list-heading" className="card__title">
          Your credentials
        </h2>
        {credentials.isPending ? (
          <LoadingState label="Loading credentials…" />
        ) : credentials.isError ? (
          <ErrorState
            title="Your credentials could not be loaded"
            message={errorMessage(credentials.error)}
            onRetry={() => void credentials.refetch()}
          />
        ) : sorted.length === 0 ? (
          <EmptyState title="No credentials yet">
            <p>Create one above to call the API from a script or another program.</p>
          </EmptyState>
        ) : (
          <CredentialsTable credentials={sorted} onDelete={setToDelete} />
        )}
      </section>

      <section className="card" aria-labelledby="token-heading">
        <h2 id="token-heading" className="card__title">
          Get an access token
        </h2>
        <p>
          Exchange a client ID and secret for an access token at the token endpoint (client credentials grant). Tokens are valid for 10
          hours; send them as <code>Authorization: Bearer &lt;access_token&gt;</code> to <code>{config.baseUrl}/v2/…</code>.
        </p>
        {sorted.length > 1 && (
          <div className="field field--inline">
            <label htmlFor={selectId}>Credential</label>
            <select id={selectId} value={shownClientId ?? ''} onChange={(event) => setExampleClientId(event.target.value)}>
              {sorted.map((c) => (
                <option key={c.clientId} value={c.clientId}>
                  {c.name} ({c.clientId})
                </option>
              ))}
            </select>
          </div>
        )}
        <TokenRequestExample
          tokenUrl={config.tokenUrl}
          clientId={shownClientId}
          testId="curl-example"
          label="curl command for an access token"
        />
        <p className="muted">
          Replace <code>YOUR_CLIENT_SECRET</code> with the secret you stored when you created the credential
          {shownClientId ? '' : ', and YOUR_CLIENT_ID with its client ID'}.
        </p>
      </section>

      {created && <NewSecretDialog credential={created} tokenUrl={config.tokenUrl} onClose={() => setCreated(null)} />}
      {toDelete && (
        <DeleteCredentialDialog
          credential={toDelete}
          onClose={() => setToDelete(null)}
          onDeleted={(clientId) => {
            setToDelete(null);
            if (exampleClientId === clientId) setExampleClientId(null);
          }}
        />
      )}
    </div>
  );
}
