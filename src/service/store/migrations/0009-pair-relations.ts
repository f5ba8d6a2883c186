import { type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Part-to-part pairs may be related without being the same part: one the mirror image of the
 * other, or a scaled copy (with its factor). Stored beside the score (duplicate-rule.ts).
 */
export const pairRelations: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('search_pairs').addColumn('relation', 'text').execute();
    await db.schema.alterTable('search_pairs').addColumn('scale', 'float8').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('search_pairs').dropColumn('scale').execute();
    await db.schema.alterTable('search_pairs').dropColumn('relation').execute();
  },
};
