// Webhook endpoints and their delivery log (migration 0017). Deliveries are written here by the
// events that cause them (webhooks/events.ts) and updated by the worker that sends them
// (webhooks/deliver.ts); nothing else writes them.
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema';
import { isUuid } from './users';

type Db = Kysely<Database> | Transaction<Database>;

/** A new signing secret in the Standard Webhooks format: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function createWebhook(
  db: Db,
  w: { tenantId: number; url: string; events: string[]; description: string; createdBy: string },
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = newWebhookSecret();
  await db
    .insertInto('webhooks')
    .values({
      id,
      tenant_id: w.tenantId,
      url: w.url,
      events: JSON.stringify(w.events),
      description: w.description,
      secret,
      created_by: w.createdBy,
    })
    .execute();
  return { id, secret };
}

/** The tenant's endpoints (newest first) with their last delivery's outcome. */
export async function listWebhooks(db: Db, tenantId: number, id?: string) {
  if (id !== undefined && !isUuid(id)) return [];
  let q = db
    .selectFrom('webhooks as w')
    .select(['w.id', 'w.url', 'w.events', 'w.description', 'w.enabled', 'w.created_at'])
    .select(
      sql<{ status: string; at: string } | null>`(select json_build_object('status', d.status, 'at', d.created_at) from webhook_deliveries d
        where d.webhook_id = w.id order by d.created_at desc limit 1)`.as('last_delivery'),
    )
    .where('w.tenant_id', '=', tenantId);
  if (id !== undefined) q = q.where('w.id', '=', id);
  return q.orderBy('w.created_at', 'desc').orderBy('w.id').execute();
}

export async function updateWebhook(
  db: Db,
  tenantId: number,
  id: string,
  change: { url?: string | undefined; events?: string[] | undefined; description?: string | undefined; enabled?: boolean | undefined },
): Promise<boolean> {
  if (!isUuid(id)) return false;
  const set = {
    ...(change.url !== undefined ? { url: change.url } : {}),
    ...(change.events !== undefined ? { events: JSON.stringify(change.events) } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
  };
  if (!Object.keys(set).length) return (await listWebhooks(db, tenantId, id)).length === 1;
  const r = await db.updateTable('webhooks').set(set).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Deletes the endpoint and its log; deliveries still queued find it gone and stop. */
export async function deleteWebhook(db: Db, tenantId: number, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const r = await db.deleteFrom('webhooks').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Enabled endpoints of the tenant that asked for `event`. */
export async function subscribers(db: Db, tenantId: number, event: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', true)
    .where(sql<boolean>`events @> ${JSON.stringify([event])}::jsonb`)
    .execute();
  return rows.map((r) => r.id);
}

/** One pending delivery per endpoint, all with the same payload; their ids. */
export async function recordDeliveries(db: Db, tenantId: number, webhookIds: string[], event: string, payload: unknown): Promise<string[]> {
  if (!webhookIds.length) return [];
  const rows = webhookIds.map((webhookId) => ({
    id: randomUUID(),
    webhook_id: webhookId,
    tenant_id: tenantId,
    event,
    payload: JSON.stringify(payload),
    status: 'pending',
  }));
  await db.insertInto('webhook_deliveries').values(rows).execute();
  return rows.map((r) => r.id);
}

/** A delivery with what sending it needs; undefined when it or its endpoint is gone. */
export async function deliveryToSend(db: Db, id: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select(['d.id', 'd.status', 'd.attempts', 'd.payload', 'd.created_at', 'w.url', 'w.secret', 'w.enabled'])
    .where('d.id', '=', id)
    .executeTakeFirst();
}

/** The outcome of one attempt. */
export async function recordAttempt(
  db: Db,
  id: string,
  outcome: { status: 'delivered' | 'retrying' | 'failed' | 'cancelled'; responseStatus: number | null; error: string | null },
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      attempts: sql<number>`attempts + ${outcome.status === 'cancelled' ? 0 : 1}`,
      response_status: outcome.responseStatus,
      error: outcome.error,
      ...(outcome.status === 'delivered' ? { delivered_at: sql<Date>`now()` } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** An endpoint's deliveries, newest first, a page at a time. */
export async function listDeliveries(db: Db, tenantId: number, webhookId: string, page: { page: number; perPage: number }) {
  const base = db.selectFrom('webhook_deliveries').where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** How long the delivery log keeps a delivery. */
export const DELIVERY_LOG_DAYS = 30;

/** Deletes deliveries older than the log keeps (the hourly housekeeping). */
export async function pruneDeliveries(db: Db): Promise<void> {
  await db
    .deleteFrom('webhook_deliveries')
    .where('created_at', '<', sql<Date>`now() - make_interval(days => ${DELIVERY_LOG_DAYS})`)
    .execute();
}
