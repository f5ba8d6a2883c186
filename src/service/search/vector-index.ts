// Nearest neighbours of a descriptor among a tenant's searchable models: pgvector's HNSW index
// where the database has pgvector (PGlite always), an exact in-memory scan where it does not
// (a PostgreSQL server without the package). Both answer the same question; the index is faster.
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../store/schema';
import { SEARCHABLE_STATES } from './tables';
import { log } from '../log';

export type VectorSpace = 'global' | 'geo' | 'component';

const SPACES = {
  global: { table: 'search_features', vec: 'global_vec', arr: 'global_desc', idx: '0' },
  geo: { table: 'search_features', vec: 'geo_vec', arr: 'geo_desc', idx: '0' },
  component: { table: 'search_components', vec: 'vec', arr: 'descriptor', idx: 'f.idx' },
} as const;

export interface Neighbour {
  modelId: string;
  /** Shell index for the component space, 0 otherwise. */
  idx: number;
  /** Exact L2 distance. */
  distance: number;
}

export interface NearestQuery {
  space: VectorSpace;
  tenantId: number;
  vector: ArrayLike<number>;
  /** The query model: never its own neighbour. */
  excludeModelId: string;
  /** A compiled model filter (store/models.ts modelFilterSchema: columns of `models`). */
  filter?: Expression<SqlBool> | undefined;
  limit: number;
  /** Tenant generation (exact-scan matrices are cached per generation). */
  generation: string;
}

const hasVectors = new WeakMap<object, Promise<boolean>>();

/** Whether migration 0003 could add pgvector columns here; warns once when it could not. */
export function vectorIndexAvailable(db: Kysely<Database>, warn: (message: string) => void = (message) => log.warn(message)): Promise<boolean> {
  let known = hasVectors.get(db);
  if (!known) {
    known = sql<{ n: number }>`select count(*)::int as n from information_schema.columns where table_name = 'search_features' and column_name = 'global_vec'`
      .execute(db)
      .then(({ rows }) => {
        const ok = (rows[0]?.n ?? 0) > 0;
        if (!ok) warn('geometric search: the database has no pgvector extension; match candidates come from an exact scan in memory instead of an HNSW index (fine for small inventories).');
        return ok;
      });
    hasVectors.set(db, known);
  }
  return known;
}

const eligible = (tenantId: number, excludeModelId: string, filter: Expression<SqlBool> | undefined) =>
  sql<SqlBool>`models.tenant_id = ${tenantId} and models.state in (${sql.join([...SEARCHABLE_STATES])}) and models.id <> ${excludeModelId}${filter ? sql` and ${filter}` : sql``}`;

export async function nearest(db: Kysely<Database>, q: NearestQuery): Promise<Neighbour[]> {
  const limit = Math.max(1, Math.floor(q.limit));
  if (await vectorIndexAvailable(db)) return nearestByIndex(db, q, limit);
  return nearestByScan(db, q, limit);
}

async function nearestByIndex(db: Kysely<Database>, q: NearestQuery, limit: number): Promise<Neighbour[]> {
  const s = SPACES[q.space];
  const literal = `[${Array.from(q.vector, (v) => (Number.isFinite(v) ? v : 0)).join(',')}]`;
  const rows = await db.transaction().execute(async (trx) => {
    // pgvector 0.8 iterative scans: with the tenant/state/filter conditions applied after the
    // index, the scan continues until `limit` rows pass them (relaxed order: re-sorted below).
    // One round trip for both settings (each statement is one through the pg ↔ PGlite bridge).
    await sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(Math.min(1000, Math.max(40, limit)))}, true)`.execute(trx);
    const vec = sql.ref(`f.${s.vec}`);
    const { rows } = await sql<{ model_id: string; idx: number; distance: number }>`
      select f.model_id, ${sql.raw(s.idx)} as idx, (${vec} <-> ${literal}::vector) as distance
      from ${sql.table(s.table)} f join models on models.id = f.model_id
      where f.tenant_id = ${q.tenantId} and ${eligible(q.tenantId, q.excludeModelId, q.filter)}
      order by ${vec} <-> ${literal}::vector
      limit ${limit}`.execute(trx);
    return rows;
  });
  return rows.map((r) => ({ modelId: r.model_id, idx: Number(r.idx), distance: Number(r.distance) })).sort((a, b) => a.distance - b.distance);
}

interface Matrix {
  ids: string[];
  idx: number[];
  dim: number;
  data: Float32Array;
}

/** Per tenant + space + generation: the whole tenant's vectors, loaded once per change of its models. */
const matrices = new Map<string, Promise<Matrix>>();

function tenantMatrix(db: Kysely<Database>, space: VectorSpace, tenantId: number, generation: string): Promise<Matrix> {
  const key = `${tenantId}:${space}:${generation}`;
  let m = matrices.get(key);
  if (!m) {
    for (const k of matrices.keys()) if (k.startsWith(`${tenantId}:${space}:`)) matrices.delete(k);
    const s = SPACES[space];
    m = sql<{ model_id: string; idx: number; v: number[] }>`select f.model_id, ${sql.raw(s.idx)} as idx, ${sql.ref(`f.${s.arr}`)} as v from ${sql.table(s.table)} f where f.tenant_id = ${tenantId}`
      .execute(db)
      .then(({ rows }) => {
        const dim = rows[0]?.v.length ?? 0;
        const data = new Float32Array(rows.length * dim);
        rows.forEach((r, i) => data.set(r.v.slice(0, dim), i * dim));
        return { ids: rows.map((r) => r.model_id), idx: rows.map((r) => Number(r.idx)), dim, data };
      });
    m.catch(() => matrices.delete(key));
    matrices.set(key, m);
  }
  return m;
}

async function nearestByScan(db: Kysely<Database>, q: NearestQuery, limit: number): Promise<Neighbour[]> {
  const [matrix, allowed] = await Promise.all([
    tenantMatrix(db, q.space, q.tenantId, q.generation),
    sql<{ id: string }>`select models.id from models where ${eligible(q.tenantId, q.excludeModelId, q.filter)}`.execute(db).then(({ rows }) => new Set(rows.map((r) => r.id))),
  ]);
  const { dim, data } = matrix;
  const out: Neighbour[] = [];
  for (let i = 0; i < matrix.ids.length; i++) {
    const id = matrix.ids[i]!;
    if (!allowed.has(id)) continue;
    let s = 0;
    for (let k = 0, o = i * dim; k < dim; k++) {
      const d = data[o + k]! - (q.vector[k] ?? 0);
      s += d * d;
    }
    out.push({ modelId: id, idx: matrix.idx[i]!, distance: Math.sqrt(s) });
  }
  out.sort((a, b) => a.distance - b.distance);
  return out.slice(0, limit);
}
