// Binary forms of stored vectors, decoded straight into a Float32Array (the same float4 values, bit
// for bit): node-postgres would turn a real[] into text and then into numbers one element at a time.

const FLOAT4_OID = 700;

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
  if (ndim !== 1 || elemType !== FLOAT4_OID)
    throw new Error(`expected a one-dimensional real[] (got ${ndim} dimensions of type ${elemType})`);
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
