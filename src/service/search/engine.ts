// The three match kinds: candidates from the vector index, exact pair results where they matter
// (stored in the database, pairs.ts), whole results cached per tenant generation. Everything
// returned is before threshold, order and paging (the route's).
import type { Expression, Kysely, SqlBool } from 'kysely';
import type { MatchKind } from '../../contract/matches';
import { geoRelatedScore } from '../../geometry/search/descriptors/geo-descriptor';
import type { Database, ModelRow } from '../store/schema';
import { LRUCache } from 'lru-cache';
import { bumpGeneration, tenantGeneration } from './cache';
import { loadComponents, loadFeatures } from './features-store';
import { knownContainment } from './known-containment';
import { exactPairs, pairCounters, storedPairs } from './pairs';
import { searchableIds, type SettlingModel } from '../store/searchable-models';
import { findModelById } from '../store/models';
import { needsExact, provisionalScore } from './part-to-part-rule';
import { NOT_SAME_MAX } from '../../geometry/search/duplicate-rule';
import { descriptorDistance, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import { similarDistance, VIEWS_BEYOND } from '../../geometry/search/similar-distance';
import { viewSetDistance } from '../../geometry/search/views/view-set-distance';
import { viewSetsOf } from '../images/model-views-store';
import { nearest } from './vector-index';
import { searchableStates } from '../../contract/models';

/** Candidates read from the index per query (matchCount counts matches among these). */
export const CANDIDATE_POOL = 200;
/** Part-to-part: nearest by size (geo-related index) added to the candidates. */
const SIZE_CANDIDATES = 24;
/** Part-to-part: pairs given the exact comparison per query, the most alike first. */
export const EXACT_MAX = 24;
/** Part-in-part: shells of the query used as probes, neighbours per probe, geometric checks per query. */
const PROBE_SHELLS = 8;
const PROBE_NEIGHBOURS = 24;
export const CONTAINMENT_MAX = 6;
/**
 * Part-in-part: a shell must be this near (descriptor distance) a shell of the query to be
 * checked by registration (point-pair features + ICP cost 0.1–0.5 s of CPU per pair, so only
 * likely pairs). Fixed in distance: the part-to-part score's scale is calibrated separately.
 */
const PROBE_DISTANCE = 3.27;

export interface ScoredMatch {
  modelId: string;
  matchPercentage?: number;
  relation?: 'mirrored' | 'scaled';
  scale?: number;
  forward?: number;
  reverse?: number;
  /** Part-in-part: times the contained model (the side found at the higher share) occurs in the other. */
  copies?: number;
  transform?: number[];
}

export class NotIndexed extends Error {}

export interface SearchContext {
  db: Kysely<Database>;
  tenantId: number;
  generation: string;
  /** Set while ingestion settles the query model's pairs before it turns searchable. */
  settling?: SettlingModel;
  /** Set when only the exact pairs are wanted (settleExactPairs): scores below the rule are not compared by views. */
  exactPairsOnly?: boolean;
}

const results = new LRUCache<string, Promise<ScoredMatch[]>>({ max: 500 });

/**
 * All matches of `query` of one kind that pass `filter`, unthresholded, unsorted. Cached until the
 * tenant's generation changes (filterKey = the filter text as sent).
 */
export function findMatches(
  ctx: SearchContext,
  kind: MatchKind,
  query: ModelRow,
  filter: Expression<SqlBool> | undefined,
  filterKey: string,
): Promise<ScoredMatch[]> {
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
  const found = await nearest(ctx.db, {
    space: 'geo',
    tenantId: ctx.tenantId,
    vector: own.geo,
    excludeModelId: query.id,
    filter,
    limit: CANDIDATE_POOL,
    generation: ctx.generation,
  });
  // geoRelatedScore is a function of the L2 distance the index already measured.
  return found.map((n) => ({ modelId: n.modelId, matchPercentage: geoRelatedScore([n.distance], [0]) }));
}

async function partToPart(ctx: SearchContext, query: ModelRow, filter: Expression<SqlBool> | undefined): Promise<ScoredMatch[]> {
  const own = await ownFeatures(ctx, query.id);
  const near = { tenantId: ctx.tenantId, excludeModelId: query.id, filter, generation: ctx.generation };
  const found = await nearest(ctx.db, { ...near, space: 'global', vector: own.global, limit: CANDIDATE_POOL });
  // Copies the descriptor ranks low (a coarse mesh, an export with internal faces) have the same
  // size: the geo-related index, which leads with the extents, finds them.
  const bySize = await nearest(ctx.db, { ...near, space: 'geo', vector: own.geo, limit: SIZE_CANDIDATES });
  const ids = [...new Set([...found, ...bySize].map((n) => n.modelId))];
  const features = await loadFeatures(ctx.db, ids);
  const distances = new Map<string, number>();
  for (const id of ids) {
    const f = features.get(id);
    if (f) distances.set(id, descriptorDistance(own.global, f.global));
  }
  // Below the rule, pairs the descriptor finds far apart are also compared by their views
  // (similar-distance.ts). Not while settling exact pairs: only the pairs near the rule are kept.
  const far = ctx.exactPairsOnly ? [] : [...distances].filter(([, d]) => d > VIEWS_BEYOND).map(([id]) => id);
  const views = far.length ? await viewSetsOf(ctx.db, ctx.tenantId, [query.id, ...far]) : new Map();
  const ownViews = views.get(query.id);
  const out: (ScoredMatch & { descriptor: number })[] = [];
  for (const [id, d] of distances) {
    const other = views.get(id);
    const similar = similarDistance(d, () => (ownViews && other ? viewSetDistance(ownViews, other) : Infinity));
    // The duplicate rule's gate reads the descriptor alone (part-to-part-rule.ts).
    out.push({ modelId: id, descriptor: scoreFromDistance(d), matchPercentage: provisionalScore(scoreFromDistance(similar)) });
  }
  // The duplicate rule decides ≥ 98 (and mirror images, scaled copies) for pairs of about one
  // size or proportion: stored, or computed once (pairs.ts).
  const gated = out
    .filter((m) => needsExact(own.geo, features.get(m.modelId)!.geo, m.descriptor))
    .sort((a, b) => b.descriptor - a.descriptor || (a.modelId < b.modelId ? -1 : 1))
    .slice(0, EXACT_MAX);
  const exact = await exactPairs(
    ctx.db,
    ctx.tenantId,
    'part-to-part',
    query.id,
    gated.map((m) => m.modelId),
    ctx.settling,
  );
  return out.map(({ descriptor: _, ...m }) => {
    const r = exact.get(m.modelId);
    if (r?.score === undefined) return m;
    return {
      ...m,
      // Below the rule its score is the descriptor's alone: the pair keeps its own (views and all),
      // which does not depend on whether this side was one of the EXACT_MAX compared.
      matchPercentage: r.score > NOT_SAME_MAX ? r.score : m.matchPercentage,
      ...(r.transform.length ? { transform: r.transform } : {}),
      ...(r.relation ? { relation: r.relation } : {}),
      ...(r.scale !== undefined ? { scale: r.scale } : {}),
    };
  });
}

async function partInPart(ctx: SearchContext, query: ModelRow, filter: Expression<SqlBool> | undefined): Promise<ScoredMatch[]> {
  await ownFeatures(ctx, query.id);
  const known = await knownContainment(
    ctx.db,
    query,
    async (ids) => new Map([...(await loadFeatures(ctx.db, ids))].map(([id, f]) => [id, f.area])),
  );
  const knownAllowed = await allowedIds(
    ctx,
    query.id,
    known.map((k) => k.modelId),
    filter,
  );
  const out: ScoredMatch[] = known
    .filter((k) => knownAllowed.has(k.modelId))
    .map((k) => ({ modelId: k.modelId, forward: k.forward, reverse: k.reverse, copies: k.copies, transform: k.transform }));
  const knownIds = new Set(known.map((k) => k.modelId));

  // Geometry: each of the query's larger shells probes the shell index (a part finds the
  // assemblies holding a shell like it; an assembly finds the parts like its shells).
  const queryShells = await loadComponents(ctx.db, query.id);
  const probes = queryShells.slice(0, PROBE_SHELLS);
  const best = new Map<string, number>();
  for (const probe of probes) {
    const found = await nearest(ctx.db, {
      space: 'component',
      tenantId: ctx.tenantId,
      vector: probe.descriptor,
      excludeModelId: query.id,
      filter,
      limit: PROBE_NEIGHBOURS,
      generation: ctx.generation,
    });
    for (const n of found) {
      if (knownIds.has(n.modelId) || (best.get(n.modelId) ?? Infinity) <= n.distance) continue;
      best.set(n.modelId, n.distance);
    }
  }
  const chosen = [...best]
    .filter(([, distance]) => distance <= PROBE_DISTANCE)
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, CONTAINMENT_MAX)
    .map(([id]) => id);
  // Containment of each chosen pair: stored, or computed once (pairs.ts) and kept.
  const exact = await exactPairs(ctx.db, ctx.tenantId, 'part-in-part', query.id, chosen, ctx.settling);
  // Symmetric: pairs other models' queries found with this one are listed too, with the same
  // pair of scores seen from this side (an assembly lists a part whose own query found it).
  const others = await storedPairs(ctx.db, ctx.tenantId, 'part-in-part', query.id, 'all');
  const found = new Set(chosen);
  const extra = [...others.keys()].filter((id) => !found.has(id) && !knownIds.has(id));
  const extraAllowed = await allowedIds(ctx, query.id, extra, filter);
  for (const id of [...chosen, ...extra.filter((x) => extraAllowed.has(x))]) {
    const r = exact.get(id) ?? others.get(id);
    if (r?.forward === undefined || r.reverse === undefined) continue;
    const otherShells = await loadComponents(ctx.db, id);
    // The query found in the other (forward) or the other found in the query (reverse).
    const copies = r.forward >= r.reverse ? copiesOf(queryShells, otherShells) : copiesOf(otherShells, queryShells);
    out.push({ modelId: id, forward: r.forward, reverse: r.reverse, copies, transform: r.transform });
  }
  return out;
}

type Shells = Awaited<ReturnType<typeof loadComponents>>;

/**
 * Times a part occurs in a whole found by shape: the copies of the whole's identical bodies most
 * like the part's largest body (the same count ingestion grouped them by), 1 when none is near.
 */
export function copiesOf(part: Shells, whole: Shells): number {
  const probe = part[0];
  if (!probe) return 1;
  let best: { distance: number; copies: number } | undefined;
  for (const s of whole) {
    let d = 0;
    for (let i = 0; i < probe.descriptor.length; i++) d += (probe.descriptor[i]! - (s.descriptor[i] ?? 0)) ** 2;
    d = Math.sqrt(d);
    if (d <= PROBE_DISTANCE && (!best || d < best.distance)) best = { distance: d, copies: s.copies };
  }
  return best?.copies ?? 1;
}

/**
 * Settles a model's exact pairs: the pairs its own unfiltered part-to-part and part-in-part
 * queries need, computed and stored (both directions), so later queries of it and of its partners
 * only read them. Ingestion runs it after storing the model's features and before writing its
 * searchable state (`settlingVersion`: the model is still processing at that version), so a
 * model's first query is never the one that pays; without it, for a searchable model (benchmarks).
 * Returns undefined when the model is not in the state asked for.
 */
export async function settleExactPairs(
  db: Kysely<Database>,
  modelId: string,
  settlingVersion?: number,
): Promise<{ partToPart: number; partInPart: number } | undefined> {
  const query = await findModelById(db, modelId);
  if (!query) return undefined;
  if (
    settlingVersion === undefined
      ? !(searchableStates as readonly string[]).includes(query.state)
      : query.state !== 'processing' || query.version !== settlingVersion
  )
    return undefined;
  const ctx: SearchContext = {
    db,
    tenantId: query.tenant_id,
    generation: await tenantGeneration(db, query.tenant_id),
    exactPairsOnly: true,
    ...(settlingVersion !== undefined ? { settling: { modelId, version: settlingVersion } } : {}),
  };
  try {
    const before = pairCounters.computed;
    const p2p = await partToPart(ctx, query, undefined);
    const pip = await partInPart(ctx, query, undefined);
    // New pairs show in the partners' lists too (relations, part-in-part both ways).
    if (pairCounters.computed !== before) await bumpGeneration(db, query.tenant_id);
    return { partToPart: p2p.filter((m) => m.transform).length, partInPart: pip.length };
  } catch (error) {
    if (error instanceof NotIndexed) return undefined;
    throw error;
  }
}

async function allowedIds(
  ctx: SearchContext,
  queryId: string,
  ids: string[],
  filter: Expression<SqlBool> | undefined,
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  return new Set(await searchableIds(ctx.db, ctx.tenantId, { ids, exceptId: queryId, filter }));
}
