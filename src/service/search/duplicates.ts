// Duplicate clusters of a folder: every pair of its finished models whose part-to-part score
// reaches the threshold is linked; clusters are the connected groups (union-find).
import type { Kysely } from 'kysely';
import { distanceForScore, scoreFromDistance } from '../../geometry/descriptors/global-descriptor';
import type { Database } from '../store/schema';
import { EXACT_FLOOR, exactPairs, storedScoresAmong } from './pairs';
import { folderVectors } from './folder-vectors';
import { pairsWithin } from './near-pairs';

export interface DuplicateClusters {
  clusters: { modelIds: string[]; links: { a: string; b: string; matchPercentage: number }[] }[];
  modelCount: number;
}

/**
 * Links one answer may hold. Their number grows with the square of the folder at low thresholds
 * (5,000 generated models: 3,500 at 98, 111,000 at 80, 320,000 at 60, 12.5 million at 0); past
 * this the request is refused (near-pairs.ts TooManyPairs) instead of exhausting memory.
 */
export const MAX_LINKS = 500_000;

/** Milliseconds spent in each step of a call (benchmarks print them). */
export type DuplicatePhases = Partial<Record<'read' | 'links' | 'exact' | 'clusters', number>>;

export function folderDuplicates(db: Kysely<Database>, tenantId: number, folderId: number, threshold: number, phases: DuplicatePhases = {}): Promise<DuplicateClusters> {
  return scopeDuplicates(db, tenantId, [folderId], threshold, phases);
}

/** Duplicate clusters among the models of `folderIds` (all of the tenant's when null). */
export async function scopeDuplicates(db: Kysely<Database>, tenantId: number, folderIds: readonly number[] | null, threshold: number, phases: DuplicatePhases = {}): Promise<DuplicateClusters> {
  let t = performance.now();
  const lap = (phase: keyof DuplicatePhases) => {
    const now = performance.now();
    phases[phase] = (phases[phase] ?? 0) + now - t;
    t = now;
  };
  const { ids, dim, data } = await folderVectors(db, tenantId, folderIds);
  const n = ids.length;
  lap('read');
  const radius = distanceForScore(Math.max(threshold, 1e-6));
  const links = pairsWithin(data, n, dim, radius, MAX_LINKS).map(({ i, j, d2 }) => ({ i, j, score: scoreFromDistance(Math.sqrt(d2)) }));
  lap('links');

  // Exact scores where the part-to-part endpoint has them (descriptor score at the duplicate line
  // or above, pairs.ts): read from the stored pairs, which the background step after ingestion
  // computed; a pair not stored yet is computed now and stored, so the answer never depends on timing.
  const stored = links.some((l) => l.score >= EXACT_FLOOR) ? await storedScoresAmong(db, tenantId, folderIds) : new Map<string, number>();
  const missing = new Map<number, { other: number; link: (typeof links)[number] }[]>();
  for (const l of links) {
    if (l.score < EXACT_FLOOR) continue;
    const [a, b] = ids[l.i]! < ids[l.j]! ? [l.i, l.j] : [l.j, l.i];
    const s = stored.get(`${ids[a]!}:${ids[b]!}`);
    if (s !== undefined) l.score = s;
    else {
      let list = missing.get(a);
      if (!list) missing.set(a, (list = []));
      list.push({ other: b, link: l });
    }
  }
  for (const [a, list] of missing) {
    const exact = await exactPairs(db, tenantId, 'part-to-part', ids[a]!, list.map((m) => ids[m.other]!));
    for (const m of list) {
      const s = exact.get(ids[m.other]!)?.score;
      if (s !== undefined) m.link.score = s;
    }
  }
  const kept = links.filter((l) => l.score >= threshold);
  lap('exact');

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
  const clusters = [...groups.values()].filter((g) => g.modelIds.length > 1).sort((a, b) => b.modelIds.length - a.modelIds.length || (a.modelIds[0]! < b.modelIds[0]! ? -1 : 1));
  lap('clusters');
  return { clusters, modelCount: n };
}
