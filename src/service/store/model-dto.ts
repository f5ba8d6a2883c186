import type { Kysely } from 'kysely';
import { meshFactsSchema, type Model } from '../../contract/models';
import { defaultUpAxis, parseUpAxis } from '../../contract/file-types';
import type { ModelFiles } from '../files/model-files';
import { metadataOf } from './metadata-keys';
import { modelsByIds } from './models';
import type { Database, ModelRow } from './schema';

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;
}

/** A model row in the contract's wire shape (src/contract/models.ts). */
export function toModel(row: ModelRow, metadata: Model['metadata'], files: ModelFiles): Model {
  const facts = meshFactsSchema.safeParse(row.facts);
  const thumbnail = files.thumbnailUrl(row);
  return {
    id: row.id,
    name: row.name,
    filePath: row.file_path,
    fileName: row.file_name,
    fileType: row.file_type,
    folderId: row.folder_id,
    isAssembly: row.is_assembly,
    ownerId: row.owner_id ?? '',
    units: facts.success ? facts.data.units : 'unknown',
    state: row.state,
    stateReason: row.state_reason,
    metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    // Absent rather than null: the published schema has it as a string or nothing.
    ...(thumbnail ? { thumbnail } : {}),
    viewerFile: files.viewerUrl(row),
    missingParts: stringList(row.missing_parts),
    partCount: row.part_count,
    facts: facts.success ? facts.data : null,
    // bigint column: pg hands it over as a string
    fileSize: row.size_bytes === null ? null : Number(row.size_bytes),
    upAxis: parseUpAxis(row.up_axis) ?? defaultUpAxis(row.file_name),
  };
}

/** Several rows, with their metadata read in one query. */
export async function toModels(db: Kysely<Database>, rows: ModelRow[], files: ModelFiles): Promise<Model[]> {
  const metadata = await metadataOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toModel(r, metadata.get(r.id) ?? [], files));
}

/**
 * The models of `ids` in the tenant (any order; unknown ids left out): for thousands of ids at
 * once (folder duplicates), passed as one array parameter where an IN list would send and plan
 * thousands of parameters.
 */
export async function toModelsByIds(db: Kysely<Database>, tenantId: number, ids: readonly string[], files: ModelFiles): Promise<Model[]> {
  return toModels(db, await modelsByIds(db, tenantId, ids), files);
}
