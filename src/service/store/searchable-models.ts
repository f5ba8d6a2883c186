// Which models search may return or compare, as the store decides it: the search tables
// (search_features, search_components, search_pairs, model_views) hold one row per model, and
// every read of them is restricted through these sets. Search code joins against the SQL built
// here rather than naming the columns of `models` itself.
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { searchableStates } from '../../contract/models';
import type { Database } from './schema';

/**
 * A model whose exact pairs are computed while ingestion finishes it, before it turns searchable
 * (ingest/ingest-job.ts): it counts as searchable at this version, so its first query finds them stored.
 */
export interface SettlingModel {
  modelId: string;
  version: number;
}

export interface SearchableScope {
  /** A compiled model filter (models.ts modelFilterSchema). */
  filter?: Expression<SqlBool>;
  /** Leave this model out (the query itself). */
  exceptId?: string;
  /** Only models of these folders. */
  folderIds?: readonly number[];
  /** Only these models. */
  ids?: readonly string[];
  /** Also the model ingestion is settling. */
  settling?: SettlingModel;
}

const searchableState = (settling: SettlingModel | undefined) => {
  const searchable = sql`models.state in (${sql.join([...searchableStates])})`;
  return settling
    ? sql`(${searchable} or (models.id = ${settling.modelId} and models.version = ${settling.version} and models.state = 'processing'))`
    : searchable;
};

function searchableWhere(tenantId: number | undefined, scope: SearchableScope) {
  const terms = [searchableState(scope.settling)];
  if (tenantId !== undefined) terms.push(sql`models.tenant_id = ${tenantId}`);
  if (scope.exceptId) terms.push(sql`models.id <> ${scope.exceptId}`);
  if (scope.folderIds) terms.push(sql`models.folder_id = any(${[...scope.folderIds]}::int[])`);
  if (scope.ids) terms.push(sql`models.id = any(${[...scope.ids]}::uuid[])`);
  if (scope.filter) terms.push(sql`${scope.filter}`);
  return sql.join(terms, sql` and `);
}

/** SQL: the ids of `tenantId`'s searchable models in `scope`, to semi-join search rows against. */
export function searchableIdsSql(tenantId: number, scope: SearchableScope = {}): RawBuilder<{ id: string }> {
  return sql`select models.id from models where ${searchableWhere(tenantId, scope)}`;
}

/** SQL: the ids and current versions of the searchable models in `scope` (of every tenant when `tenantId` is undefined). */
export function searchableVersionsSql(
  tenantId: number | undefined,
  scope: SearchableScope = {},
): RawBuilder<{ id: string; version: number }> {
  return sql`select models.id, models.version from models where ${searchableWhere(tenantId, scope)}`;
}

/** SQL: the ids of `tenantId`'s models (any state) updated at or after `since`. */
export function updatedIdsSql(tenantId: number, since: Date): RawBuilder<{ id: string }> {
  return sql`select models.id from models where models.tenant_id = ${tenantId} and models.updated_at >= ${since}`;
}

/** The ids of `tenantId`'s searchable models in `scope`. */
export async function searchableIds(db: Kysely<Database>, tenantId: number, scope: SearchableScope = {}): Promise<string[]> {
  const { rows } = await searchableIdsSql(tenantId, scope).execute(db);
  return rows.map((r) => r.id);
}

/** `tenantId`'s models updated at or after `since`, and whether each is searchable now. */
export async function searchabilityChangedSince(
  db: Kysely<Database>,
  tenantId: number,
  since: Date,
): Promise<{ id: string; searchable: boolean }[]> {
  const { rows } = await sql<{
    id: string;
    state: string;
  }>`select id, state from models where tenant_id = ${tenantId} and updated_at >= ${since}`.execute(db);
  return rows.map((r) => ({ id: r.id, searchable: (searchableStates as readonly string[]).includes(r.state) }));
}

/** How many models of `tenantId` were ever deleted (migration 0012's counter), and the database's clock. */
export async function deletionsOf(db: Kysely<Database>, tenantId: number): Promise<{ deletions: string; now: Date }> {
  const { rows } = await sql<{ deletions: string; now: Date }>`
    select coalesce((select deletions from search_generations where tenant_id = ${tenantId}), 0)::text as deletions, now() as now`.execute(
    db,
  );
  return rows[0]!;
}

/** SQL: true while each model of `versions` is searchable (or settling) in `tenantId` at that version. */
export function stillSearchableAt(
  tenantId: number,
  versions: readonly (readonly [string, number])[],
  settling?: SettlingModel,
): RawBuilder<SqlBool> {
  const match = sql.join(
    versions.map(([id, version]) => sql`(models.id = ${id} and models.version = ${version})`),
    sql` or `,
  );
  return sql<SqlBool>`(select count(*) from models where models.tenant_id = ${tenantId} and ${searchableState(settling)} and (${match})) = ${versions.length}`;
}
