import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Worker processes and the queue jobs they hold (ingest/worker-leases.ts). pg-boss only notices
 * a worker that died when the job's expiry runs out (minutes, as processing may take that long);
 * a worker that stops sending heartbeats is noticed in seconds and its jobs are failed into retry
 * through pg-boss's API.
 */
export const queueWorkers: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('queue_workers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema
      .createTable('queue_leases')
      .addColumn('job_id', 'text', (c) => c.primaryKey())
      .addColumn('queue', 'text', (c) => c.notNull())
      .addColumn('worker_id', 'text', (c) => c.notNull().references('queue_workers.id').onDelete('cascade'))
      .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex('queue_leases_worker').on('queue_leases').column('worker_id').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('queue_leases').execute();
    await db.schema.dropTable('queue_workers').execute();
  },
};
