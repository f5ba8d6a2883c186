import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The bulk actions taken from a duplicates report (duplicate-reports.ts): which decided duplicates
 * were moved, tagged or deleted from it, so it lists only those left to act on and its own actions
 * do not mark it out of date.
 */
export const reportActions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('duplicate_reports')
      .addColumn('acted', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('duplicate_reports').dropColumn('acted').execute();
  },
};
