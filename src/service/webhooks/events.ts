// Events become deliveries: one row per endpoint of the tenant that asked for the event (the
// delivery log), and one queue job per row, in the caller's transaction when it has one, so an
// event is recorded exactly when what caused it is. Tenants without endpoints pay one indexed read.
import type { Kysely, Transaction } from 'kysely';
import type { WebhookEvent } from '../../contract/webhooks';
import type { Database, ModelRow } from '../store/schema';
import { recordDeliveries, subscribers } from '../store/webhooks';

type Db = Kysely<Database> | Transaction<Database>;

/** Where delivery jobs go (ingest/job-queue.ts); the store does not know the queue. */
export interface DeliverySender {
  sendDeliveries(db: Db, deliveryIds: string[]): Promise<void>;
}

export interface EventSink {
  emit(db: Db, tenantId: number, event: WebhookEvent, data: unknown): Promise<void>;
  /** Whether any enabled endpoint of the tenant asked for `event` (to skip work no one will receive). */
  wanted(db: Db, tenantId: number, event: WebhookEvent): Promise<boolean>;
  /** A `ping` to one endpoint, whatever it asked for: an admin checks the receiver. */
  ping(db: Db, tenantId: number, webhookId: string): Promise<void>;
}

export function webhookEvents(sender: DeliverySender | undefined): EventSink {
  const send = async (db: Db, tenantId: number, webhookIds: string[], event: string, data: unknown) => {
    if (!webhookIds.length) return;
    const payload = { type: event, timestamp: new Date().toISOString(), data };
    const deliveries = await recordDeliveries(db, tenantId, webhookIds, event, payload);
    // Without a queue (an API-only test service) the deliveries stay pending in the log.
    await sender?.sendDeliveries(db, deliveries);
  };
  return {
    async emit(db, tenantId, event, data) {
      await send(db, tenantId, await subscribers(db, tenantId, event), event, data);
    },
    async ping(db, tenantId, webhookId) {
      await send(db, tenantId, [webhookId], 'ping', { webhookId });
    },
    async wanted(db, tenantId, event) {
      return (await subscribers(db, tenantId, event)).length > 0;
    },
  };
}

/** A model as events describe it: what a script needs to act, no signed addresses (they expire). */
export function modelSummary(row: ModelRow) {
  return {
    id: row.id,
    name: row.name,
    filePath: row.file_path,
    folderId: row.folder_id,
    state: row.state,
    stateReason: row.state_reason,
    isAssembly: row.is_assembly,
  };
}
