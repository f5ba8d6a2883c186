import { useId, useState } from 'react';
import { errorMessage } from '../../api/client';
import { useDeleteWebhook, usePingWebhook, useUpdateWebhook, useWebhooks } from '../../api/webhooks';
import type { Webhook } from '../../contract/webhooks';
import { ConfirmDeleteDialog } from '../../ui/confirm-delete-dialog';
import { formatDateTime } from '../../ui/format';
import { PageHeader } from '../../ui/page-header';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { DataTable } from '../../ui/table';
import { showToast } from '../../ui/toast';
import { DeliveryLog } from './delivery-log';
import { NewWebhookForm, type NewWebhook } from './new-webhook-form';
import { WebhookSecretDialog } from './webhook-secret-dialog';
import './webhooks.css';

/** /webhooks (admins): endpoints told of model and report events, each with its delivery log. */
export function WebhooksPage() {
  const hooks = useWebhooks();
  // The one place a signing secret lives: this state, while the dialog is open.
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const [toDelete, setToDelete] = useState<Webhook | null>(null);
  const [shownLog, setShownLog] = useState<string | null>(null);
  const remove = useDeleteWebhook();
  const update = useUpdateWebhook();
  const ping = usePingWebhook();
  const listId = useId();
  const list = hooks.data ?? [];
  const logOf = list.find((h) => h.id === shownLog) ?? null;

  return (
    <div className="page webhooks-page">
      <PageHeader title="Webhooks">
        <p className="lead">
          Tell other systems — a PLM, a build pipeline, a chat — when models finish, fail or are deleted, when a part that already exists is
          added, and when a duplicates report is ready, instead of them asking again and again. Each delivery is a signed POST of JSON; a
          receiver that does not answer with 2xx is tried again for about two minutes.
        </p>
      </PageHeader>

      <section className="card" aria-labelledby="new-webhook-heading">
        <h2 id="new-webhook-heading" className="card__title">
          Add an endpoint
        </h2>
        <NewWebhookForm onCreated={setCreated} />
      </section>

      <section className="card" aria-labelledby={listId}>
        <h2 id={listId} className="card__title">
          Endpoints
        </h2>
        {hooks.isPending ? (
          <LoadingState label="Loading endpoints…" />
        ) : hooks.isError ? (
          <ErrorState title="The endpoints could not be loaded" message={errorMessage(hooks.error)} onRetry={() => void hooks.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState title="No endpoints yet">
            <p>Add one above; its deliveries are listed here.</p>
          </EmptyState>
        ) : (
          <DataTable caption="Webhook endpoints" columns={['Address', 'Events', 'Last delivery', 'On', null]}>
            {list.map((hook) => (
              <tr key={hook.id} data-testid="webhook-row">
                <td data-label="Address">
                  <code className="webhooks__url">{hook.url}</code>
                  {hook.description && <div className="muted">{hook.description}</div>}
                </td>
                <td data-label="Events">
                  <ul className="webhooks__events">
                    {hook.events.map((e) => (
                      <li key={e}>
                        <code>{e}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td data-label="Last delivery">
                  {hook.lastDelivery ? (
                    <span className={`delivery-status delivery-status--${hook.lastDelivery.status}`}>
                      {hook.lastDelivery.status}, {formatDateTime(hook.lastDelivery.at)}
                    </span>
                  ) : (
                    <span className="muted">None yet</span>
                  )}
                </td>
                <td data-label="On">
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={hook.enabled}
                      disabled={update.isPending}
                      aria-label={`Deliver to ${hook.url}`}
                      onChange={(event) =>
                        update.mutate(
                          { id: hook.id, change: { enabled: event.target.checked } },
                          { onError: (e) => showToast(`Could not change it: ${errorMessage(e)}`, 'error') },
                        )
                      }
                    />
                    {hook.enabled ? 'On' : 'Off'}
                  </label>
                </td>
                <td className="table__actions">
                  <div className="actions">
                    <button
                      type="button"
                      className="button button--small"
                      disabled={!hook.enabled || (ping.isPending && ping.variables === hook.id)}
                      onClick={() =>
                        ping.mutate(hook.id, {
                          onSuccess: () => setShownLog(hook.id),
                          onError: (e) => showToast(`Could not send a ping: ${errorMessage(e)}`, 'error'),
                        })
                      }
                    >
                      Send a ping
                    </button>
                    <button
                      type="button"
                      className="button button--small"
                      aria-expanded={shownLog === hook.id}
                      onClick={() => setShownLog(shownLog === hook.id ? null : hook.id)}
                    >
                      Deliveries
                    </button>
                    <button
                      type="button"
                      className="button button--small button--danger-quiet"
                      aria-label={`Delete ${hook.url}`}
                      onClick={() => {
                        remove.reset();
                        setToDelete(hook);
                      }}
                    >
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      {logOf && <DeliveryLog key={logOf.id} webhook={logOf} onClose={() => setShownLog(null)} />}

      {created && <WebhookSecretDialog created={created} onClose={() => setCreated(null)} />}
      {toDelete && (
        <ConfirmDeleteDialog
          title="Delete this endpoint?"
          onClose={() => setToDelete(null)}
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() =>
            remove.mutate(toDelete.id, {
              onSuccess: () => {
                if (shownLog === toDelete.id) setShownLog(null);
                setToDelete(null);
              },
            })
          }
        >
          <p>
            Nothing more is sent to <code>{toDelete.url}</code>, and its delivery log is deleted with it.
          </p>
        </ConfirmDeleteDialog>
      )}
    </div>
  );
}
