// Duplicate clusters of a folder: every pair of its finished models whose part-to-part score
// reaches the threshold is linked; clusters are the connected groups (union-find).
import { sql, type Kysely } from 'kysely';
import { distanceForScore, GLOBAL_BLOCKS, scoreFromDistance } from '../../geometry/descriptors/global-descriptor';
import { partToPartRescore } from '../../geometry/descriptors/rescore';
import { preparedPartFrom } from '../../geometry/search-features';
import type { Database } from '../store/schema';
import { Lru } from './cache';
import { loadPrepared } from './features-store';
import { RESCORE_FLOOR } from './engine';
import { SEARCHABLE_STATES } from './tables';

/** Exact rescoring of linked pairs stops after this much time (the rest keep descriptor scores). */
const RESCORE_BUDGET_MS = 600;

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

const rescored = new Lru<number>(50_000);

export async function folderDuplicates(db: Kysely<Database>, tenantId: number, folderId: number, threshold: number, generation: string): Promise<DuplicateClusters> {
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

  // Exact rescoring, as the part-to-part endpoint does, of links in its rescoring range (best
  // first, within a time budget); a rescored link below the threshold is dropped.
  const deadline = performance.now() + RESCORE_BUDGET_MS;
  const toCheck = links.filter((l) => l.score >= RESCORE_FLOOR).sort((a, b) => b.score - a.score);
  const cached = (l: { i: number; j: number }) => rescored.get(pairKey(tenantId, generation, rows[l.i]!.id, rows[l.j]!.id));
  const parts = new Map<number, ReturnType<typeof preparedPartFrom>>();
  const partOf = (i: number, blobs: Map<string, Uint8Array>) => {
    let p = parts.get(i);
    const blob = blobs.get(rows[i]!.id);
    if (!p && blob) parts.set(i, (p = preparedPartFrom(blob, data.subarray(i * dim, (i + 1) * dim))));
    return p;
  };
  // Blobs are read a few pairs at a time, as far as the budget goes.
  const CHUNK = 16;
  for (let c = 0; c < toCheck.length; c += CHUNK) {
    const chunk = toCheck.slice(c, c + CHUNK);
    const need = chunk.filter((l) => cached(l) === undefined);
    const blobs = need.length && performance.now() < deadline ? await loadPrepared(db, [...new Set(need.flatMap((l) => [l.i, l.j]).filter((i) => !parts.has(i)))].map((i) => rows[i]!.id)) : new Map<string, Uint8Array>();
    for (const l of chunk) rescore(l, blobs);
  }
  function rescore(l: { i: number; j: number; score: number }, blobs: Map<string, Uint8Array>) {
    const key = pairKey(tenantId, generation, rows[l.i]!.id, rows[l.j]!.id);
    let s = rescored.get(key);
    if (s === undefined && performance.now() < deadline) {
      const a = partOf(l.i, blobs), b = partOf(l.j, blobs);
      if (a && b) {
        s = partToPartRescore(a, b).score;
        rescored.set(key, s);
      }
    }
    if (s !== undefined) l.score = s;
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

function pairKey(tenantId: number, generation: string, a: string, b: string): string {
  return `${tenantId}:${generation}:${a < b ? `${a}:${b}` : `${b}:${a}`}`;
}
