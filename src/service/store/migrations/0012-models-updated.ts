import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * The exact scan (search/vector-index.ts) keeps each tenant's vectors and searchable ids in memory
 * and, after a change, reads only the models updated since its last read: the index finds them
 * without walking every model of the tenant, and the deletion counter tells it that rows it holds
 * are gone (a deleted row leaves no `updated_at` to find), where a count of the tenant's
 * searchable models cost a scan of all of them.
 */
export const modelsUpdated: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('models_tenant_updated').on('models').columns(['tenant_id', 'updated_at']).execute();
    await db.schema
      .alterTable('search_generations')
      .addColumn('deletions', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`
      create or replace function search_bump_generation() returns trigger language plpgsql as $$
      declare t integer;
      declare gone integer;
      begin
        t := coalesce(new.tenant_id, old.tenant_id);
        if tg_op = 'UPDATE' and old.state is not distinct from new.state then return null; end if;
        gone := case when tg_op = 'DELETE' then 1 else 0 end;
        insert into search_generations (tenant_id, generation, deletions) values (t, 1, gone)
          on conflict (tenant_id) do update set generation = search_generations.generation + 1, deletions = search_generations.deletions + gone;
        return null;
      end $$`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`
      create or replace function search_bump_generation() returns trigger language plpgsql as $$
      declare t integer;
      begin
        t := coalesce(new.tenant_id, old.tenant_id);
        if tg_op = 'UPDATE' and old.state is not distinct from new.state then return null; end if;
        insert into search_generations (tenant_id, generation) values (t, 1)
          on conflict (tenant_id) do update set generation = search_generations.generation + 1;
        return null;
      end $$`.execute(db);
    await db.schema.alterTable('search_generations').dropColumn('deletions').execute();
    await db.schema.dropIndex('models_tenant_updated').execute();
  },
};
