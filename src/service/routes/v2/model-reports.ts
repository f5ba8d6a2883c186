import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { InvalidInput } from '../../http/errors';
import { scopeDuplicates } from '../../search/duplicates';
import { TooManyPairs } from '../../search/near-pairs';
import { stateCounts } from '../../store/models';
import type { Database } from '../../store/schema';
import { folderScope, scopeQuery } from '../../http/folder-scope';
import { toModelsByIds } from '../../store/model-dto';
import { modelsOfDuplicates, relationsAnswer, roundedLinks } from '../../store/duplicate-answers';
import { groupedMatchReportSchema } from '../../../contract/matches';
import { matchReportResponseSchema, stateReportResponseSchema } from '../../../contract/models';

/** 0–100 as every match threshold of the interface (the published document's 0–1 loses, README). */
const thresholdQuery = z.object({ threshold: z.coerce.number().min(0).max(100).default(98) });

/** Models shown per group of the grouped report as the published `exampleModels`. */
const EXAMPLES = 3;

/**
 * The published API's reports over a scope of folders (with subfolders) or the whole tenant:
 * `state-report` (models per state), `match-report` (models with how many others match them at
 * the threshold) and `grouped-match-report` (groups of models linked by part-to-part scores at
 * the threshold: the duplicates across folders).
 */
export async function modelReportRoutes(parent: FastifyInstance, { db, files }: { db: Kysely<Database>; files: ModelFiles }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  async function duplicates(tenantId: number, query: z.output<typeof scopeQuery> & z.output<typeof thresholdQuery>) {
    const { threshold } = query;
    const scope = await folderScope(db, tenantId, query);
    const found = await scopeDuplicates(db, tenantId, scope, threshold).catch((error: unknown) => {
      if (error instanceof TooManyPairs) {
        throw new InvalidInput(
          `At ${threshold}% more than ${error.maxPairs.toLocaleString('en')} pairs of these models match: raise the threshold.`,
          {
            threshold,
            maxLinks: error.maxPairs,
          },
        );
      }
      throw error;
    });
    return { threshold, found };
  }

  app.get(
    '/state-report',
    { schema: { tags: ['Reports'], summary: 'Models per state', querystring: scopeQuery, response: { 200: stateReportResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const scope = await folderScope(db, auth.tenantId, request.query);
      return { states: await stateCounts(db, auth.tenantId, scope) };
    },
  );

  app.get(
    '/match-report',
    {
      schema: {
        tags: ['Reports'],
        summary: 'Models with how many others match them at the threshold',
        querystring: scopeQuery.extend(thresholdQuery.shape).extend(pageQuerySchema.shape),
        response: { 200: matchReportResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const page = request.query;
      const { found, threshold } = await duplicates(auth.tenantId, request.query);
      const counts = new Map<string, number>();
      for (const c of found.clusters) for (const l of c.links) for (const id of [l.a, l.b]) counts.set(id, (counts.get(id) ?? 0) + 1);
      const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const start = (page.page - 1) * page.perPage;
      const slice = ranked.slice(start, start + page.perPage);
      const models = new Map(
        (
          await toModelsByIds(
            db,
            auth.tenantId,
            slice.map(([id]) => id),
            files,
          )
        ).map((m) => [m.id, m]),
      );
      const results = slice.flatMap(([id, matchCount]) => (models.has(id) ? [{ model: models.get(id)!, matchCount }] : []));
      return { results, total: ranked.length, pageData: pageDataFor(ranked.length, page), threshold };
    },
  );

  app.get(
    '/grouped-match-report',
    {
      schema: {
        tags: ['Reports'],
        summary: 'Groups of duplicates across folders',
        querystring: scopeQuery.extend(thresholdQuery.shape),
        response: { 200: groupedMatchReportSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const { found, threshold } = await duplicates(auth.tenantId, request.query);
      const models = await modelsOfDuplicates(db, auth.tenantId, found, files);
      const groups = found.clusters
        .map((c) => {
          const members = c.modelIds.flatMap((id) => (models.has(id) ? [models.get(id)!] : []));
          return {
            modelIds: members.map((m) => m.id),
            exampleModels: members.slice(0, EXAMPLES),
            // Ours beside the published fields: every member and the scored links that join them.
            models: members,
            links: roundedLinks(c.links),
          };
        })
        .filter((g) => g.models.length > 1);
      // Ours too: mirror images and scaled copies, beside the groups.
      return { groups, ...relationsAnswer(found, models), modelCount: found.modelCount, threshold };
    },
  );
}
