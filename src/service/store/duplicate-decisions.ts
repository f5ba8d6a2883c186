// Decisions on pairs of models (migration 0014): the one writer of their rows. One decision per
// pair of a tenant; deciding again replaces it.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DuplicateVerdict } from '../../contract/duplicate-review';
import type { PageQuery } from '../../contract/paging';
import type { Database, DuplicateDecisionsTable } from './schema';

export type DecisionRow = Selectable<DuplicateDecisionsTable>;

export interface DecisionInput {
  tenantId: number;
  masterId: string;
  modelId: string;
  verdict: DuplicateVerdict;
  threshold: number;
  matchPercentage: number | null;
  masterPath: string;
  modelPath: string;
  note: string | null;
  decidedBy: { id: string; name: string };
}

export async function saveDecision(db: Kysely<Database>, d: DecisionInput): Promise<DecisionRow> {
  const [low, high] = d.masterId < d.modelId ? [d.masterId, d.modelId] : [d.modelId, d.masterId];
  const values = {
    master_id: d.masterId,
    verdict: d.verdict,
    threshold: d.threshold,
    match_percentage: d.matchPercentage,
    master_path: d.masterPath,
    model_path: d.modelPath,
    note: d.note,
    decided_by: d.decidedBy.id,
    decided_by_name: d.decidedBy.name,
  };
  return db
    .insertInto('duplicate_decisions')
    .values({ tenant_id: d.tenantId, low_id: low, high_id: high, ...values })
    .onConflict((oc) => oc.constraint('duplicate_decisions_pair').doUpdateSet({ ...values, decided_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteDecision(db: Kysely<Database>, tenantId: number, id: number): Promise<boolean> {
  const r = await db.deleteFrom('duplicate_decisions').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The tenant's decisions, newest first: a page of them, or all (export). */
export async function listDecisions(db: Kysely<Database>, tenantId: number, page?: PageQuery) {
  const base = db.selectFrom('duplicate_decisions').where('tenant_id', '=', tenantId);
  let rows = base.selectAll().orderBy('decided_at', 'desc').orderBy('id', 'desc');
  if (page) rows = rows.limit(page.perPage).offset((page.page - 1) * page.perPage);
  const [list, count] = await Promise.all([
    rows.execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: list, total: Number(count.n) };
}

/** Decisions on pairs whose two models are both among `ids`. */
export async function decisionsAmong(db: Kysely<Database>, tenantId: number, ids: readonly string[]): Promise<DecisionRow[]> {
  if (ids.length < 2) return [];
  return db
    .selectFrom('duplicate_decisions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql<boolean>`low_id = any(${[...ids]}::uuid[]) and high_id = any(${[...ids]}::uuid[])`)
    .execute();
}

/** Decisions that name any of `ids`, as master or as the other model. */
export async function decisionsTouching(db: Kysely<Database>, tenantId: number, ids: readonly string[]): Promise<DecisionRow[]> {
  if (!ids.length) return [];
  return db
    .selectFrom('duplicate_decisions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql<boolean>`(low_id = any(${[...ids]}::uuid[]) or high_id = any(${[...ids]}::uuid[]))`)
    .orderBy('decided_at', 'desc')
    .execute();
}

/** The other model of a decision's pair: the duplicate, or the model that is not one. */
export const decidedModel = (d: DecisionRow) => (d.master_id === d.low_id ? d.high_id : d.low_id);
