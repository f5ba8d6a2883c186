// Tables of image search (migration 0004-images), typed here so the shared schema.ts need not
// change: `db.withTables<ImageTables>()`.
import { sql, type ColumnType, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../store/schema';

// A type alias (not an interface) so it satisfies withTables' record constraint.
export type ImageTables = {
  images: {
    id: string;
    tenant_id: number;
    user_id: string;
    file_name: string;
    nonce: string;
    upload_expires_at: Date;
    used_at: Date | null;
    uploaded_at: Date | null;
    format: string | null;
    width: number | null;
    height: number | null;
    size_bytes: number | null;
    descriptor: Uint8Array | null;
    method: string | null;
    /** Small JPEG of the image (migration 0008). */
    preview: Uint8Array | null;
    created_at: ColumnType<Date, Date | undefined, never>;
    delete_after: Date;
  };
  model_views: {
    model_id: string;
    version: number;
    method: string;
    view_count: number;
    dim: number;
    /** Compressed byte descriptors (view-signature.ts); float32 descriptors and signatures under older methods. */
    data: Uint8Array;
    /** Compressed polar signatures (migration 0018); null under older methods. */
    signatures: Uint8Array | null;
    updated_at: ColumnType<Date, Date | undefined, Date>;
  };
};

export type ImageDb = Kysely<Database & ImageTables>;
export type ImageRow = Selectable<ImageTables['images']>;

export function imageDb(db: Kysely<Database> | Transaction<Database>): ImageDb {
  return db.withTables<ImageTables>() as ImageDb;
}

/** How long an uploaded image (its descriptor) is kept: a search session, not an archive. */
export const IMAGE_RETENTION_HOURS = 24;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function createImage(
  db: ImageDb,
  row: { id: string; tenantId: number; userId: string; fileName: string; nonce: string; uploadExpiresAt: Date },
): Promise<void> {
  await db
    .insertInto('images')
    .values({
      id: row.id,
      tenant_id: row.tenantId,
      user_id: row.userId,
      file_name: row.fileName,
      nonce: row.nonce,
      upload_expires_at: row.uploadExpiresAt,
      delete_after: new Date(Date.now() + IMAGE_RETENTION_HOURS * 3600_000),
    })
    .execute();
}

export async function findImageById(db: ImageDb, id: string): Promise<ImageRow | undefined> {
  if (!UUID.test(id)) return undefined;
  return db
    .selectFrom('images')
    .selectAll()
    .where('id', '=', id)
    .where('delete_after', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function findImages(db: ImageDb, tenantId: number, ids: readonly string[]): Promise<ImageRow[]> {
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return [];
  return db
    .selectFrom('images')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', valid)
    .where('delete_after', '>', sql<Date>`now()`)
    .execute();
}

/** Single use of the upload address; false when used (or being used) already. */
export async function claimImageUpload(db: ImageDb, id: string): Promise<boolean> {
  const r = await db
    .updateTable('images')
    .set({ used_at: new Date() })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A refused file gives the address back, so the client may send a usable one. */
export async function releaseImageUpload(db: ImageDb, id: string): Promise<void> {
  await db.updateTable('images').set({ used_at: null }).where('id', '=', id).where('uploaded_at', 'is', null).execute();
}

export async function storeImageDescriptor(
  db: ImageDb,
  id: string,
  d: {
    format: string;
    width: number;
    height: number;
    sizeBytes: number;
    descriptor: Float32Array;
    signature: Uint8Array;
    method: string;
    preview: Uint8Array;
  },
): Promise<void> {
  await db
    .updateTable('images')
    .set({
      uploaded_at: new Date(),
      format: d.format,
      width: d.width,
      height: d.height,
      size_bytes: d.sizeBytes,
      descriptor: encodeViews(d.descriptor, d.signature),
      method: d.method,
      preview: d.preview,
    })
    .where('id', '=', id)
    .execute();
}

/** Removes images past their retention (called on every image creation: cheap, indexed). */
export async function deleteExpiredImages(db: ImageDb): Promise<number> {
  const r = await db
    .deleteFrom('images')
    .where('delete_after', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export function floatsToBytes(f: Float32Array): Uint8Array {
  // Copy: the view may be part of a larger buffer.
  return new Uint8Array(Float32Array.from(f).buffer);
}

/**
 * A query image's descriptor as stored: the float32 descriptor, then its polar signature bytes
 * (geometry/search/views/polar-signature.ts). Models' views are stored as view-signature.ts says.
 */
export function encodeViews(descriptors: Float32Array, signatures: Uint8Array): Uint8Array {
  const out = new Uint8Array(descriptors.length * 4 + signatures.length);
  out.set(new Uint8Array(descriptors.buffer, descriptors.byteOffset, descriptors.byteLength));
  out.set(signatures, descriptors.length * 4);
  return out;
}

/** The inverse of {@link encodeViews}, given how many descriptor values lead. */
export function decodeViews(bytes: Uint8Array, floats: number): { descriptors: Float32Array; signatures: Uint8Array } {
  if (bytes.byteLength < floats * 4) throw new Error(`stored views hold ${bytes.byteLength} bytes, fewer than ${floats} descriptor values`);
  return { descriptors: bytesToFloats(bytes.subarray(0, floats * 4)), signatures: bytes.slice(floats * 4) };
}

export function bytesToFloats(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
