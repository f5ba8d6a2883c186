import { sql, type Kysely } from 'kysely';
import type { MatchFilterData } from '../../contract/matches';
import type { Database } from './schema';

/**
 * The published API's `filterData` of a match list: the values the matches' folders, metadata,
 * dates, kinds, file types and units take, for a client to offer as filters. Taken over every
 * match that passed the threshold, not one page. Collections and properties do not exist here.
 */
export async function matchFilterData(db: Kysely<Database>, tenantId: number, modelIds: readonly string[]): Promise<MatchFilterData> {
  const empty: MatchFilterData = {
    folders: [],
    properties: [],
    metadata: [],
    createdAt: [],
    isAssembly: [],
    fileType: [],
    units: [],
    collections: { names: [], tags: [], metadata: [] },
  };
  if (modelIds.length === 0) return empty;
  const ids = sql`any(${[...modelIds]}::uuid[])`;
  const [rows, metadata] = await Promise.all([
    db
      .selectFrom('models')
      .innerJoin('folders', 'folders.id', 'models.folder_id')
      .select([
        'folders.id as folderId',
        'folders.name as folderName',
        'models.created_at',
        'models.is_assembly',
        'models.file_type',
        sql<string | null>`models.facts->>'units'`.as('units'),
      ])
      .where('models.tenant_id', '=', tenantId)
      .where(sql<boolean>`models.id = ${ids}`)
      .execute(),
    db
      .selectFrom('model_metadata')
      .innerJoin('metadata_keys', 'metadata_keys.id', 'model_metadata.metadata_key_id')
      .select(['metadata_keys.id', 'metadata_keys.name', 'model_metadata.value'])
      .where(sql<boolean>`model_metadata.model_id = ${ids}`)
      .execute(),
  ]);
  const distinct = <T>(values: T[]) => [...new Set(values)].sort();
  const folders = new Map(rows.map((r) => [r.folderId, r.folderName]));
  const keys = new Map<number, { name: string; values: Set<string> }>();
  for (const m of metadata) {
    const entry = keys.get(m.id) ?? { name: m.name, values: new Set<string>() };
    entry.values.add(m.value);
    keys.set(m.id, entry);
  }
  return {
    ...empty,
    folders: [...folders].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name)),
    metadata: [...keys].map(([metadataKeyId, k]) => ({ metadataKeyId, name: k.name, values: [...k.values].sort() })),
    createdAt: distinct(rows.map((r) => r.created_at.toISOString().slice(0, 10))),
    isAssembly: distinct(rows.map((r) => r.is_assembly)),
    fileType: distinct(rows.map((r) => r.file_type)),
    units: distinct(rows.map((r) => r.units ?? 'unknown')),
  };
}
