import type { Kysely } from 'kysely';
import type { PageQuery } from '../../contract/paging';
import type { Database, FolderRow } from './schema';

export async function createFolder(
  db: Kysely<Database>,
  input: { tenantId: number; name: string; parentFolderId?: number | null },
): Promise<FolderRow> {
  return db
    .insertInto('folders')
    .values({ tenant_id: input.tenantId, name: input.name, parent_folder_id: input.parentFolderId ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One page of a tenant's folders (by name, then id) and the tenant's folder count. */
export async function listFolders(db: Kysely<Database>, tenantId: number, page: PageQuery) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('folders')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .orderBy('id')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    db
      .selectFrom('folders')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Slash-joined paths of every folder of a tenant, keyed by id (folder trees are small). */
export async function folderPaths(db: Kysely<Database>, tenantId: number): Promise<Map<number, string>> {
  const all = await db
    .selectFrom('folders')
    .select(['id', 'name', 'parent_folder_id'])
    .where('tenant_id', '=', tenantId)
    .execute();
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
