// Writing and reading the stored search features of models.
import type { Kysely, Transaction } from 'kysely';
import type { Pose } from '../../geometry/search/descriptors/pose';
import type { SearchFeatures } from '../../geometry/search/search-features';
import type { Database } from '../store/schema';
import { searchDb } from './tables';

/**
 * Replaces a model's search features (inside ingestion's result transaction, so descriptors and
 * state change together). `features` undefined (no geometry) just removes old ones.
 */
export async function storeSearchFeatures(
  db: Kysely<Database> | Transaction<Database>,
  model: { id: string; tenant_id: number },
  features: SearchFeatures | undefined,
): Promise<void> {
  const s = searchDb(db);
  await s.deleteFrom('search_components').where('model_id', '=', model.id).execute();
  await s.deleteFrom('search_features').where('model_id', '=', model.id).execute();
  // Exact pair results (pairs.ts) were computed from the old geometry: both directions go.
  await s.deleteFrom('search_pairs').where('model_id', '=', model.id).execute();
  await s.deleteFrom('search_pairs').where('other_id', '=', model.id).execute();
  if (!features) return;
  await s
    .insertInto('search_features')
    .values({
      model_id: model.id,
      tenant_id: model.tenant_id,
      version: features.version,
      global_desc: Array.from(features.global),
      geo_desc: Array.from(features.geo),
      area: features.area,
      shells: features.shells,
      prepared: features.prepared,
    })
    .execute();
  if (features.components.length) {
    await s
      .insertInto('search_components')
      .values(
        features.components.map((c, idx) => ({
          model_id: model.id,
          idx,
          tenant_id: model.tenant_id,
          descriptor: Array.from(c.descriptor),
          area_share: c.areaShare,
          copies: c.copies,
          pose: JSON.stringify(c.pose),
        })),
      )
      .execute();
  }
}

export interface StoredFeatures {
  modelId: string;
  global: Float32Array;
  geo: Float32Array;
  area: number;
  shells: number;
}

/** Vectors and sizes of some models (no blobs). */
export async function loadFeatures(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, StoredFeatures>> {
  const out = new Map<string, StoredFeatures>();
  if (!ids.length) return out;
  const rows = await searchDb(db)
    .selectFrom('search_features')
    .select(['model_id', 'global_desc', 'geo_desc', 'area', 'shells'])
    .where('model_id', 'in', [...new Set(ids)])
    .execute();
  for (const r of rows) {
    out.set(r.model_id, {
      modelId: r.model_id,
      global: Float32Array.from(r.global_desc),
      geo: Float32Array.from(r.geo_desc),
      area: r.area,
      shells: r.shells,
    });
  }
  return out;
}

/** The analysis blobs of some models (for exact rescoring). */
export async function loadPrepared(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  if (!ids.length) return out;
  const rows = await searchDb(db)
    .selectFrom('search_features')
    .select(['model_id', 'prepared'])
    .where('model_id', 'in', [...new Set(ids)])
    .execute();
  for (const r of rows) out.set(r.model_id, new Uint8Array(r.prepared));
  return out;
}

/** A model's shell vectors, in stored order. */
export async function loadComponents(db: Kysely<Database>, modelId: string) {
  const rows = await searchDb(db)
    .selectFrom('search_components')
    .select(['idx', 'descriptor', 'area_share', 'copies', 'pose'])
    .where('model_id', '=', modelId)
    .orderBy('idx')
    .execute();
  return rows.map((r) => ({
    idx: r.idx,
    descriptor: Float32Array.from(r.descriptor),
    areaShare: r.area_share,
    copies: r.copies,
    pose: r.pose,
  }));
}

/** Poses of some shells, by `${modelId}:${idx}`. */
export async function loadComponentPoses(db: Kysely<Database>, keys: readonly { modelId: string; idx: number }[]) {
  const out = new Map<string, Pose>();
  if (!keys.length) return out;
  const rows = await searchDb(db)
    .selectFrom('search_components')
    .select(['model_id', 'idx', 'pose'])
    .where('model_id', 'in', [...new Set(keys.map((k) => k.modelId))])
    .execute();
  for (const r of rows) out.set(`${r.model_id}:${r.idx}`, r.pose);
  return out;
}
