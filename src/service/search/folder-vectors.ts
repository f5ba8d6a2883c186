// The part-to-part vectors of a folder's searchable models as one matrix. Read in a binary form
// rather than as `real[]`: node-postgres turns a real[] into text and then into numbers one
// element at a time, which for a 5,000-model folder (700,000 floats) cost most of the duplicates
// request; the binary forms are decoded here straight into a Float32Array (the same float4
// values, bit for bit). pgvector's vector_send of the `global_vec` copy (4 bytes a value) where
// the database has pgvector — PGlite always — and core PostgreSQL's array_send of `global_desc`
// (8 bytes a value, twice the server's work) where it has not.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { decodeFloat4Array, decodeVector } from './binary-vectors';
import { vectorIndexAvailable } from './vector-index';
import { searchableIdsSql } from '../store/searchable-models';

export interface FolderVectors {
  ids: string[];
  /** Vector length (that of the first row; shorter rows are padded with zeros, longer ones cut). */
  dim: number;
  /** Row-major, `ids.length × dim`. */
  data: Float32Array;
}

/** The searchable models of `folderIds` (every folder of the tenant when null) and their vectors. */
export async function folderVectors(db: Kysely<Database>, tenantId: number, folderIds: readonly number[] | null): Promise<FolderVectors> {
  const vectors = await vectorIndexAvailable(db);
  const scope = searchableIdsSql(tenantId, folderIds === null ? {} : { folderIds });
  const { rows } = await sql<{ id: string; v: Uint8Array }>`
    select f.model_id as id, ${vectors ? sql`vector_send(f.global_vec)` : sql`array_send(f.global_desc)`} as v
    from search_features f
    where f.tenant_id = ${tenantId} and f.model_id in (${scope})
    order by f.model_id`.execute(db);
  const arrays = rows.map((r) => (vectors ? decodeVector(r.v) : decodeFloat4Array(r.v)));
  const dim = arrays[0]?.length ?? 0;
  const data = new Float32Array(rows.length * dim);
  arrays.forEach((a, i) => data.set(a.length > dim ? a.subarray(0, dim) : a, i * dim));
  return { ids: rows.map((r) => r.id), dim, data };
}
