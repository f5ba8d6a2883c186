import { sql, type Kysely, type Transaction } from 'kysely';
import { folderFilterFields, type FilterClause, type FolderFilterField } from '../../contract/filter';
import type { OrderTerm } from '../../contract/order';
import type { PageQuery } from '../../contract/paging';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors';
import type { Database, FolderRow } from './schema';
import { compileFilter, compileOrder, likePattern, type SqlFilterSchema } from './sql-filter';

type Db = Kysely<Database> | Transaction<Database>;

/** The case folding of names and paths everywhere (folders.name_lower, models.*_lower). */
export function foldNameCase(name: string): string {
  return name.toLowerCase();
}

export async function createFolder(db: Db, input: { tenantId: number; name: string; parentFolderId?: number | null }): Promise<FolderRow> {
  return db
    .insertInto('folders')
    .values({
      tenant_id: input.tenantId,
      name: input.name,
      name_lower: foldNameCase(input.name),
      parent_folder_id: input.parentFolderId ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type CreateFolderResult = { ok: true; folder: FolderRow } | { ok: false; reason: 'duplicate' | 'no-parent' };

/** Creates a folder; a sibling with the same name (any case) or a missing parent is reported, not thrown. */
export async function tryCreateFolder(
  db: Kysely<Database>,
  input: { tenantId: number; name: string; parentFolderId?: number | null },
): Promise<CreateFolderResult> {
  if (input.parentFolderId != null && !(await findFolder(db, input.tenantId, input.parentFolderId)))
    return { ok: false, reason: 'no-parent' };
  try {
    return { ok: true, folder: await createFolder(db, input) };
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, reason: 'duplicate' };
    if (isForeignKeyViolation(error)) return { ok: false, reason: 'no-parent' };
    throw error;
  }
}

export async function findFolder(db: Db, tenantId: number, id: number): Promise<FolderRow | undefined> {
  if (!Number.isSafeInteger(id) || id <= 0 || id > 2_147_483_647) return undefined;
  return db.selectFrom('folders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

const folderFilterSchema: SqlFilterSchema<FolderFilterField> = {
  fields: {
    id: { type: 'int', column: 'folders.id' },
    name: { type: 'text', column: 'folders.name' },
    parentFolderId: { type: 'int', column: 'folders.parent_folder_id', nullable: true, nullLiteral: true },
  },
};
export { folderFilterFields };

export const folderOrderFields = ['name', 'createdAt'] as const;
export type FolderOrderField = (typeof folderOrderFields)[number];
const folderOrderColumns: Record<FolderOrderField, string> = { name: 'folders.name', createdAt: 'folders.created_at' };

export interface FolderListQuery extends PageQuery {
  filter?: readonly FilterClause<FolderFilterField>[];
  order?: readonly OrderTerm<FolderOrderField>[];
  /** Free text over the name (case-insensitive substring). */
  search?: string | undefined;
}

/** One page of a tenant's folders (by name, then id, unless ordered otherwise) and the count of all that match. */
export async function listFolders(db: Kysely<Database>, tenantId: number, query: FolderListQuery) {
  let base = db.selectFrom('folders').where('folders.tenant_id', '=', tenantId);
  const filter = compileFilter(query.filter ?? [], folderFilterSchema);
  if (filter) base = base.where(filter);
  const search = query.search?.trim();
  if (search) base = base.where(sql<boolean>`folders.name ilike ${`%${likePattern(search)}%`} escape '\\'`);
  const [rows, count] = await Promise.all([
    base
      .selectAll('folders')
      .orderBy(compileOrder(query.order ?? [], folderOrderColumns, 'folders.id', [{ field: 'name', direction: 'asc' }]))
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Models directly in each of `folderIds` (not in their subfolders). */
export async function modelCounts(db: Db, tenantId: number, folderIds: number[]): Promise<Map<number, number>> {
  if (folderIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('models')
    .select(['folder_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('folder_id', 'in', folderIds)
    .groupBy('folder_id')
    .execute();
  return new Map(rows.map((r) => [r.folder_id, Number(r.n)]));
}

/** Slash-joined paths of every folder of a tenant, keyed by id (folder trees are small). */
export async function folderPaths(db: Db, tenantId: number): Promise<Map<number, string>> {
  const all = await db.selectFrom('folders').select(['id', 'name', 'parent_folder_id']).where('tenant_id', '=', tenantId).execute();
  const byId = new Map(all.map((f) => [f.id, f]));
  const paths = new Map<number, string>();
  const pathOf = (id: number, depth = 0): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const folder = byId.get(id);
    if (!folder) return '';
    const parent = folder.parent_folder_id;
    // depth guard: a cycle cannot be built through the API, but must not hang a listing either
    const p = parent !== null && depth < 100 ? `${pathOf(parent, depth + 1)}/${folder.name}` : folder.name;
    paths.set(id, p);
    return p;
  };
  for (const f of all) pathOf(f.id);
  return paths;
}

/** The path of one folder (walks up its parents). */
export async function folderPath(db: Db, tenantId: number, id: number): Promise<string | undefined> {
  const names: string[] = [];
  let current: number | null = id;
  for (let depth = 0; current !== null && depth < 100; depth += 1) {
    const row: { name: string; parent_folder_id: number | null } | undefined = await db
      .selectFrom('folders')
      .select(['name', 'parent_folder_id'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', current)
      .executeTakeFirst();
    if (!row) return names.length === 0 ? undefined : names.reverse().join('/');
    names.push(row.name);
    current = row.parent_folder_id;
  }
  return names.reverse().join('/');
}

export type RenameFolderResult = { ok: true; folder: FolderRow } | { ok: false; reason: 'not-found' | 'duplicate' };

/**
 * Renames a folder. Model filePaths start with their folder's path, so every model in the folder
 * and its subfolders gets its path rewritten in the same transaction.
 */
export async function renameFolder(db: Kysely<Database>, tenantId: number, id: number, name: string): Promise<RenameFolderResult> {
  try {
    return await db.transaction().execute(async (trx) => {
      const folder = await findFolder(trx, tenantId, id);
      if (!folder) return { ok: false, reason: 'not-found' } as const;
      const oldPath = await folderPath(trx, tenantId, id);
      const renamed = await trx
        .updateTable('folders')
        .set({ name, name_lower: foldNameCase(name) })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const newPath = await folderPath(trx, tenantId, id);
      if (oldPath !== undefined && newPath !== undefined && oldPath !== newPath) {
        const subtree = await subtreeIds(trx, tenantId, id);
        const oldPrefix = `${oldPath}/`;
        const newPrefix = `${newPath}/`;
        // char_length and substr count characters on both sides, so no JS/SQL length mismatch.
        await trx
          .updateTable('models')
          .set({
            file_path: sql`${newPrefix} || substr(file_path, char_length(${oldPrefix}::text) + 1)`,
            file_path_lower: sql`${foldNameCase(newPrefix)} || substr(file_path_lower, char_length(${foldNameCase(oldPrefix)}::text) + 1)`,
            updated_at: sql`now()`,
          })
          .where('tenant_id', '=', tenantId)
          .where('folder_id', 'in', subtree)
          .execute();
      }
      return { ok: true, folder: renamed } as const;
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, reason: 'duplicate' };
    throw error;
  }
}

/** One slice (offset, limit) of a folder's subfolders by name, and how many it has. */
export async function childFolders(db: Db, tenantId: number, parentId: number, offset: number, limit: number) {
  const base = db.selectFrom('folders').where('tenant_id', '=', tenantId).where('parent_folder_id', '=', parentId);
  const [rows, count] = await Promise.all([
    limit > 0 ? base.selectAll().orderBy('name').orderBy('id').offset(offset).limit(limit).execute() : Promise.resolve([]),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Those of `ids` that are folders of the tenant. */
export async function existingFolderIds(db: Db, tenantId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('folders')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
  return rows.map((r) => r.id);
}

/** The folders (the tenant's only) and all folders below them, each once. */
export async function subtreeIds(db: Db, tenantId: number, ids: number | readonly number[]): Promise<number[]> {
  const roots = typeof ids === 'number' ? [ids] : [...ids];
  if (roots.length === 0) return [];
  const rows = await db
    .withRecursive('tree(id)', (qb) =>
      qb
        .selectFrom('folders')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', roots)
        .union((q) => q.selectFrom('folders').innerJoin('tree', 'tree.id', 'folders.parent_folder_id').select('folders.id')),
    )
    .selectFrom('tree')
    .select('id')
    .execute();
  return rows.map((r) => r.id);
}

export type DeleteFolderResult = 'deleted' | 'not-found' | 'has-subfolders' | 'has-models';

/** Deletes an empty folder (no subfolders, no models). */
export async function deleteFolder(db: Kysely<Database>, tenantId: number, id: number): Promise<DeleteFolderResult> {
  try {
    return await db.transaction().execute(async (trx) => {
      const folder = await trx
        .selectFrom('folders')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!folder) return 'not-found';
      const child = await trx.selectFrom('folders').select('id').where('parent_folder_id', '=', id).limit(1).executeTakeFirst();
      if (child) return 'has-subfolders';
      const model = await trx.selectFrom('models').select('id').where('folder_id', '=', id).limit(1).executeTakeFirst();
      if (model) return 'has-models';
      await trx.deleteFrom('folders').where('id', '=', id).execute();
      return 'deleted';
    });
  } catch (error) {
    // something arrived in the folder between the checks and the delete
    if (isForeignKeyViolation(error)) return 'has-models';
    throw error;
  }
}

export type ResolveFolderResult = { ok: true; folderId: number; created: number } | { ok: false; missing: string };

/**
 * The folder at a slash-joined path ("a/b/c"), matched case-insensitively from the root. With
 * `create`, missing folders are made (concurrent creators agree: the unique index decides, both
 * read the winner back). Run inside the caller's transaction so a rejected batch leaves nothing.
 */
export async function resolveFolderPath(trx: Db, tenantId: number, path: string, create: boolean): Promise<ResolveFolderResult> {
  let parent: number | null = null;
  let created = 0;
  const segments = path.split('/');
  for (const [i, name] of segments.entries()) {
    const lower = foldNameCase(name);
    const find = () =>
      trx
        .selectFrom('folders')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('name_lower', '=', lower)
        .where((eb) => (parent === null ? eb('parent_folder_id', 'is', null) : eb('parent_folder_id', '=', parent)))
        .executeTakeFirst();
    let row = await find();
    if (!row) {
      if (!create) return { ok: false, missing: segments.slice(0, i + 1).join('/') };
      const inserted = await trx
        .insertInto('folders')
        .values({ tenant_id: tenantId, name, name_lower: lower, parent_folder_id: parent })
        .onConflict((oc) => oc.doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) created += 1;
      row = inserted ?? (await find());
      if (!row) throw new Error(`folder ${path} could not be created`);
    }
    parent = row.id;
  }
  if (parent === null) throw new Error('empty folder path');
  return { ok: true, folderId: parent, created };
}
