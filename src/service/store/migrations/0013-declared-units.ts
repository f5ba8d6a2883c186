import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The length unit the uploader chose for a mesh file (STL, OBJ, PLY, OFF, 3MF without a unit):
 * ingestion reads the mesh in it, so its facts, previews and scale-aware search are right. Null
 * when none was chosen; files that say their own unit (STEP, glTF) keep theirs.
 */
export const declaredUnits: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('models').addColumn('declared_units', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('models').dropColumn('declared_units').execute();
  },
};
