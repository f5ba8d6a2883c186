import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import type { Migration } from 'kysely/migration';
import { POLAR_LENGTH } from '../../../geometry/search/views/polar-signature';
import { VIEW_METHOD } from '../../../geometry/search/views/shape-features';
import { encodeViewSignature, VIEW_SIGNATURE_METHOD } from '../../images/view-signature';

/** Rows converted per statement. */
const BATCH = 200;

/**
 * Model views as a compact view signature (images/view-signature.ts): `data` holds the
 * descriptors in bytes, `signatures` the polar signatures, each compressed. Rows of today's view
 * recipe in the older layout (float32 descriptors, then the signatures, in `data`) are converted
 * here, so image search keeps every model through the upgrade instead of waiting for each to be
 * reprocessed; rows of older recipes stay stale and are reprocessed (ingest/outdated-models.ts).
 */
export const viewSignatures: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('model_views').addColumn('signatures', 'bytea').execute();
    await convertOlderLayout(db);
  },
  async down(db: Kysely<unknown>) {
    // The older layout cannot be restored from bytes: those rows are left for reprocessing.
    await db.schema.alterTable('model_views').dropColumn('signatures').execute();
  },
};

/** Rewrites rows of today's view recipe stored in the older layout (see {@link viewSignatures}). */
export async function convertOlderLayout(db: QueryExecutorProvider): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ model_id: string; view_count: number; dim: number; data: Uint8Array }>`
        select model_id, view_count, dim, data from model_views where method = ${VIEW_METHOD} limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    for (const r of rows) {
      const floats = r.view_count * r.dim;
      const bytes = new Uint8Array(r.data);
      if (bytes.byteLength < floats * 4 + r.view_count * POLAR_LENGTH) {
        // Not what the older layout wrote: left to be reprocessed, like an older recipe.
        await sql`update model_views set method = ${'unreadable-' + VIEW_METHOD} where model_id = ${r.model_id}`.execute(db);
        continue;
      }
      const stored = encodeViewSignature({
        count: r.view_count,
        dim: r.dim,
        data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + floats * 4)),
        signatures: bytes.slice(floats * 4, floats * 4 + r.view_count * POLAR_LENGTH),
      });
      await sql`update model_views set method = ${VIEW_SIGNATURE_METHOD}, data = ${stored.descriptors}, signatures = ${stored.signatures}
          where model_id = ${r.model_id}`.execute(db);
    }
  }
}
