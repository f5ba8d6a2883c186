// The three match kinds: candidates from the vector index, exact rescoring of the best, cached
// per tenant generation. Everything returned is before threshold, order and paging (the route's).
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { MatchKind } from '../../contract/matches';
import { containment } from '../../geometry/descriptors/containment';
import { geoRelatedScore } from '../../geometry/descriptors/geo-descriptor';
import { scoreFromDistance } from '../../geometry/descriptors/global-descriptor';
import { partToPartRescore } from '../../geometry/descriptors/rescore';
import type { Pose } from '../../geometry/descriptors/pose';
import { containmentModelFrom, placeByShells, preparedPartFrom } from '../../geometry/search-features';
import type { Database, ModelRow } from '../store/schema';
import { Lru } from './cache';
import { loadComponentPoses, loadComponents, loadFeatures, loadPrepared } from './features-store';
import { knownContainment } from './known-containment';
import { SEARCHABLE_STATES } from './tables';
import { nearest } from './vector-index';

/** Candidates read from the index per query (matchCount counts matches among these). */
export const CANDIDATE_POOL = 200;
/** Part-to-part: candidates at or above this descriptor score get exact rescoring … */
export const RESCORE_FLOOR = 90;
/** … the best this many of them (rescoring only ever lowers a score, so the rest keep theirs). */
export const RESCORE_MAX = 5;
/** Part-in-part: shells of the query used as probes, neighbours per probe, geometric checks per query. */
const PROBE_SHELLS = 8;
const PROBE_NEIGHBOURS = 24;
export const CONTAINMENT_MAX = 4;
/**
 * Part-in-part: a shell must look this much like a shell of the query to be checked by
 * registration (point-pair features + ICP cost 0.1–0.5 s of CPU per pair, so only likely pairs).
 */
const PROBE_FLOOR = 80;

export interface ScoredMatch {
  modelId: string;
  matchPercentage?: number;
  forward?: number;
  reverse?: number;
  transform?: number[];
}

export class NotIndexed extends Error {}

export interface SearchContext {
  db: Kysely<Database>;
  tenantId: number;
  generation: string;
}

const results = new Lru<Promise<ScoredMatch[]>>(500);
const pairs = new Lru<Promise<{ score?: number; forward?: number; reverse?: number; transform: number[] }>>(20_000);

/**
 * All matches of `query` of one kind that pass `filter`, unthresholded, unsorted. Cached until the
 * tenant's generation changes (filterKey = the filter text as sent).
 */
export function findMatches(ctx: SearchContext, kind: MatchKind, query: ModelRow, filter: Expression<SqlBool> | undefined, filterKey: string): Promise<ScoredMatch[]> {
  const key = `${ctx.tenantId}:${ctx.generation}:${kind}:${query.id}:${filterKey}`;
  let hit = results.get(key);
  if (!hit) {
    hit = (kind === 'part-to-part' ? partToPart : kind === 'geo-related' ? geoRelated : partInPart)(ctx, query, filter);
    results.set(key, hit);
    hit.catch(() => results.delete(key)); // failures are not kept: the next request computes again
  }
  return hit;
}

async function ownFeatures(ctx: SearchContext, id: string) {
  const f = (await loadFeatures(ctx.db, [id])).get(id);
  if (!f) throw new NotIndexed(id);
  return f;
}

async function geoRelated(ctx: SearchContext, query: ModelRow, filter: Expression<SqlBool> | undefined): Promise<ScoredMatch[]> {
  const own = await ownFeatures(ctx, query.id);
  const found = await nearest(ctx.db, { space: 'geo', tenantId: ctx.tenantId, vector: own.geo, excludeModelId: query.id, filter, limit: CANDIDATE_POOL, generation: ctx.generation });
  // geoRelatedScore is a function of the L2 distance the index already measured.
  return found.map((n) => ({ modelId: n.modelId, matchPercentage: geoRelatedScore([n.distance], [0]) }));
}

async function partToPart(ctx: SearchContext, query: ModelRow, filter: Expression<SqlBool> | undefined): Promise<ScoredMatch[]> {
  const own = await ownFeatures(ctx, query.id);
  const found = await nearest(ctx.db, { space: 'global', tenantId: ctx.tenantId, vector: own.global, excludeModelId: query.id, filter, limit: CANDIDATE_POOL, generation: ctx.generation });
  const out: ScoredMatch[] = found.map((n) => ({ modelId: n.modelId, matchPercentage: scoreFromDistance(n.distance) }));
  const chosen = out.filter((m) => (m.matchPercentage ?? 0) >= RESCORE_FLOOR).slice(0, RESCORE_MAX);
  if (chosen.length === 0) return out;
  let loaded: Promise<{ blobs: Map<string, Uint8Array>; feats: Awaited<ReturnType<typeof loadFeatures>> }> | undefined;
  const load = () => (loaded ??= Promise.all([loadPrepared(ctx.db, [query.id, ...chosen.map((c) => c.modelId)]), loadFeatures(ctx.db, chosen.map((c) => c.modelId))]).then(([blobs, feats]) => ({ blobs, feats })));
  let queryPart: ReturnType<typeof preparedPartFrom> | undefined;
  for (const m of chosen) {
    const r = await pair(ctx, 'part-to-part', query.id, m.modelId, async () => {
      const { blobs, feats } = await load();
      const qb = blobs.get(query.id), cb = blobs.get(m.modelId), cf = feats.get(m.modelId);
      if (!qb || !cb || !cf) return { transform: [] };
      queryPart ??= preparedPartFrom(qb, own.global);
      const res = partToPartRescore(queryPart, preparedPartFrom(cb, cf.global));
      return { score: res.score, transform: res.alignment.transform };
    });
    if (r.score !== undefined) {
      m.matchPercentage = r.score;
      m.transform = r.transform;
    }
  }
  return out;
}

async function partInPart(ctx: SearchContext, query: ModelRow, filter: Expression<SqlBool> | undefined): Promise<ScoredMatch[]> {
  await ownFeatures(ctx, query.id);
  const known = await knownContainment(ctx.db, query, async (ids) => new Map([...(await loadFeatures(ctx.db, ids))].map(([id, f]) => [id, f.area])));
  const knownAllowed = await allowedIds(ctx, query.id, known.map((k) => k.modelId), filter);
  const out: ScoredMatch[] = known.filter((k) => knownAllowed.has(k.modelId)).map((k) => ({ modelId: k.modelId, forward: k.forward, reverse: k.reverse, transform: k.transform }));
  const knownIds = new Set(known.map((k) => k.modelId));

  // Geometry: each of the query's larger shells probes the shell index (a part finds the
  // assemblies holding a shell like it; an assembly finds the parts like its shells).
  const probes = (await loadComponents(ctx.db, query.id)).slice(0, PROBE_SHELLS);
  const best = new Map<string, { distance: number; probe: number; idx: number }>();
  for (const [p, probe] of probes.entries()) {
    const found = await nearest(ctx.db, { space: 'component', tenantId: ctx.tenantId, vector: probe.descriptor, excludeModelId: query.id, filter, limit: PROBE_NEIGHBOURS, generation: ctx.generation });
    for (const n of found) {
      if (knownIds.has(n.modelId) || (best.get(n.modelId)?.distance ?? Infinity) <= n.distance) continue;
      best.set(n.modelId, { distance: n.distance, probe: p, idx: n.idx });
    }
  }
  const chosen = [...best]
    .filter(([, b]) => scoreFromDistance(b.distance) >= PROBE_FLOOR)
    .sort((a, b) => a[1].distance - b[1].distance)
    .slice(0, CONTAINMENT_MAX);
  if (chosen.length === 0) return out;
  let blobs: Promise<Map<string, Uint8Array>> | undefined;
  let poses: Promise<Map<string, Pose>> | undefined;
  let queryModel: ReturnType<typeof containmentModelFrom> | undefined;
  let votingLeft = 1;
  for (const [id, hit] of chosen) {
    const r = await pair(ctx, 'part-in-part', query.id, id, async () => {
      const b = await (blobs ??= loadPrepared(ctx.db, [query.id, ...chosen.map(([c]) => c)]));
      const ps = await (poses ??= loadComponentPoses(ctx.db, chosen.map(([modelId, h]) => ({ modelId, idx: h.idx }))));
      const qb = b.get(query.id), ob = b.get(id), otherShell = ps.get(`${id}:${hit.idx}`), queryShell = probes[hit.probe]?.pose;
      if (!qb || !ob) return { transform: [] };
      queryModel ??= containmentModelFrom(qb);
      const otherModel = containmentModelFrom(ob);
      // The matched shells seed the placement; point-pair-feature voting (slower) only when
      // that does not land, and once per query.
      const seeded = queryShell && otherShell ? placeByShells(queryModel, queryShell, otherModel, otherShell) : undefined;
      const useVoting = (!seeded || seeded.coverage < 0.7) && votingLeft-- > 0;
      const res = useVoting || !seeded ? containment(queryModel, otherModel) : containment(queryModel, otherModel, { placement: seeded.transform });
      return { forward: res.forward, reverse: res.reverse, transform: res.transform };
    });
    if (r.forward !== undefined && r.reverse !== undefined) out.push({ modelId: id, forward: r.forward, reverse: r.reverse, transform: r.transform });
  }
  return out;
}

/** One exact comparison, computed once per tenant generation. */
function pair<T extends { score?: number; forward?: number; reverse?: number; transform: number[] }>(ctx: SearchContext, kind: string, a: string, b: string, run: () => Promise<T>): Promise<T> {
  const key = `${ctx.tenantId}:${ctx.generation}:${kind}:${a}:${b}`;
  const hit = pairs.get(key) as Promise<T> | undefined;
  if (hit) return hit;
  const p = run();
  pairs.set(key, p);
  p.catch(() => pairs.delete(key));
  return p;
}

async function allowedIds(ctx: SearchContext, queryId: string, ids: string[], filter: Expression<SqlBool> | undefined): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const { rows } = await sql<{ id: string }>`
    select models.id from models
    where models.tenant_id = ${ctx.tenantId} and models.id in (${sql.join(ids)}) and models.id <> ${queryId}
      and models.state in (${sql.join([...SEARCHABLE_STATES])})${filter ? sql` and ${filter}` : sql``}`.execute(ctx.db);
  return new Set(rows.map((r) => r.id));
}
