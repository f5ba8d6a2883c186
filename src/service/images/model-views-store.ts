import type { Kysely, Transaction } from 'kysely';
import type { ModelViews } from '../../geometry/search/views/model-views';
import type { Database } from '../store/schema';
import { imageDb } from './image-store';
import { encodeViewSignature, VIEW_SIGNATURE_METHOD } from './view-signature';

/**
 * Writes (or, without geometry, removes) a model's view descriptors, inside ingestion's final
 * transaction so they always belong to the version the model row shows.
 */
export async function storeModelViews(
  trx: Kysely<Database> | Transaction<Database>,
  modelId: string,
  version: number,
  views: ModelViews | undefined,
): Promise<void> {
  const db = imageDb(trx);
  if (!views || views.count === 0) {
    await db.deleteFrom('model_views').where('model_id', '=', modelId).execute();
    return;
  }
  const stored = encodeViewSignature(views);
  const row = {
    version,
    method: VIEW_SIGNATURE_METHOD,
    view_count: views.count,
    dim: views.dim,
    data: stored.descriptors,
    signatures: stored.signatures,
    updated_at: new Date(),
  };
  await db
    .insertInto('model_views')
    .values({ model_id: modelId, ...row })
    .onConflict((c) => c.column('model_id').doUpdateSet(row))
    .execute();
}

/**
 * Models whose stored views were computed by an older recipe than {@link VIEW_SIGNATURE_METHOD}: image
 * search skips them (their descriptors do not compare with today's queries) until ingestion
 * reprocesses them. Meant for a start-up pass that queues them for reprocessing, oldest first.
 */
export async function modelsWithStaleViews(db: Kysely<Database>, limit = 1000): Promise<string[]> {
  const rows = await imageDb(db)
    .selectFrom('model_views')
    .select('model_id')
    .where('method', '<>', VIEW_SIGNATURE_METHOD)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.model_id);
}
