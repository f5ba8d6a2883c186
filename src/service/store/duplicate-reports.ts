// Duplicate reports (migration 0014): the one writer of their rows. A report is created `queued`,
// a worker moves it through its phases to `ready` (or `failed`), and its result stays until the
// report is deleted with its tenant.
import { sql, type Kysely } from 'kysely';
import type { PageQuery } from '../../contract/paging';
import type { reportPhases, ReportStatus } from '../../contract/duplicate-review';
import { searchableIdsSql } from './searchable-models';
import type { Database } from './schema';
import { isUuid } from './users';

export type ReportPhase = (typeof reportPhases)[number];

export async function createReport(
  db: Kysely<Database>,
  input: { tenantId: number; folderIds: number[] | null; includeSubfolders: boolean; threshold: number; createdBy: string },
) {
  return db
    .insertInto('duplicate_reports')
    .values({
      id: crypto.randomUUID(),
      tenant_id: input.tenantId,
      folder_ids: input.folderIds ? JSON.stringify(input.folderIds) : null,
      include_subfolders: input.includeSubfolders,
      threshold: input.threshold,
      status: 'queued' satisfies ReportStatus,
      phase: 'waiting' satisfies ReportPhase,
      created_by: input.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findReport(db: Kysely<Database>, tenantId: number, id: string) {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('duplicate_reports').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** A report by id alone (the worker that runs it). */
export async function reportById(db: Kysely<Database>, id: string) {
  return db.selectFrom('duplicate_reports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The tenant's reports, newest first, without their results. */
export async function listReports(db: Kysely<Database>, tenantId: number, page: PageQuery) {
  const base = db.selectFrom('duplicate_reports').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    base
      .select([
        'id',
        'tenant_id',
        'folder_ids',
        'include_subfolders',
        'threshold',
        'status',
        'phase',
        'done',
        'total',
        'error',
        'fingerprint',
        'created_by',
        'created_at',
        'finished_at',
      ])
      .select(sql<number | null>`(result->>'modelCount')::int`.as('model_count'))
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function setReportProgress(db: Kysely<Database>, id: string, phase: ReportPhase, done: number, total: number) {
  await db.updateTable('duplicate_reports').set({ status: 'running', phase, done, total }).where('id', '=', id).execute();
}

export async function finishReport(db: Kysely<Database>, id: string, fingerprint: string, result: unknown) {
  await db
    .updateTable('duplicate_reports')
    .set({ status: 'ready', phase: 'done', fingerprint, result: JSON.stringify(result), error: null, finished_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export async function failReport(db: Kysely<Database>, id: string, error: string) {
  await db
    .updateTable('duplicate_reports')
    .set({ status: 'failed', error, finished_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/**
 * What the searchable models of a scope are (the folders' own models; all of the tenant's when
 * null): how many, which, and when any last changed. A report whose fingerprint differs from the
 * scope's now is stale: a model was added, removed, moved, or processed again.
 */
export async function scopeFingerprint(db: Kysely<Database>, tenantId: number, folderIds: readonly number[] | null): Promise<string> {
  const { rows } = await sql<{ n: string; latest: Date | null; ids: string | null }>`
    select count(*) as n, max(updated_at) as latest, md5(string_agg(id::text, ',' order by id)) as ids
    from models where id in (${searchableIdsSql(tenantId, folderIds === null ? {} : { folderIds })})`.execute(db);
  const r = rows[0];
  return `${r?.n ?? 0}:${r?.latest ? new Date(r.latest).toISOString() : '-'}:${r?.ids ?? '-'}`;
}

/**
 * Records bulk actions taken from a report on some of its decided duplicates, model id → what was
 * done ("delete", "set-metadata", "move:<from folder>:<to folder>"; null: undone, the model moved
 * back). A report that was current before (`fingerprintAfter` given) takes the scope's fingerprint
 * after: its own actions do not make it out of date; any other change since it ran still does.
 */
export async function recordReportAction(
  db: Kysely<Database>,
  tenantId: number,
  reportId: string,
  changes: ReadonlyMap<string, string | null>,
  fingerprintAfter: string | undefined,
) {
  const done = JSON.stringify(Object.fromEntries([...changes].filter(([, v]) => v !== null)));
  const undone = [...changes].filter(([, v]) => v === null).map(([id]) => id);
  await db
    .updateTable('duplicate_reports')
    .set({
      acted: sql`(acted - ${undone}::text[]) || ${done}::jsonb`,
      ...(fingerprintAfter !== undefined ? { fingerprint: fingerprintAfter } : {}),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', reportId)
    .execute();
}
