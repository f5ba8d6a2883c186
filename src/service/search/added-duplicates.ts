// Models added although the library already held the same part: for each model asked about, the
// models created before it that its own part-to-part matches list at "Same part" (≥ 98) without a
// mirror or scale relation. The upload warning, its API and the `model.duplicate-found` webhook
// event all read it, so they agree with each other and with the model's match page.
import type { Kysely } from 'kysely';
import { searchableStates } from '../../contract/models';
import { defaultThresholds } from '../../contract/score-scale';
import { modelsByIds } from '../store/models';
import type { Database, ModelRow } from '../store/schema';
import { tenantGeneration } from './cache';
import { findMatches, NotIndexed } from './engine';

export interface AddedDuplicate {
  model: ModelRow;
  /** The earlier models it duplicates, the one the library held first at the top. */
  earlier: { row: ModelRow; score: number }[];
}

/** (created, id): the order in which models joined the library; the earlier of two duplicates was there first. */
const before = (a: ModelRow, b: ModelRow) =>
  a.created_at.getTime() < b.created_at.getTime() || (a.created_at.getTime() === b.created_at.getTime() && a.id < b.id);

/** Of `asked` (one tenant's models), those that duplicate an earlier model; models not searchable are skipped. */
export async function addedDuplicates(db: Kysely<Database>, tenantId: number, asked: readonly ModelRow[]): Promise<AddedDuplicate[]> {
  const searchable = asked.filter((m) => (searchableStates as readonly string[]).includes(m.state));
  if (!searchable.length) return [];
  const generation = await tenantGeneration(db, tenantId);
  const found = new Map<string, { id: string; score: number }[]>();
  // A few at a time: most answers are stored pairs, so the database, not the CPU, sets the pace.
  const queue = [...searchable];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let m = queue.shift(); m; m = queue.shift()) {
        const matches = await findMatches({ db, tenantId, generation }, 'part-to-part', m, undefined, '').catch((error: unknown) => {
          if (error instanceof NotIndexed) return [];
          throw error;
        });
        const same = matches.filter((x) => (x.matchPercentage ?? 0) >= defaultThresholds.duplicates && !x.relation);
        if (same.length)
          found.set(
            m.id,
            same.map((x) => ({ id: x.modelId, score: x.matchPercentage! })),
          );
      }
    }),
  );
  const partners = new Map(
    (await modelsByIds(db, tenantId, [...new Set([...found.values()].flat().map((x) => x.id))])).map((r) => [r.id, r]),
  );
  return searchable
    .map((model) => ({
      model,
      earlier: (found.get(model.id) ?? [])
        .flatMap((x) => {
          const row = partners.get(x.id);
          return row && before(row, model) ? [{ row, score: x.score }] : [];
        })
        // Earliest first: the part the library held first is the one to keep (scores ≥ 98 differ by noise).
        .sort((a, b) => (before(a.row, b.row) ? -1 : 1)),
    }))
    .filter((h) => h.earlier.length > 0);
}
