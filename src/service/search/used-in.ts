// Where a part is used: the assemblies whose tree references it, then those part-in-part finds it
// in by shape (each assembly once). The duplicate review and the model page's "Where used" share it.
import type { Kysely } from 'kysely';
import type { ReviewMember } from '../../contract/duplicate-review';
import { assembliesUsing } from '../store/models';
import type { Database } from '../store/schema';
import { assembliesContaining } from './pairs';

/** An assembly that uses a part, and how it was found (the review's shape of it). */
export type UsingAssembly = ReviewMember['usedIn'][number];

/** For each of `ids`, the assemblies that reference it, then those that contain its shape (part-in-part ≥ 90). */
export async function usedIn(db: Kysely<Database>, tenantId: number, ids: readonly string[]): Promise<Map<string, UsingAssembly[]>> {
  const [referencing, containing] = await Promise.all([assembliesUsing(db, tenantId, ids), assembliesContaining(db, tenantId, ids)]);
  const out = new Map<string, UsingAssembly[]>();
  for (const id of ids) {
    const byReference = (referencing.get(id) ?? []).map((a) => ({ ...a, by: 'reference' as const }));
    const byShape = (containing.get(id) ?? [])
      .filter((a) => !byReference.some((r) => r.id === a.id))
      .map((a) => ({ ...a, by: 'shape' as const }));
    out.set(id, [...byReference, ...byShape]);
  }
  return out;
}
