import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { modelFilterFields, formatFilter } from '../../../contract/filter';
import {
  matchesResponseSchemaFor,
  type SimilarityMatchesResponse,
  matchKinds,
  matchQuerySchema,
  type ContainmentDirection,
  type ContainmentMatch,
  type Match,
  type MatchKind,
  type SimilarityMatch,
} from '../../../contract/matches';
import { matchOrderFields, type MatchOrderField, type OrderTerm } from '../../../contract/order';
import { pageDataFor } from '../../../contract/paging';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { Conflict, InvalidInput, NotFound } from '../../http/errors';
import { listQuerySchema, parseListQuery } from '../../http/list-query';
import { tenantGeneration } from '../../search/cache';
import { findMatches, NotIndexed, type ScoredMatch } from '../../search/engine';
import { findModel, modelFilterSchema, modelsByIds, orderingFacts } from '../../store/models';
import type { Database } from '../../store/schema';
import { compileFilter } from '../../store/sql-filter';
import { matchFilterData } from '../../store/match-filter-data';
import { toModels } from '../../store/model-dto';
import { searchableStates } from '../../../contract/models';

const idParams = z.object({ id: z.string() });

export interface MatchRouteOptions {
  db: Kysely<Database>;
  files: ModelFiles;
}

/**
 * `GET /v2/models/{id}/{part-in-part|part-to-part|geo-related}-matches`,
 * and the published API's newer names of two of them: `/matches` (part-to-part) and
 * `/part-matches` (part-in-part), which answer the same.
 */
export async function matchRoutes(parent: FastifyInstance, { db, files }: MatchRouteOptions) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const paths: [string, MatchKind][] = [
    ...matchKinds.map((kind): [string, MatchKind] => [`/:id/${kind}-matches`, kind]),
    ['/:id/matches', 'part-to-part'],
    ['/:id/part-matches', 'part-in-part'],
  ];
  for (const [path, kind] of paths) {
    const published = path.endsWith('/matches') && !path.includes(kind) ? ` (the published name of ${kind})` : '';
    const schema = {
      tags: ['Matches'],
      summary: `${kind === 'part-to-part' ? 'Models of the same shape' : kind === 'part-in-part' ? 'Models it contains or that contain it' : 'Models of similar size and proportions'}${published}`,
      description:
        'threshold is 0–100 (the interface; the published document says 0–1). Part-in-part answers forward and reverse shares; ' +
        'direction=contains keeps the models this one is found in (forward at the threshold), direction=contained the models found in it (reverse).',
      params: idParams,
      querystring: listQuerySchema.extend(matchQuerySchema.shape),
      // One route per kind, one answer schema per kind: typed as either, which `matches` is.
      response: { 200: matchesResponseSchemaFor(kind) as z.ZodType<Omit<SimilarityMatchesResponse, 'matches'> & { matches: Match[] }> },
    };
    app.get(path, { schema }, async (request) => {
      const auth = requireRole(request, 'viewer');
      const { id } = request.params;
      const { threshold, direction } = request.query;
      const query = parseListQuery(request.query, { filterFields: modelFilterFields, allowMetadata: true, orderFields: matchOrderFields });
      checkOrder(kind, query.order);
      const [row, generation] = await Promise.all([findModel(db, auth.tenantId, id), tenantGeneration(db, auth.tenantId)]);
      if (!row) throw new NotFound(`No model ${id}.`);
      if (!(searchableStates as readonly string[]).includes(row.state)) {
        throw new Conflict(`The model is ${row.state}; it can be matched once it has finished processing.`);
      }
      let all: ScoredMatch[];
      try {
        all = await findMatches(
          { db, tenantId: auth.tenantId, generation },
          kind,
          row,
          compileFilter(query.filter, modelFilterSchema),
          formatFilter(query.filter),
        );
      } catch (error) {
        if (error instanceof NotIndexed)
          throw new Conflict('The model was processed before geometric search was available; reprocess it to match it.');
        throw error;
      }
      const passing = all.filter((m) => headline(m, direction) >= threshold);
      const sorted = await sortMatches(db, passing, query.order);
      const start = (query.page - 1) * query.perPage;
      const page = sorted.slice(start, start + query.perPage);
      const [rows, filterData] = await Promise.all([
        modelsByIds(
          db,
          auth.tenantId,
          page.map((m) => m.modelId),
        ),
        matchFilterData(
          db,
          auth.tenantId,
          sorted.map((m) => m.modelId),
        ),
      ]);
      const models = new Map((await toModels(db, rows, files)).map((m) => [m.id, m]));
      const facets = (r: { facts: unknown } | undefined) => Number((r?.facts as { triangles?: unknown } | null)?.triangles) || 0;
      const modelFacetCount = facets(row);
      const matchedFacets = new Map(rows.map((r) => [r.id, facets(r)]));
      const matches: Match[] = [];
      for (const m of page) {
        const matchedModel = models.get(m.modelId);
        if (!matchedModel) continue; // deleted between the search and this page
        const transform = m.transform && m.transform.length === 16 ? { transform: m.transform } : {};
        if (kind === 'part-in-part') {
          matches.push({
            matchedModel,
            commonFacetCount: Math.round((pct(m.forward) / 100) * modelFacetCount),
            modelFacetCount,
            matchedModelFacetCount: matchedFacets.get(m.modelId) ?? 0,
            forwardMatchPercentage: pct(m.forward),
            reverseMatchPercentage: pct(m.reverse),
            ...(m.copies ? { copies: m.copies } : {}),
            ...transform,
          } satisfies ContainmentMatch);
        } else {
          const related =
            kind === 'part-to-part' && m.relation
              ? { relation: m.relation, ...(m.relation === 'scaled' && m.scale ? { scale: Number(m.scale.toFixed(4)) } : {}) }
              : {};
          matches.push({
            matchedModel,
            matchPercentage: pct(m.matchPercentage),
            ...(kind === 'part-to-part' ? transform : {}),
            ...related,
          } satisfies SimilarityMatch);
        }
      }
      return { matches, pageData: pageDataFor(sorted.length, query), matchCount: sorted.length, filterData };
    });
  }
}

const pct = (v: number | undefined) => Math.max(0, Math.min(100, Number((v ?? 0).toFixed(3))));

/** The score a threshold applies to: part-in-part's larger share, or the one its direction names. */
function headline(m: ScoredMatch, direction?: ContainmentDirection): number {
  if (m.matchPercentage !== undefined) return m.matchPercentage;
  if (direction === 'contains') return m.forward ?? 0;
  if (direction === 'contained') return m.reverse ?? 0;
  return Math.max(m.forward ?? 0, m.reverse ?? 0);
}

function checkOrder(kind: MatchKind, order: OrderTerm<MatchOrderField>[]) {
  const containmentOnly = order.find((t) => t.field === 'forwardMatchPercentage' || t.field === 'reverseMatchPercentage');
  if (containmentOnly && kind !== 'part-in-part') {
    throw new InvalidInput(`order: ${containmentOnly.field} exists for part-in-part matches only; use matchPercentage.`, {
      parameter: 'order',
    });
  }
}

/** Default best first; ties (and every order) end with the model id, so pages are stable. */
async function sortMatches(db: Kysely<Database>, matches: ScoredMatch[], order: OrderTerm<MatchOrderField>[]): Promise<ScoredMatch[]> {
  const terms: OrderTerm<MatchOrderField>[] = order.length ? order : [{ field: 'matchPercentage', direction: 'desc' }];
  const needsRows = terms.some((t) => t.field === 'name' || t.field === 'createdAt' || t.field === 'state');
  const info = needsRows
    ? await orderingFacts(
        db,
        matches.map((m) => m.modelId),
      )
    : new Map<string, { name: string; createdAt: number; state: string }>();
  const key = (m: ScoredMatch, field: MatchOrderField): number | string => {
    switch (field) {
      case 'matchPercentage':
        return headline(m);
      case 'forwardMatchPercentage':
        return m.forward ?? 0;
      case 'reverseMatchPercentage':
        return m.reverse ?? 0;
      case 'name':
        return info.get(m.modelId)?.name ?? '';
      case 'createdAt':
        return info.get(m.modelId)?.createdAt ?? 0;
      case 'state':
        return info.get(m.modelId)?.state ?? '';
    }
  };
  return [...matches].sort((a, b) => {
    for (const t of terms) {
      const x = key(a, t.field),
        y = key(b, t.field);
      // Names in the reader's order ("bracket" beside "Bracket", "bracket turned" after "bracket-copy"), not code points.
      const c = typeof x === 'string' && typeof y === 'string' ? x.localeCompare(y) : x < y ? -1 : x > y ? 1 : 0;
      if (c !== 0) return c * (t.direction === 'desc' ? -1 : 1);
    }
    return a.modelId < b.modelId ? -1 : a.modelId > b.modelId ? 1 : 0;
  });
}
