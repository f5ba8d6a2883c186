import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';
import { GEO_DESCRIPTOR_LENGTH } from '../../../geometry/search/descriptors/geo-descriptor';
import { GLOBAL_DESCRIPTOR_LENGTH } from '../../../geometry/search/descriptors/global-descriptor';

/**
 * Geometric search (issue 5). Descriptors are kept as plain `real[]` (the source of truth, on any
 * PostgreSQL); where pgvector is available (always in PGlite, which loads it; on a server only if
 * the package is installed) each table also gets a `vector` copy filled by a trigger, with an HNSW
 * index (L2) for candidates. Without it the search scans exactly (see search/vector-index.ts).
 *
 * `search_generations` counts changes of a tenant's models (created, deleted, state changed):
 * cached search results carry the generation they were computed at and are used only while it holds.
 */
export const search: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('search_features')
      .addColumn('model_id', 'uuid', (c) => c.primaryKey().references('models.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('global_desc', sql`real[]`, (c) => c.notNull())
      .addColumn('geo_desc', sql`real[]`, (c) => c.notNull())
      .addColumn('area', 'double precision', (c) => c.notNull())
      .addColumn('shells', 'integer', (c) => c.notNull())
      .addColumn('prepared', 'bytea', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('search_features_tenant').on('search_features').column('tenant_id').execute();

    await db.schema
      .createTable('search_components')
      .addColumn('model_id', 'uuid', (c) => c.notNull().references('models.id').onDelete('cascade'))
      .addColumn('idx', 'integer', (c) => c.notNull())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('descriptor', sql`real[]`, (c) => c.notNull())
      .addColumn('area_share', 'double precision', (c) => c.notNull())
      .addColumn('copies', 'integer', (c) => c.notNull())
      // Principal frame of the shell (geometry Pose as JSON): seeds part-in-part placement.
      .addColumn('pose', 'jsonb', (c) => c.notNull())
      .addPrimaryKeyConstraint('search_components_pkey', ['model_id', 'idx'])
      .execute();
    await db.schema.createIndex('search_components_tenant').on('search_components').column('tenant_id').execute();

    await db.schema
      .createTable('search_generations')
      .addColumn('tenant_id', 'integer', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
      .addColumn('generation', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    // A trigger rather than calls in every store function: no code path that changes a model
    // (uploads, ingestion, reprocess, delete, someone else's new route) can forget it.
    await sql`
      create function search_bump_generation() returns trigger language plpgsql as $$
      declare t integer;
      begin
        t := coalesce(new.tenant_id, old.tenant_id);
        if tg_op = 'UPDATE' and old.state is not distinct from new.state then return null; end if;
        insert into search_generations (tenant_id, generation) values (t, 1)
          on conflict (tenant_id) do update set generation = search_generations.generation + 1;
        return null;
      end $$`.execute(db);
    await sql`create trigger models_search_generation after insert or delete or update of state on models
      for each row execute function search_bump_generation()`.execute(db);

    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_available_extensions where name = 'vector'`.execute(db);
    if ((rows[0]?.n ?? 0) === 0) return;
    await sql`create extension if not exists vector`.execute(db);
    await sql
      .raw(
        `alter table search_features add column global_vec vector(${GLOBAL_DESCRIPTOR_LENGTH}), add column geo_vec vector(${GEO_DESCRIPTOR_LENGTH})`,
      )
      .execute(db);
    await sql.raw(`alter table search_components add column vec vector(${GLOBAL_DESCRIPTOR_LENGTH})`).execute(db);
    await sql`
      create function search_features_vectors() returns trigger language plpgsql as $$
      begin
        new.global_vec := new.global_desc::vector;
        new.geo_vec := new.geo_desc::vector;
        return new;
      end $$`.execute(db);
    await sql`create trigger search_features_vectors before insert or update on search_features
      for each row execute function search_features_vectors()`.execute(db);
    await sql`
      create function search_components_vector() returns trigger language plpgsql as $$
      begin
        new.vec := new.descriptor::vector;
        return new;
      end $$`.execute(db);
    await sql`create trigger search_components_vector before insert or update on search_components
      for each row execute function search_components_vector()`.execute(db);
    await sql`create index search_features_global_hnsw on search_features using hnsw (global_vec vector_l2_ops)`.execute(db);
    await sql`create index search_features_geo_hnsw on search_features using hnsw (geo_vec vector_l2_ops)`.execute(db);
    await sql`create index search_components_hnsw on search_components using hnsw (vec vector_l2_ops)`.execute(db);
  },

  async down(db: Kysely<unknown>) {
    await sql`drop trigger if exists models_search_generation on models`.execute(db);
    for (const table of ['search_components', 'search_features', 'search_generations'])
      await db.schema.dropTable(table).ifExists().execute();
    await sql`drop function if exists search_bump_generation(), search_features_vectors(), search_components_vector()`.execute(db);
  },
};
