import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Exact pair results of geometric search (issue 5, latency): part-to-part rescoring and
 * part-in-part containment are properties of two models' geometry, not of a query, so they are
 * computed once (in the background after ingestion, or by the first query that needs them) and
 * kept here, in both directions (`model_id` = the query side). `version` is the features + pair
 * method version they were computed with; rows of another version are ignored. A model's rows go
 * with it (cascade on either side) and when its features are replaced (features-store.ts).
 */
export const searchPairs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('search_pairs')
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('model_id', 'uuid', (c) => c.notNull().references('models.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('part-to-part', 'part-in-part')`))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('other_id', 'uuid', (c) => c.notNull().references('models.id').onDelete('cascade'))
      // double precision: a stored result must read back exactly as the query that computed it saw it.
      .addColumn('score', 'double precision')
      .addColumn('forward', 'double precision')
      .addColumn('reverse', 'double precision')
      // Column-major 4×4 placing `model_id` in `other_id`'s frame; empty when there is none.
      .addColumn('transform', sql`double precision[]`, (c) => c.notNull())
      .addPrimaryKeyConstraint('search_pairs_pkey', ['tenant_id', 'model_id', 'kind', 'version', 'other_id'])
      .execute();
    // Deleting a model cascades through other_id too: that side needs its own index.
    await db.schema.createIndex('search_pairs_other').on('search_pairs').column('other_id').execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('search_pairs').ifExists().execute();
  },
};
