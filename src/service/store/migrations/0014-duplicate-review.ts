import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Duplicate review (routes/v2/duplicate-review.ts): reports over a scope of folders, run in the
 * background and kept, and the decisions designers record on their groups. Decisions keep the
 * paths both models had when decided and hold no reference to the models, so the record of what
 * was decided outlives a duplicate deleted because of it.
 */
export const duplicateReview: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('duplicate_reports')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('folder_ids', 'jsonb')
      .addColumn('include_subfolders', 'boolean', (c) => c.notNull())
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('phase', 'text', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .addColumn('fingerprint', 'text')
      .addColumn('result', 'jsonb')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('finished_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('duplicate_reports_tenant_created').on('duplicate_reports').columns(['tenant_id', 'created_at']).execute();
    await db.schema
      .createTable('duplicate_decisions')
      .addColumn('id', 'serial', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      // The pair, smaller id first: one decision per pair, whichever was the master.
      .addColumn('low_id', 'uuid', (c) => c.notNull())
      .addColumn('high_id', 'uuid', (c) => c.notNull())
      .addColumn('master_id', 'uuid', (c) => c.notNull())
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('match_percentage', 'double precision')
      .addColumn('master_path', 'text', (c) => c.notNull())
      .addColumn('model_path', 'text', (c) => c.notNull())
      .addColumn('note', 'text')
      .addColumn('decided_by', 'text', (c) => c.notNull())
      .addColumn('decided_by_name', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addUniqueConstraint('duplicate_decisions_pair', ['tenant_id', 'low_id', 'high_id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('duplicate_decisions').execute();
    await db.schema.dropTable('duplicate_reports').execute();
  },
};
