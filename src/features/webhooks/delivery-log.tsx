import { useId, useState } from 'react';
import { errorMessage } from '../../api/client';
import { useWebhookDeliveries } from '../../api/webhooks';
import type { Webhook } from '../../contract/webhooks';
import { formatDateTime } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { DataTable } from '../../ui/table';
import { Pager } from '../../ui/pager';

/** One endpoint's deliveries, newest first; read again while one is on its way. */
export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const headingId = useId();
  const log = useWebhookDeliveries(webhook.id, page);
  const data = log.data;
  return (
    <section className="card" aria-labelledby={headingId} data-testid="delivery-log">
      <div className="card__heading-row">
        <h2 id={headingId} className="card__title">
          Deliveries to <code>{webhook.url}</code>
        </h2>
        <button type="button" className="button button--small" onClick={onClose}>
          Close
        </button>
      </div>
      {log.isPending ? (
        <LoadingState label="Loading deliveries…" />
      ) : log.isError && !data ? (
        <ErrorState title="The deliveries could not be loaded" message={errorMessage(log.error)} onRetry={() => void log.refetch()} />
      ) : !data || data.deliveries.length === 0 ? (
        <EmptyState title="Nothing sent yet">
          <p>Deliveries appear here as events happen, or send a ping.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable caption="Deliveries" columns={['When', 'Event', 'Outcome', 'Attempts', 'Answer']}>
            {data.deliveries.map((d) => (
              <tr key={d.id} data-testid="delivery-row">
                <td data-label="When">{formatDateTime(d.createdAt)}</td>
                <td data-label="Event">
                  <code>{d.event}</code>
                </td>
                <td data-label="Outcome">
                  <span className={`delivery-status delivery-status--${d.status}`}>{d.status}</span>
                  {d.error && <div className="muted delivery-error">{d.error}</div>}
                </td>
                <td data-label="Attempts">{d.attempts}</td>
                <td data-label="Answer">{d.responseStatus ?? '—'}</td>
              </tr>
            ))}
          </DataTable>
          <Pager pageData={data.pageData} onPage={setPage} label="Pages of deliveries" />
        </>
      )}
    </section>
  );
}
