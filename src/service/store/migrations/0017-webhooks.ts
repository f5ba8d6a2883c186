import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Webhooks (routes/v2/webhooks.ts): endpoints an admin registers per tenant, and every delivery
 * made to them with its outcome (the delivery log). The secret signs deliveries (HMAC), so the
 * service must keep it readable; it is never answered after the registration.
 */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'jsonb', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex('webhooks_tenant').on('webhooks').columns(['tenant_id']).execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('webhook_id', 'uuid', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('payload', 'jsonb', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('response_status', 'integer')
      .addColumn('error', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('delivered_at', 'timestamptz')
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_webhook_created')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'created_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('webhook_deliveries').execute();
    await db.schema.dropTable('webhooks').execute();
  },
};
