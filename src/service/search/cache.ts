// Search results are kept until a model of the tenant changes. The generation counter lives in
// the database (migration 0003's trigger bumps it), and is read on every request: any number of
// service instances may answer, each keeps only what is still valid for the current generation.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { searchDb } from './tables';

export async function tenantGeneration(db: Kysely<Database>, tenantId: number): Promise<string> {
  const row = await searchDb(db).selectFrom('search_generations').select('generation').where('tenant_id', '=', tenantId).executeTakeFirst();
  return String(row?.generation ?? '0');
}

/**
 * Marks the tenant's cached results stale without a model changing: settling a model stored
 * pairs that other models' lists show (part-in-part is listed from both sides).
 */
export async function bumpGeneration(db: Kysely<Database>, tenantId: number): Promise<void> {
  await sql`insert into search_generations (tenant_id, generation) values (${tenantId}, 1)
    on conflict (tenant_id) do update set generation = search_generations.generation + 1`.execute(db);
}
