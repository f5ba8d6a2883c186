// Nearest neighbours of a descriptor among a tenant's searchable models: pgvector's HNSW index
// where the database has pgvector (PGlite always), an exact in-memory scan where it does not
// (a PostgreSQL server without the package). Both answer the same question; the index is faster.
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../store/schema';
import { log } from '../log';
import { decodeFloat4Array } from './binary-vectors';
import { deletionsOf, searchabilityChangedSince, searchableIds, searchableIdsSql, updatedIdsSql } from '../store/searchable-models';
import { LRUCache } from 'lru-cache';

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
export function vectorIndexAvailable(
  db: Kysely<Database>,
  warn: (message: string) => void = (message) => log.warn(message),
): Promise<boolean> {
  let known = hasVectors.get(db);
  if (!known) {
    known = sql<{
      n: number;
    }>`select count(*)::int as n from information_schema.columns where table_name = 'search_features' and column_name = 'global_vec'`
      .execute(db)
      .then(({ rows }) => {
        const ok = (rows[0]?.n ?? 0) > 0;
        if (!ok)
          warn(
            'geometric search: the database has no pgvector extension; match candidates come from an exact scan in memory instead of an HNSW index (fine for small inventories).',
          );
        return ok;
      });
    hasVectors.set(db, known);
  }
  return known;
}

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
    await sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(Math.min(1000, Math.max(40, limit)))}, true)`.execute(
      trx,
    );
    const vec = sql.ref(`f.${s.vec}`);
    const { rows } = await sql<{ model_id: string; idx: number; distance: number }>`
      select f.model_id, ${sql.raw(s.idx)} as idx, (${vec} <-> ${literal}::vector) as distance
      from ${sql.table(s.table)} f
      where f.tenant_id = ${q.tenantId} and f.model_id in (${searchableIdsSql(q.tenantId, { exceptId: q.excludeModelId, filter: q.filter })})
      order by ${vec} <-> ${literal}::vector
      limit ${limit}`.execute(trx);
    return rows;
  });
  return rows
    .map((r) => ({ modelId: r.model_id, idx: Number(r.idx), distance: Number(r.distance) }))
    .sort((a, b) => a.distance - b.distance);
}

/**
 * One tenant's vectors of one space in memory, kept across changes: a change of the tenant's models
 * reads only the rows of models updated since the last read (binary, array_send), replaces or
 * appends them; rows of deleted or no longer searchable models stay until the next full read but
 * are never returned (the eligible set decides). Memory is bounded over all tenants (LRU).
 */
interface Matrix {
  rows: Map<string, number>;
  ids: string[];
  idx: number[];
  dim: number;
  data: Float32Array;
  count: number;
  /** Database time of the last read: the next one asks for models updated since (with a margin). */
  readAt: Date;
  generation: string;
  /** Set when most rows belong to models no longer searchable (deleted): the next change reads all again. */
  stale: boolean;
  bytes: number;
}

/** The most all exact-scan matrices of this process may hold (least recently used tenants go first). */
const MATRIX_BUDGET_BYTES = 512 * 1024 * 1024;
/** Rows of a transaction still open at the last read may carry an older updated_at: read back this far. */
const READ_MARGIN_MS = 10_000;

/** Sized by each matrix's bytes once it is read (a matrix larger than the budget is still kept, alone). */
const matrices = new LRUCache<string, Promise<Matrix>>({ maxSize: MATRIX_BUDGET_BYTES, sizeCalculation: () => 1 });
/**
 * Searchable ids per tenant (no filter), kept like the matrices: a change reads the models updated
 * since the last read; when models were deleted since (the tenant's deletion counter moved), it
 * reads them all again.
 */
interface Eligible {
  ids: Set<string>;
  generation: string;
  deletions: string;
  readAt: Date;
}
/** The least recently searched tenants' sets go first. */
const eligibleSets = new LRUCache<number, Promise<Eligible>>({ max: 64 });

/** The database's clock: read times are compared with `updated_at`, which it wrote. */
async function databaseNow(db: Kysely<Database>): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`select now() as now`.execute(db);
  return rows[0]!.now;
}

function rowKey(modelId: string, idx: number) {
  return `${modelId}#${idx}`;
}

async function readRows(db: Kysely<Database>, space: VectorSpace, tenantId: number, since: Date | undefined) {
  const s = SPACES[space];
  const { rows } = await sql<{ model_id: string; idx: number; v: Uint8Array }>`
    select f.model_id, ${sql.raw(s.idx)} as idx, array_send(${sql.ref(`f.${s.arr}`)}) as v
    from ${sql.table(s.table)} f
    where ${since ? sql`f.model_id in (${updatedIdsSql(tenantId, since)})` : sql`f.tenant_id = ${tenantId}`}`.execute(db);
  return rows;
}

async function fullMatrix(db: Kysely<Database>, space: VectorSpace, tenantId: number, generation: string): Promise<Matrix> {
  const readAt = await databaseNow(db);
  const rows = await readRows(db, space, tenantId, undefined);
  const arrays = rows.map((r) => decodeFloat4Array(r.v));
  const dim = arrays[0]?.length ?? 0;
  const data = new Float32Array(Math.max(16, rows.length) * dim);
  arrays.forEach((a, i) => data.set(a.subarray(0, dim), i * dim));
  const m: Matrix = {
    rows: new Map(),
    ids: [],
    idx: [],
    dim,
    data,
    count: rows.length,
    readAt,
    generation,
    stale: false,
    bytes: data.byteLength,
  };
  rows.forEach((r, i) => {
    m.ids.push(r.model_id);
    m.idx.push(Number(r.idx));
    m.rows.set(rowKey(r.model_id, Number(r.idx)), i);
  });
  return m;
}

async function refreshed(db: Kysely<Database>, m: Matrix, space: VectorSpace, tenantId: number, generation: string): Promise<Matrix> {
  if (m.generation === generation) return m;
  if (m.stale) return fullMatrix(db, space, tenantId, generation);
  const readAt = await databaseNow(db);
  const rows = await readRows(db, space, tenantId, new Date(m.readAt.getTime() - READ_MARGIN_MS));
  for (const r of rows) {
    const a = decodeFloat4Array(r.v);
    if (m.dim === 0) m.dim = a.length;
    const key = rowKey(r.model_id, Number(r.idx));
    let i = m.rows.get(key);
    if (i === undefined) {
      i = m.count++;
      if (m.count * m.dim > m.data.length) {
        const grown = new Float32Array(Math.max(16, m.count * 2) * m.dim);
        grown.set(m.data);
        m.data = grown;
        m.bytes = grown.byteLength;
      }
      m.ids.push(r.model_id);
      m.idx.push(Number(r.idx));
      m.rows.set(key, i);
    }
    m.data.set(a.subarray(0, m.dim), i * m.dim);
  }
  m.readAt = readAt;
  m.generation = generation;
  return m;
}

function tenantMatrix(db: Kysely<Database>, space: VectorSpace, tenantId: number, generation: string): Promise<Matrix> {
  const key = `${tenantId}:${space}`;
  const previous = matrices.get(key);
  const next = previous ? previous.then((m) => refreshed(db, m, space, tenantId, generation)) : fullMatrix(db, space, tenantId, generation);
  const guarded = next.catch((error: unknown) => {
    matrices.delete(key);
    throw error;
  });
  matrices.set(key, guarded);
  void guarded.then(
    (m) => {
      if (matrices.peek(key) === guarded) matrices.set(key, guarded, { size: Math.max(1, Math.min(m.bytes, MATRIX_BUDGET_BYTES)) });
    },
    () => {},
  );
  return guarded;
}

async function allEligible(db: Kysely<Database>, tenantId: number, generation: string): Promise<Eligible> {
  const { deletions, now } = await deletionsOf(db, tenantId);
  return { ids: new Set(await searchableIds(db, tenantId)), generation, deletions, readAt: now };
}

async function refreshedEligible(db: Kysely<Database>, e: Eligible, tenantId: number, generation: string): Promise<Eligible> {
  if (e.generation === generation) return e;
  const since = new Date(e.readAt.getTime() - READ_MARGIN_MS);
  const [changed, { deletions, now }] = await Promise.all([searchabilityChangedSince(db, tenantId, since), deletionsOf(db, tenantId)]);
  if (deletions !== e.deletions) return allEligible(db, tenantId, generation);
  for (const r of changed) {
    if (r.searchable) e.ids.add(r.id);
    else e.ids.delete(r.id);
  }
  e.readAt = now;
  e.generation = generation;
  return e;
}

async function eligibleIds(db: Kysely<Database>, q: NearestQuery): Promise<Set<string>> {
  if (q.filter) {
    return new Set(await searchableIds(db, q.tenantId, { filter: q.filter }));
  }
  const previous = eligibleSets.get(q.tenantId);
  const next = (
    previous ? previous.then((e) => refreshedEligible(db, e, q.tenantId, q.generation)) : allEligible(db, q.tenantId, q.generation)
  ).catch((error: unknown) => {
    eligibleSets.delete(q.tenantId);
    throw error;
  });
  eligibleSets.set(q.tenantId, next);
  return (await next).ids;
}

async function nearestByScan(db: Kysely<Database>, q: NearestQuery, limit: number): Promise<Neighbour[]> {
  const [matrix, allowed] = await Promise.all([tenantMatrix(db, q.space, q.tenantId, q.generation), eligibleIds(db, q)]);
  const { dim, data } = matrix;
  // Rows of deleted models stay until a full read; when they are many, the next change does one.
  if (!q.filter && q.space !== 'component' && matrix.count > allowed.size * 1.25 + 100) matrix.stale = true;
  // The `limit` smallest, kept sorted: a bounded insertion list beats sorting every row.
  const best: Neighbour[] = [];
  let bound = Infinity;
  for (let i = 0; i < matrix.count; i++) {
    const id = matrix.ids[i]!;
    if (id === q.excludeModelId || !allowed.has(id)) continue;
    let s = 0;
    for (let k = 0, o = i * dim; k < dim; k++) {
      const d = data[o + k]! - (q.vector[k] ?? 0);
      s += d * d;
      if (s >= bound) break;
    }
    if (s >= bound) continue;
    const item = { modelId: id, idx: matrix.idx[i]!, distance: Math.sqrt(s) };
    let at = best.length;
    while (at > 0 && best[at - 1]!.distance > item.distance) at--;
    best.splice(at, 0, item);
    if (best.length > limit) best.pop();
    if (best.length === limit) bound = best[limit - 1]!.distance ** 2;
  }
  return best;
}
