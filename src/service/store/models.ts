import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { fileNameOf, folderOf } from '../../contract/file-paths';
import { extensionOf, type UpAxis } from '../../contract/file-types';
import type { FilterClause, ModelFilterField } from '../../contract/filter';
import type { DeclaredUnit, MetadataPair } from '../../contract/models';
import type { ListOrderField, OrderTerm } from '../../contract/order';
import type { PageQuery } from '../../contract/paging';
import { folderPath, foldNameCase, resolveFolderPath } from './folders';
import { unknownMetadataKeyIds } from './metadata-keys';
import { isUniqueViolation } from './pg-errors';
import type { Database, ModelRow } from './schema';
import { compileFilter, compileOrder, likePattern, type SqlFilterSchema } from './sql-filter';
import { createUploads, newUploadNonce } from './uploads';
import { isUuid } from './users';

type Db = Kysely<Database> | Transaction<Database>;

export interface NewModelItem {
  filePath: string;
  name: string;
  metadata?: MetadataPair[] | undefined;
  units?: DeclaredUnit | undefined;
}

export type CreateModelsResult =
  | { ok: true; models: { row: ModelRow; nonce: string }[]; foldersCreated: number }
  | { ok: false; reason: 'missing-folder'; index: number; folder: string }
  | { ok: false; reason: 'duplicate'; paths: string[] }
  | { ok: false; reason: 'unknown-metadata-keys'; ids: number[] };

class Rejected extends Error {
  constructor(readonly result: Exclude<CreateModelsResult, { ok: true }>) {
    super('batch rejected');
  }
}

/**
 * Creates a batch of model records with their upload rows, all in one transaction: any rejection
 * (missing folder, duplicate path, unknown metadata key) leaves nothing behind, folders included.
 * filePath rules and duplicates inside the batch are the caller's to check first.
 */
/** States whose file can be replaced by `replaceFailed` (a file that could not be read). */
const replaceableStates = ['failed', 'failed-incomplete', 'unsupported'] as const;

export async function createModels(
  db: Kysely<Database>,
  input: {
    tenantId: number;
    ownerId: string;
    items: readonly NewModelItem[];
    createMissingFolders: boolean;
    /** A path whose model failed (or is unsupported) is taken over for a new file, like one still waiting for its file. */
    replaceFailed?: boolean;
    uploadExpiresAt: Date;
  },
): Promise<CreateModelsResult> {
  const { tenantId, items } = input;
  try {
    return await db.transaction().execute(async (trx) => {
      const keyIds = items.flatMap((i) => (i.metadata ?? []).map((m) => m.metadataKeyId));
      const unknown = await unknownMetadataKeyIds(trx, tenantId, keyIds);
      if (unknown.length > 0) throw new Rejected({ ok: false, reason: 'unknown-metadata-keys', ids: unknown });

      const lowerPaths = items.map((i) => foldNameCase(i.filePath));
      const taken = await trx
        .selectFrom('models')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('file_path_lower', 'in', lowerPaths)
        .forUpdate()
        .execute();
      // A record still waiting for its file is taken over with a fresh address (a batch left by a
      // closed tab, dropped again); a path with a file is a conflict.
      const replaced = taken.filter((t) => input.replaceFailed && (replaceableStates as readonly string[]).includes(t.state));
      const blocking = taken.filter((t) => t.state !== 'incomplete-upload' && !replaced.includes(t));
      if (blocking.length > 0) throw new Rejected({ ok: false, reason: 'duplicate', paths: blocking.map((t) => t.file_path) });
      const waiting = new Map(taken.map((t) => [t.file_path_lower, t]));
      const fresh = items.filter((i) => !waiting.has(foldNameCase(i.filePath)));

      const folderIds = new Map<string, number>();
      let foldersCreated = 0;
      for (const [index, item] of items.entries()) {
        if (waiting.has(foldNameCase(item.filePath))) continue;
        const folder = folderOf(item.filePath);
        const key = foldNameCase(folder);
        if (folderIds.has(key)) continue;
        const resolved = await resolveFolderPath(trx, tenantId, folder, input.createMissingFolders);
        if (!resolved.ok) throw new Rejected({ ok: false, reason: 'missing-folder', index, folder: resolved.missing });
        folderIds.set(key, resolved.folderId);
        foldersCreated += resolved.created;
      }

      const values = fresh.map((item) => {
        const fileName = fileNameOf(item.filePath);
        return {
          id: randomUUID(),
          tenant_id: tenantId,
          owner_id: input.ownerId,
          folder_id: folderIds.get(foldNameCase(folderOf(item.filePath))) ?? 0,
          name: item.name.trim() === '' ? fileName : item.name,
          file_path: item.filePath,
          file_path_lower: foldNameCase(item.filePath),
          file_name: fileName,
          file_name_lower: foldNameCase(fileName),
          file_type: extensionOf(fileName),
          declared_units: item.units ?? null,
        };
      });
      const rows = values.length > 0 ? await trx.insertInto('models').values(values).returningAll().execute() : [];
      const byPath = new Map<string, ModelRow>([...waiting, ...rows.map((r) => [r.file_path_lower, r] as const)]);
      const ordered = items.map((i) => byPath.get(foldNameCase(i.filePath))).filter((r): r is ModelRow => r !== undefined);

      const pairs = fresh.flatMap((item, i) => {
        const modelId = values[i]?.id ?? '';
        // the last value given for a key wins
        const byKey = new Map((item.metadata ?? []).map((m) => [m.metadataKeyId, m.value]));
        return [...byKey].map(([metadataKeyId, value]) => ({ model_id: modelId, metadata_key_id: metadataKeyId, value }));
      });
      if (pairs.length > 0) await trx.insertInto('model_metadata').values(pairs).execute();

      const uploads = ordered.map((row) => ({ modelId: row.id, nonce: newUploadNonce(), expiresAt: input.uploadExpiresAt }));
      await createUploads(trx, uploads);
      // A replaced model's address was used for the file that failed: the new one is unused.
      if (replaced.length)
        await trx
          .updateTable('uploads')
          .set({ used_at: null })
          .where(
            'model_id',
            'in',
            replaced.map((r) => r.id),
          )
          .execute();
      return { ok: true, models: ordered.map((row, i) => ({ row, nonce: uploads[i]?.nonce ?? '' })), foldersCreated } as const;
    });
  } catch (error) {
    if (error instanceof Rejected) return error.result;
    // a concurrent batch took one of the paths between our check and our insert
    if (isUniqueViolation(error, 'models_tenant_file_path_unique'))
      return { ok: false, reason: 'duplicate', paths: [...items.map((i) => i.filePath)] };
    throw error;
  }
}

export type MoveModelResult =
  { ok: true; row: ModelRow } | { ok: false; reason: 'no-model' | 'no-folder' } | { ok: false; reason: 'taken'; path: string };

/** Moves a model into another folder of its tenant, keeping its file name (its path follows). */
export async function moveModel(db: Kysely<Database>, tenantId: number, id: string, folderId: number): Promise<MoveModelResult> {
  return moveModelsTo(db, tenantId, [id], folderId);
}

/** A tenant's model; undefined for unknown ids, malformed ids and other tenants' models alike. */
/** The axis a designer chose to stand the model on (contract/file-types.ts). */
export async function setUpAxis(db: Db, tenantId: number, id: string, upAxis: UpAxis): Promise<void> {
  await db
    .updateTable('models')
    .set({ up_axis: upAxis, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .execute();
}

export async function findModel(db: Db, tenantId: number, id: string): Promise<ModelRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('models').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** A model by id alone: for ingestion and for signed addresses, where the signature (not a token) authorises. */
export async function findModelById(db: Db, id: string): Promise<ModelRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
}

export const modelFilterSchema: SqlFilterSchema<ModelFilterField> = {
  fields: {
    id: { type: 'uuid', column: 'models.id' },
    name: { type: 'text', column: 'models.name' },
    folderId: { type: 'int', column: 'models.folder_id' },
    state: { type: 'text', column: 'models.state' },
    fileType: { type: 'text', column: 'models.file_type' },
    isAssembly: { type: 'bool', column: 'models.is_assembly' },
    createdAt: { type: 'time', column: 'models.created_at' },
  },
  metadata: (keyId, predicate) =>
    sql`exists (select 1 from model_metadata mm where mm.model_id = models.id and mm.metadata_key_id = ${keyId} and ${predicate({ type: 'text', column: 'mm.value' })})`,
};

const modelOrderColumns: Record<ListOrderField, string> = { name: 'models.name', createdAt: 'models.created_at', state: 'models.state' };

export interface ModelListQuery extends PageQuery {
  filter?: readonly FilterClause<ModelFilterField>[];
  order?: readonly OrderTerm<ListOrderField>[];
  /** Free text over name and filePath (case-insensitive substring). */
  search?: string | undefined;
}

/** One page of a tenant's models and the count of all that match (default order: newest first). */
export async function listModels(db: Kysely<Database>, tenantId: number, query: ModelListQuery) {
  let base = db.selectFrom('models').where('models.tenant_id', '=', tenantId);
  const filter = compileFilter(query.filter ?? [], modelFilterSchema);
  if (filter) base = base.where(filter);
  const search = query.search?.trim();
  if (search) {
    const pattern = `%${likePattern(search)}%`;
    base = base.where(sql<boolean>`(models.name ilike ${pattern} escape '\\' or models.file_path ilike ${pattern} escape '\\')`);
  }
  const [rows, count] = await Promise.all([
    base
      .selectAll('models')
      .orderBy(compileOrder(query.order ?? [], modelOrderColumns, 'models.id', [{ field: 'createdAt', direction: 'desc' }]))
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Deletes a tenant's model row (uploads, metadata and its assembly links go with it). The caller removes its files. */
export async function deleteModel(db: Db, tenantId: number, id: string): Promise<ModelRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db.deleteFrom('models').where('tenant_id', '=', tenantId).where('id', '=', id).returningAll().executeTakeFirst();
}

class MissingModels extends Error {
  constructor(readonly ids: string[]) {
    super('missing models');
  }
}

/** Asks, inside the delete's transaction, for an assembly that used a deleted part to be processed again (model-lifecycle.ts). */
export type RequeueAssembly = (trx: Transaction<Database>, assemblyId: string) => Promise<ModelRow | { noFile: true } | undefined>;

/**
 * Deletes several models of the tenant in one transaction, all or nothing: when any id is not a
 * model of the tenant, nothing is deleted and the unknown ids are returned. Assemblies that used
 * them are requeued in the same transaction.
 */
export async function deleteModelsAndRequeueAssemblies(
  db: Kysely<Database>,
  tenantId: number,
  ids: readonly string[],
  requeue: RequeueAssembly,
): Promise<{ rows: ModelRow[]; assemblies: string[] } | { missing: string[] }> {
  const unknown = ids.filter((id) => !isUuid(id));
  if (unknown.length) return { missing: unknown };
  try {
    return await db.transaction().execute(async (trx) => {
      // Read before the delete: the links' part_id becomes null with it.
      const users = await trx
        .selectFrom('models as m')
        .select('m.id')
        .where('m.tenant_id', '=', tenantId)
        .where(sql<boolean>`not (m.id = any(${[...ids]}::uuid[]))`)
        .where((eb) =>
          eb.or(
            ids.flatMap((id) => [
              eb.exists(
                eb.selectFrom('assembly_links as l').select('l.part_id').whereRef('l.assembly_id', '=', 'm.id').where('l.part_id', '=', id),
              ),
              // Model ids are UUIDs: one found anywhere in the tree's text is a node of that model.
              eb(sql<number>`position(${id} in coalesce(m.assembly_tree::text, ''))`, '>', 0),
            ]),
          ),
        )
        .forUpdate()
        .execute();
      const rows: ModelRow[] = [];
      const missing: string[] = [];
      for (const id of ids) {
        const row = await deleteModel(trx, tenantId, id);
        if (row) rows.push(row);
        else missing.push(id);
      }
      if (missing.length) throw new MissingModels(missing);
      const assemblies: string[] = [];
      for (const u of users) {
        const again = await requeue(trx, u.id);
        if (again && !('noFile' in again)) assemblies.push(again.id);
      }
      return { rows, assemblies };
    });
  } catch (error) {
    if (error instanceof MissingModels) return { missing: error.ids };
    throw error;
  }
}

/** Replaces an assembly's links (file names it references → the part models found, or null). */
export async function setAssemblyLinks(
  db: Db,
  assemblyId: string,
  links: readonly { refName: string; partId: string | null }[],
): Promise<void> {
  await db.deleteFrom('assembly_links').where('assembly_id', '=', assemblyId).execute();
  if (links.length === 0) return;
  const unique = new Map(links.map((l) => [l.refName, l.partId]));
  await db
    .insertInto('assembly_links')
    .values([...unique].map(([refName, partId]) => ({ assembly_id: assemblyId, ref_name: refName, part_id: partId })))
    .execute();
}

export async function assemblyLinksOf(db: Db, assemblyId: string) {
  return db.selectFrom('assembly_links').select(['ref_name', 'part_id']).where('assembly_id', '=', assemblyId).execute();
}

/** One slice (offset, limit) of a folder's own models by name, and how many it has. */
export async function modelsInFolder(db: Kysely<Database>, tenantId: number, folderId: number, offset: number, limit: number) {
  const base = db.selectFrom('models').where('tenant_id', '=', tenantId).where('folder_id', '=', folderId);
  const [rows, count] = await Promise.all([
    limit > 0 ? base.selectAll().orderBy('name').orderBy('id').offset(offset).limit(limit).execute() : Promise.resolve([]),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Models per state among the tenant's models in `folderIds` (all of them when null); every tenant's with a null tenant. */
export async function stateCounts(
  db: Kysely<Database>,
  tenantId: number | null,
  folderIds: readonly number[] | null,
): Promise<Record<string, number>> {
  let q = db.selectFrom('models').select(['state', (eb) => eb.fn.countAll<string>().as('n')]);
  if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
  if (folderIds !== null) q = folderIds.length ? q.where('folder_id', 'in', [...folderIds]) : q.where(sql<boolean>`false`);
  const rows = await q.groupBy('state').orderBy('state').execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/** The assemblies of the tenant whose assembly tree places `partId` (not the part itself), with their trees. */
export async function assembliesPlacing(
  db: Kysely<Database>,
  tenantId: number,
  partId: string,
): Promise<{ id: string; assembly_tree: unknown }[]> {
  const { rows } = await sql<{ id: string; assembly_tree: unknown }>`
    select id, assembly_tree from models
    where tenant_id = ${tenantId} and id <> ${partId} and assembly_tree is not null
      and assembly_tree::text like ${`%${partId}%`}`.execute(db);
  return rows;
}

/** SQL: the ids of models no job is processing (any tenant). */
export function idleIdsSql(): RawBuilder<{ id: string }> {
  return sql`select models.id from models where models.state <> 'processing'`;
}

/** The versions of the models among `ids` that no job is processing. */
export async function idleVersions(db: Kysely<Database>, ids: readonly string[]): Promise<{ id: string; version: number }[]> {
  if (!ids.length) return [];
  return db
    .selectFrom('models')
    .select(['id', 'version'])
    .where('id', 'in', [...ids])
    .where('state', '<>', 'processing')
    .execute();
}

/** The tenant's models of `ids` (any order; unknown ids and other tenants' models left out). */
export async function modelsByIds(db: Db, tenantId: number, ids: readonly string[]): Promise<ModelRow[]> {
  if (!ids.length) return [];
  return db
    .selectFrom('models')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
    .execute();
}

/** Name, creation time and state of the models of `ids`, for ordering match lists. */
export async function orderingFacts(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, { name: string; createdAt: number; state: string }>> {
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('models')
    .select(['id', 'name', 'created_at', 'state'])
    .where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
    .execute();
  return new Map(rows.map((r) => [r.id, { name: r.name, createdAt: r.created_at.getTime(), state: r.state }]));
}

/**
 * The tenant's models in `folderIds` whose file is stored and named one of `fileNames` (case
 * insensitive), other than `exceptIds`: what an assembly's external references may resolve to.
 */
export async function storedFilesNamed(
  db: Kysely<Database>,
  tenantId: number,
  folderIds: readonly number[],
  fileNames: readonly string[],
  exceptIds: readonly string[] = [],
) {
  if (!folderIds.length || !fileNames.length) return [];
  let q = db
    .selectFrom('models')
    .select(['id', 'tenant_id', 'folder_id', 'file_name', 'blob_key', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where(
      'file_name_lower',
      'in',
      fileNames.map((n) => n.toLowerCase()),
    )
    .where('folder_id', 'in', [...folderIds])
    .where('state', '<>', 'incomplete-upload')
    .where('blob_key', 'is not', null);
  if (exceptIds.length) q = q.where('id', 'not in', [...exceptIds]);
  const rows = await q.execute();
  return rows.filter((r): r is typeof r & { blob_key: string } => r.blob_key !== null);
}

/**
 * Assemblies in `folderIds` (other than `partId`) that wait for a part file named `fileNameLower`:
 * they list it as missing, or reference it without a link to `partId` yet.
 */
export async function assembliesWaitingFor(
  db: Kysely<Database>,
  tenantId: number,
  folderIds: readonly number[],
  fileNameLower: string,
  partId: string,
): Promise<string[]> {
  if (!folderIds.length) return [];
  const { rows } = await sql<{ id: string }>`
    select m.id from models m
    where m.tenant_id = ${tenantId}
      and m.folder_id in (${sql.join([...folderIds])})
      and m.id <> ${partId}
      and m.state <> 'incomplete-upload'
      and (
        exists (select 1 from jsonb_array_elements_text(coalesce(m.missing_parts, '[]'::jsonb)) r(v) where lower(r.v) = ${fileNameLower})
        or (
          exists (select 1 from jsonb_array_elements_text(coalesce(m.step_references, '[]'::jsonb)) r(v) where lower(r.v) = ${fileNameLower})
          and not exists (select 1 from assembly_links l where l.assembly_id = m.id and lower(l.ref_name) = ${fileNameLower} and l.part_id = ${partId})
        )
      )`.execute(db);
  return rows.map((r) => r.id);
}

/** Locks a model's row for the rest of the transaction and reads what ingestion checks before it writes. */
export async function lockModel(trx: Transaction<Database>, id: string) {
  return trx
    .selectFrom('models')
    .select(['version', 'state', 'viewer_key', 'thumbnail_key'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** For each of `partIds`, the tenant's assemblies that use it: their trees place it, or they reference its file. */
export async function assembliesUsing(
  db: Db,
  tenantId: number,
  partIds: readonly string[],
): Promise<Map<string, { id: string; name: string; filePath: string }[]>> {
  const out = new Map<string, { id: string; name: string; filePath: string }[]>();
  const ids = new Set(partIds.filter(isUuid));
  if (!ids.size) return out;
  // Two reads, each proportional to what it finds: the links by their part index, and the trees
  // of the tenant's assemblies (few beside its parts), searched here for the ids they name.
  const [links, trees] = await Promise.all([
    sql<{ part_id: string; id: string; name: string; file_path: string }>`
      select l.part_id::text as part_id, m.id, m.name, m.file_path
      from assembly_links l join models m on m.id = l.assembly_id
      where l.part_id = any(${[...ids]}::uuid[]) and m.tenant_id = ${tenantId}`.execute(db),
    sql<{ id: string; name: string; file_path: string; tree: string }>`
      select id, name, file_path, assembly_tree::text as tree from models
      where tenant_id = ${tenantId} and assembly_tree is not null`.execute(db),
  ]);
  const found = new Map<string, Map<string, { id: string; name: string; filePath: string }>>();
  const add = (partId: string, a: { id: string; name: string; file_path: string }) => {
    if (a.id === partId) return;
    let list = found.get(partId);
    if (!list) found.set(partId, (list = new Map()));
    list.set(a.id, { id: a.id, name: a.name, filePath: a.file_path });
  };
  for (const r of links.rows) add(r.part_id, r);
  // Model ids are UUIDs: one found anywhere in a tree's text is a node of that model.
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
  for (const t of trees.rows) for (const [id] of t.tree.matchAll(uuid)) if (ids.has(id)) add(id, t);
  for (const [partId, list] of found)
    out.set(
      partId,
      [...list.values()].sort((x, y) => x.name.localeCompare(y.name) || (x.id < y.id ? -1 : 1)),
    );
  return out;
}

/** Moves models into one folder of their tenant, keeping their file names (their paths follow): all or nothing. */
export async function moveModelsTo(
  db: Kysely<Database>,
  tenantId: number,
  ids: readonly string[],
  folderId: number,
): Promise<MoveModelResult & { rows?: ModelRow[] }> {
  let path = '';
  try {
    return await db.transaction().execute(async (trx) => {
      const names: string[] = [];
      for (const id of ids) {
        const model = isUuid(id)
          ? await trx
              .selectFrom('models')
              .select('file_name')
              .where('tenant_id', '=', tenantId)
              .where('id', '=', id)
              .forUpdate()
              .executeTakeFirst()
          : undefined;
        if (!model) return { ok: false, reason: 'no-model' } as const;
        names.push(model.file_name);
      }
      const folder = await folderPath(trx, tenantId, folderId);
      if (folder === undefined) return { ok: false, reason: 'no-folder' } as const;
      const rows: ModelRow[] = [];
      for (const [i, id] of ids.entries()) {
        path = `${folder}/${names[i]!}`;
        rows.push(
          await trx
            .updateTable('models')
            .set({ folder_id: folderId, file_path: path, file_path_lower: foldNameCase(path), updated_at: sql`now()` })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirstOrThrow(),
        );
      }
      return { ok: true, row: rows[0]!, rows } as const;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'models_tenant_file_path_unique')) return { ok: false, reason: 'taken', path };
    throw error;
  }
}
