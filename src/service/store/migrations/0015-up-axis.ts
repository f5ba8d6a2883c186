import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The axis a designer chose to stand a model on ('z' or 'y'), for a file that breaks its format's
 * convention (contract/file-types.ts); null leaves it to the format.
 */
export const upAxis: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('models').addColumn('up_axis', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('models').dropColumn('up_axis').execute();
  },
};
