// The part-to-part vectors of a folder's searchable models as one matrix. Read in a binary form
// rather than as `real[]`: node-postgres turns a real[] into text and then into numbers one
// element at a time, which for a 5,000-model folder (700,000 floats) cost most of the duplicates
// request; the binary forms are decoded here straight into a Float32Array (the same float4
// values, bit for bit). pgvector's vector_send of the `global_vec` copy (4 bytes a value) where
// the database has pgvector — PGlite always — and core PostgreSQL's array_send of `global_desc`
// (8 bytes a value, twice the server's work) where it has not.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { SEARCHABLE_STATES } from './tables';
import { vectorIndexAvailable } from './vector-index';

export interface FolderVectors {
  ids: string[];
  /** Vector length (that of the first row; shorter rows are padded with zeros, longer ones cut). */
  dim: number;
  /** Row-major, `ids.length × dim`. */
  data: Float32Array;
}

/** OID of float4, the element type array_send reports for a real[]. */
const FLOAT4_OID = 700;

/** The searchable models of `folderIds` (every folder of the tenant when null) and their vectors. */
export async function folderVectors(db: Kysely<Database>, tenantId: number, folderIds: readonly number[] | null): Promise<FolderVectors> {
  const vectors = await vectorIndexAvailable(db);
  const inScope = folderIds === null ? sql`true` : sql`models.folder_id = any(${[...folderIds]}::int[])`;
  const { rows } = await sql<{ id: string; v: Uint8Array }>`
    select models.id, ${vectors ? sql`vector_send(f.global_vec)` : sql`array_send(f.global_desc)`} as v
    from models join search_features f on f.model_id = models.id
    where models.tenant_id = ${tenantId} and ${inScope} and models.state in (${sql.join([...SEARCHABLE_STATES])})
    order by models.file_path, models.id`.execute(db);
  const arrays = rows.map((r) => (vectors ? decodeVector(r.v) : decodeFloat4Array(r.v)));
  const dim = arrays[0]?.length ?? 0;
  const data = new Float32Array(rows.length * dim);
  arrays.forEach((a, i) => data.set(a.length > dim ? a.subarray(0, dim) : a, i * dim));
  return { ids: rows.map((r) => r.id), dim, data };
}

/** pgvector's binary format (vector_send, src/vector.c): int16 dimensions, int16 unused, then the float4 values in network byte order. */
export function decodeVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getInt16(0);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(4 + 4 * i);
  return out;
}

/**
 * PostgreSQL's binary array format (array_send, src/backend/utils/adt/arrayfuncs.c): int32 number
 * of dimensions, int32 has-nulls flag, int32 element type OID, then (int32 length, int32 lower
 * bound) per dimension, then per element an int32 byte length (-1 for null) and the element in
 * network byte order. A one-dimensional float4 array is all `global_desc` ever holds.
 */
export function decodeFloat4Array(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ndim = view.getInt32(0);
  if (ndim === 0) return new Float32Array(0);
  const elemType = view.getInt32(8);
  if (ndim !== 1 || elemType !== FLOAT4_OID) throw new Error(`expected a one-dimensional real[] (got ${ndim} dimensions of type ${elemType})`);
  const n = view.getInt32(12);
  const out = new Float32Array(n);
  let o = 20;
  for (let i = 0; i < n; i++) {
    const len = view.getInt32(o);
    o += 4;
    if (len === -1) {
      out[i] = 0; // not written by the service; 0, as a null element set into a Float32Array becomes
      continue;
    }
    out[i] = view.getFloat32(o);
    o += len;
  }
  return out;
}
