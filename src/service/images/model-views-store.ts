import type { Kysely, Transaction } from 'kysely';
import type { ModelViews } from '../../geometry/views/model-views';
import { VIEW_METHOD } from '../../geometry/views/shape-features';
import type { Database } from '../store/schema';
import { floatsToBytes, imageDb } from './image-store';

/**
 * Writes (or, without geometry, removes) a model's view descriptors, inside ingestion's final
 * transaction so they always belong to the version the model row shows.
 */
export async function storeModelViews(trx: Kysely<Database> | Transaction<Database>, modelId: string, version: number, views: ModelViews | undefined): Promise<void> {
  const db = imageDb(trx);
  if (!views || views.count === 0) {
    await db.deleteFrom('model_views').where('model_id', '=', modelId).execute();
    return;
  }
  const row = { version, method: VIEW_METHOD, view_count: views.count, dim: views.dim, data: floatsToBytes(views.data), updated_at: new Date() };
  await db
    .insertInto('model_views')
    .values({ model_id: modelId, ...row })
    .onConflict((c) => c.column('model_id').doUpdateSet(row))
    .execute();
}
