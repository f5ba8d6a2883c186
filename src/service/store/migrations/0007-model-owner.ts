import { type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Who created a model (the published API's required `ownerId`). Models created before this
 * migration have no known owner and answer an empty `ownerId`.
 */
export const modelOwner: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('models').addColumn('owner_id', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('models').dropColumn('owner_id').execute();
  },
};
