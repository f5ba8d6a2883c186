import type { Kysely, Transaction } from 'kysely';
import type { ModelViews } from '../../geometry/search/views/model-views';
import type { ViewSet } from '../../geometry/search/views/view-set-distance';
import { log } from '../log';
import type { Database } from '../store/schema';
import { imageDb } from './image-store';
import { decodeDescriptors, encodeViewSignature, VIEW_SIGNATURE_METHOD } from './view-signature';

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

/**
 * The view sets of some models (their descriptors, not the polar signatures) as part-to-part
 * compares them: only rows of today's method and of the version the model row shows. A model
 * missing here has no comparable views (none made, or not yet reprocessed).
 */
export async function viewSetsOf(db: Kysely<Database>, tenantId: number, ids: readonly string[]): Promise<Map<string, ViewSet>> {
  const out = new Map<string, ViewSet>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await imageDb(db)
      .selectFrom('model_views as v')
      .innerJoin('models as m', (j) => j.onRef('m.id', '=', 'v.model_id').onRef('m.version', '=', 'v.version'))
      .select(['v.model_id', 'v.view_count', 'v.dim', 'v.data'])
      .where('m.tenant_id', '=', tenantId)
      .where('v.model_id', 'in', ids.slice(i, i + 500))
      .where('v.method', '=', VIEW_SIGNATURE_METHOD)
      .execute();
    for (const r of rows) {
      const data = readable(r.model_id, () => decodeDescriptors(r.data, r.view_count * r.dim));
      if (data) out.set(r.model_id, { count: r.view_count, dim: r.dim, data });
    }
  }
  return out;
}

/**
 * A stored row decoded, or undefined when it cannot be (damaged bytes): that model is compared
 * without its views, logged, rather than failing every search of its tenant.
 */
export function readable<T>(modelId: string, decode: () => T): T | undefined {
  try {
    return decode();
  } catch (error) {
    log.warn({ err: error, modelId }, 'stored views of a model cannot be read; they are left out until it is reprocessed');
    return undefined;
  }
}
