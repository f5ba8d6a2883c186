// Duplicate clusters of a folder: every pair of its finished models whose part-to-part score
// reaches the threshold is linked; clusters are the connected groups (union-find).
import type { Kysely } from 'kysely';
import { distanceForScore, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import type { Database } from '../store/schema';
import { exactPairs, storedScoresAmong, type ScopedScore } from './pairs';
import { provisionalScore } from './part-to-part-rule';
import { folderVectors } from './folder-vectors';
import { pairsWithin } from './near-pairs';

/** A mirror image or a scaled copy (any score): `a` is `b`'s mirror image, or `b` is `a` scaled by `scale`. */
export interface RelationLink {
  a: string;
  b: string;
  matchPercentage: number;
  relation: 'mirrored' | 'scaled';
  scale?: number;
}

export interface DuplicateClusters {
  clusters: { modelIds: string[]; links: { a: string; b: string; matchPercentage: number }[] }[];
  /** Mirror images and scaled copies: never members of a cluster, listed beside them. */
  relations: RelationLink[];
  modelCount: number;
}

/**
 * Links one answer may hold. Their number grows with the square of the folder at low thresholds
 * (5,000 generated models: 3,500 at 98, 111,000 at 80, 320,000 at 60, 12.5 million at 0); past
 * this the request is refused (near-pairs.ts TooManyPairs) instead of exhausting memory.
 */
export const MAX_LINKS = 500_000;

/** Links not stored yet get the exact comparison from this descriptor score (ingestion settled the rest). */
const EXACT_HINT = 97;

/** Milliseconds spent in each step of a call (benchmarks print them). */
export type DuplicatePhases = Partial<Record<'read' | 'links' | 'exact' | 'clusters', number>>;

/** Where a call is (a background report shows it): the step, and of how many pairs or models how many are done. */
export type DuplicateProgress = (step: 'reading' | 'linking' | 'comparing' | 'grouping', done: number, total: number) => void;

export function folderDuplicates(
  db: Kysely<Database>,
  tenantId: number,
  folderId: number,
  threshold: number,
  phases: DuplicatePhases = {},
): Promise<DuplicateClusters> {
  return scopeDuplicates(db, tenantId, [folderId], threshold, phases);
}

/** Duplicate clusters among the models of `folderIds` (all of the tenant's when null). */
export async function scopeDuplicates(
  db: Kysely<Database>,
  tenantId: number,
  folderIds: readonly number[] | null,
  threshold: number,
  phases: DuplicatePhases = {},
  progress: DuplicateProgress = () => {},
): Promise<DuplicateClusters> {
  let t = performance.now();
  const lap = (phase: keyof DuplicatePhases) => {
    const now = performance.now();
    phases[phase] = (phases[phase] ?? 0) + now - t;
    t = now;
  };
  progress('reading', 0, 0);
  const { ids, dim, data } = await folderVectors(db, tenantId, folderIds);
  const n = ids.length;
  lap('read');
  progress('linking', 0, n);
  const radius = distanceForScore(Math.max(threshold, 1e-6));
  const links = pairsWithin(data, n, dim, radius, MAX_LINKS).map(({ i, j, d2 }) => {
    const descriptor = scoreFromDistance(Math.sqrt(d2));
    return { i, j, descriptor, score: provisionalScore(descriptor), related: undefined as ScopedScore | undefined };
  });
  lap('links');

  // Exact results (the duplicate rule decides ≥ 98, and marks mirror images and scaled copies):
  // read from the stored pairs ingestion settled before the models turned searchable. Stored pairs at the
  // threshold that the descriptor radius missed (a coarse mesh of the same part) are added; a
  // link that could reach the rule (descriptor ≥ EXACT_HINT) but is not stored yet is computed
  // now and stored, so the answer does not depend on timing.
  const stored = await storedScoresAmong(db, tenantId, folderIds);
  const index = new Map(ids.map((id, i) => [id, i]));
  const key = (i: number, j: number) => (ids[i]! < ids[j]! ? `${ids[i]!}:${ids[j]!}` : `${ids[j]!}:${ids[i]!}`);
  const linked = new Set<string>();
  const missing = new Map<number, { other: number; link: (typeof links)[number] }[]>();
  for (const l of links) {
    const k = key(l.i, l.j);
    linked.add(k);
    const s = stored.get(k);
    if (s) {
      l.score = s.score;
      l.related = s.relation ? s : undefined;
    } else if (l.descriptor >= EXACT_HINT) {
      const [a, b] = ids[l.i]! < ids[l.j]! ? [l.i, l.j] : [l.j, l.i];
      let list = missing.get(a);
      if (!list) missing.set(a, (list = []));
      list.push({ other: b, link: l });
    }
  }
  for (const [k, s] of stored) {
    if (linked.has(k) || s.score < threshold) continue;
    const [a, b] = k.split(':');
    const i = index.get(a!),
      j = index.get(b!);
    if (i !== undefined && j !== undefined) links.push({ i, j, descriptor: s.score, score: s.score, related: s.relation ? s : undefined });
  }
  const toCompare = [...missing.values()].reduce((sum, list) => sum + list.length, 0);
  let compared = 0;
  progress('comparing', 0, toCompare);
  for (const [a, list] of missing) {
    const exact = await exactPairs(
      db,
      tenantId,
      'part-to-part',
      ids[a]!,
      list.map((m) => ids[m.other]!),
    );
    for (const m of list) {
      const r = exact.get(ids[m.other]!);
      if (r?.score === undefined) continue;
      m.link.score = r.score;
      // The exact result is from ids[a] (the smaller id) to the other: the stored pair's direction.
      m.link.related = r.relation
        ? { score: r.score, relation: r.relation, ...(r.relation === 'scaled' && r.scale !== undefined ? { scale: r.scale } : {}) }
        : undefined;
    }
    progress('comparing', (compared += list.length), toCompare);
  }
  // Mirror images and scaled copies are relations, never members of a duplicate group.
  const kept = links.filter((l) => l.score >= threshold && !l.related);
  // Every mirror image and scaled copy known in the scope, whatever the threshold: the score of
  // such a pair says how alike the shapes are once mirrored or scaled, not that they are the same part.
  const related = new Map<string, ScopedScore>();
  for (const [k, s] of stored) if (s.relation) related.set(k, s);
  for (const l of links) if (l.related?.relation) related.set(key(l.i, l.j), l.related);
  const relations: RelationLink[] = [...related]
    .map(([k, s]) => {
      const [a, b] = k.split(':') as [string, string];
      return { a, b, matchPercentage: s.score, relation: s.relation!, ...(s.scale !== undefined ? { scale: s.scale } : {}) };
    })
    .sort((x, y) => y.matchPercentage - x.matchPercentage || (x.a < y.a ? -1 : 1));
  lap('exact');
  progress('grouping', 0, n);

  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  for (const l of kept) parent[find(l.i)] = find(l.j);
  const groups = new Map<number, { modelIds: string[]; links: { a: string; b: string; matchPercentage: number }[] }>();
  for (let i = 0; i < n; i++) {
    const root = find(i);
    let g = groups.get(root);
    if (!g) groups.set(root, (g = { modelIds: [], links: [] }));
    g.modelIds.push(ids[i]!);
  }
  for (const l of kept) groups.get(find(l.i))!.links.push({ a: ids[l.i]!, b: ids[l.j]!, matchPercentage: l.score });
  const clusters = [...groups.values()]
    .filter((g) => g.modelIds.length > 1)
    .sort((a, b) => b.modelIds.length - a.modelIds.length || (a.modelIds[0]! < b.modelIds[0]! ? -1 : 1));
  lap('clusters');
  return { clusters, relations, modelCount: n };
}
