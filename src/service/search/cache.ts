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

/** A small least-recently-used map (insertion order of a Map is its age). */
/**
 * Marks the tenant's cached results stale without a model changing: settling a model stored
 * pairs that other models' lists show (part-in-part is listed from both sides).
 */
export async function bumpGeneration(db: Kysely<Database>, tenantId: number): Promise<void> {
  await sql`insert into search_generations (tenant_id, generation) values (${tenantId}, 1)
    on conflict (tenant_id) do update set generation = search_generations.generation + 1`.execute(db);
}

export class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest === undefined) break;
      this.map.delete(oldest);
    }
  }
}
