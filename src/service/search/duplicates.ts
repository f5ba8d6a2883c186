// Duplicate clusters of a folder: every pair of its finished models whose part-to-part score
// reaches the threshold is linked; clusters are the connected groups (union-find).
import { sql, type Kysely } from 'kysely';
import { distanceForScore, GLOBAL_BLOCKS, scoreFromDistance } from '../../geometry/descriptors/global-descriptor';
import type { Database } from '../store/schema';
import { EXACT_FLOOR, exactPairs, storedScoresAmong } from './pairs';
import { SEARCHABLE_STATES } from './tables';

export interface DuplicateClusters {
  clusters: { modelIds: string[]; links: { a: string; b: string; matchPercentage: number }[] }[];
  modelCount: number;
}

/** Offset of the raw-scale block: no two models farther apart on it than the radius can match. */
const SWEEP_AXIS = (() => {
  let o = 0;
  for (const b of GLOBAL_BLOCKS) {
    if (b.name === 'scale') return o;
    o += b.length;
  }
  return 0;
})();

export async function folderDuplicates(db: Kysely<Database>, tenantId: number, folderId: number, threshold: number): Promise<DuplicateClusters> {
  const { rows } = await sql<{ id: string; v: number[] }>`
    select models.id, f.global_desc as v from models join search_features f on f.model_id = models.id
    where models.tenant_id = ${tenantId} and models.folder_id = ${folderId} and models.state in (${sql.join([...SEARCHABLE_STATES])})`.execute(db);
  const n = rows.length;
  const dim = rows[0]?.v.length ?? 0;
  const data = new Float32Array(n * dim);
  rows.forEach((r, i) => data.set(r.v.slice(0, dim), i * dim));
  const radius = distanceForScore(Math.max(threshold, 1e-6));
  const r2 = radius * radius;
  // Sweep along one coordinate: only neighbours within the radius on it can be within it in full.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => data[a * dim + SWEEP_AXIS]! - data[b * dim + SWEEP_AXIS]!);
  const links: { i: number; j: number; score: number }[] = [];
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    const oi = i * dim;
    for (let q = p + 1; q < n; q++) {
      const j = order[q]!;
      const oj = j * dim;
      if (data[oj + SWEEP_AXIS]! - data[oi + SWEEP_AXIS]! > radius) break;
      let s = 0;
      for (let k = 0; k < dim && s <= r2; k++) {
        const d = data[oi + k]! - data[oj + k]!;
        s += d * d;
      }
      if (s <= r2) links.push({ i, j, score: scoreFromDistance(Math.sqrt(s)) });
    }
  }

  // Exact scores where the part-to-part endpoint has them (descriptor score at the duplicate line
  // or above, pairs.ts): read from the stored pairs, which the background step after ingestion
  // computed; a pair not stored yet is computed now and stored, so the answer never depends on timing.
  const stored = await storedScoresAmong(db, tenantId, folderId);
  const missing = new Map<number, { other: number; link: (typeof links)[number] }[]>();
  for (const l of links) {
    if (l.score < EXACT_FLOOR) continue;
    const [a, b] = rows[l.i]!.id < rows[l.j]!.id ? [l.i, l.j] : [l.j, l.i];
    const s = stored.get(`${rows[a]!.id}:${rows[b]!.id}`);
    if (s !== undefined) l.score = s;
    else {
      let list = missing.get(a);
      if (!list) missing.set(a, (list = []));
      list.push({ other: b, link: l });
    }
  }
  for (const [a, list] of missing) {
    const exact = await exactPairs(db, tenantId, 'part-to-part', rows[a]!.id, list.map((m) => rows[m.other]!.id));
    for (const m of list) {
      const s = exact.get(rows[m.other]!.id)?.score;
      if (s !== undefined) m.link.score = s;
    }
  }
  const kept = links.filter((l) => l.score >= threshold);

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
    g.modelIds.push(rows[i]!.id);
  }
  for (const l of kept) groups.get(find(l.i))!.links.push({ a: rows[l.i]!.id, b: rows[l.j]!.id, matchPercentage: l.score });
  const clusters = [...groups.values()].filter((g) => g.modelIds.length > 1).sort((a, b) => b.modelIds.length - a.modelIds.length || (a.modelIds[0]! < b.modelIds[0]! ? -1 : 1));
  return { clusters, modelCount: n };
}
