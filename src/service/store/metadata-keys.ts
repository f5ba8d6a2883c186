import type { ModelMetadata } from '../../contract/models';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { PageQuery } from '../../contract/paging';
import { foldNameCase } from './folders';
import { isUniqueViolation } from './pg-errors';
import type { Database, MetadataKeyRow } from './schema';
import { isUuid } from './users';

type Db = Kysely<Database> | Transaction<Database>;

export async function listMetadataKeys(db: Kysely<Database>, tenantId: number, page: PageQuery) {
  const base = db.selectFrom('metadata_keys').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('name')
      .orderBy('id')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Creates a key; null when the tenant already has one of that name (any case). */
export async function createMetadataKey(db: Kysely<Database>, tenantId: number, name: string): Promise<MetadataKeyRow | null> {
  try {
    return await db
      .insertInto('metadata_keys')
      .values({ tenant_id: tenantId, name, name_lower: foldNameCase(name) })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

export async function findMetadataKey(db: Db, tenantId: number, id: number): Promise<MetadataKeyRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0 || id > 2_147_483_647) return undefined;
  return db.selectFrom('metadata_keys').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** Which of `ids` are not keys of this tenant. */
export async function unknownMetadataKeyIds(db: Db, tenantId: number, ids: readonly number[]): Promise<number[]> {
  const wanted = [...new Set(ids)];
  const valid = wanted.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647);
  const found =
    valid.length === 0
      ? []
      : await db.selectFrom('metadata_keys').select('id').where('tenant_id', '=', tenantId).where('id', 'in', valid).execute();
  const known = new Set(found.map((r) => r.id));
  return wanted.filter((id) => !known.has(id));
}

/** Metadata pairs of the given models, by model id (in key id order). */
export async function metadataOf(db: Db, modelIds: readonly string[]): Promise<Map<string, ModelMetadata[]>> {
  const result = new Map<string, ModelMetadata[]>();
  if (modelIds.length === 0) return result;
  const rows = await db
    .selectFrom('model_metadata')
    .innerJoin('metadata_keys', 'metadata_keys.id', 'model_metadata.metadata_key_id')
    .select(['model_metadata.model_id', 'model_metadata.metadata_key_id', 'model_metadata.value', 'metadata_keys.name'])
    // One array parameter, however many models (an IN list sends and plans one per id).
    .where(sql<boolean>`model_metadata.model_id = any(${[...modelIds]}::uuid[])`)
    .orderBy('model_metadata.metadata_key_id')
    .execute();
  for (const r of rows) {
    const list = result.get(r.model_id) ?? [];
    list.push({ modelId: r.model_id, metadataKeyId: r.metadata_key_id, name: r.name, value: r.value });
    result.set(r.model_id, list);
  }
  return result;
}

/** The tenant's metadata values (of `modelIds` only, when given), by model then key, one page. */
export async function listMetadataValues(db: Kysely<Database>, tenantId: number, modelIds: readonly string[] | null, page: PageQuery) {
  let base = db
    .selectFrom('model_metadata')
    .innerJoin('metadata_keys', 'metadata_keys.id', 'model_metadata.metadata_key_id')
    .innerJoin('models', 'models.id', 'model_metadata.model_id')
    .where('models.tenant_id', '=', tenantId);
  if (modelIds !== null) base = base.where(sql<boolean>`model_metadata.model_id = any(${modelIds.filter(isUuid)}::uuid[])`);
  const [rows, count] = await Promise.all([
    base
      .select(['model_metadata.model_id', 'model_metadata.metadata_key_id', 'metadata_keys.name', 'model_metadata.value'])
      .orderBy('model_metadata.model_id')
      .orderBy('model_metadata.metadata_key_id')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const values: ModelMetadata[] = rows.map((r) => ({
    modelId: r.model_id,
    metadataKeyId: r.metadata_key_id,
    name: r.name,
    value: r.value,
  }));
  return { values, total: Number(count.n) };
}

export async function setMetadataValue(db: Db, modelId: string, metadataKeyId: number, value: string): Promise<void> {
  await db
    .insertInto('model_metadata')
    .values({ model_id: modelId, metadata_key_id: metadataKeyId, value })
    .onConflict((oc) => oc.columns(['model_id', 'metadata_key_id']).doUpdateSet({ value }))
    .execute();
}

/** Whether a pair was there to remove. */
export async function deleteMetadataValue(db: Db, modelId: string, metadataKeyId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('model_metadata')
    .where('model_id', '=', modelId)
    .where('metadata_key_id', '=', metadataKeyId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
