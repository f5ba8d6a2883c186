import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import { addedDuplicatesResponseSchema, type AddedDuplicatesResponse } from '../../../contract/matches';
import { isSettled, searchableStates } from '../../../contract/models';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { InvalidInput } from '../../http/errors';
import { folderScope, scopeQuery } from '../../http/folder-scope';
import { listParam } from '../../http/list-param';
import { addedDuplicates } from '../../search/added-duplicates';
import { toModelsByIds } from '../../store/model-dto';
import { modelsByIds } from '../../store/models';
import { isUuid } from '../../store/users';
import type { Database, ModelRow } from '../../store/schema';

/** Models one request compares at most: each is a part-to-part query (mostly stored pairs read). */
export const MAX_ASKED = 500;

const query = scopeQuery
  .extend({
    modelIds: listParam.describe('The models to ask about (up to 500), repeated or comma-joined'),
    since: z.iso.datetime({ offset: true }).optional().describe('Or: the models created at or after this time (ISO 8601)'),
  })
  .extend(pageQuerySchema.shape);

/**
 * `GET /v2/models/added-duplicates` (this service's addition): which of these models were added
 * although the library already held the same part. A duplicate is what the model's own
 * part-to-part matches list at "Same part" (≥ 98) without a mirror or scale relation, so the
 * answer agrees with the model's match page.
 */
export async function addedDuplicateRoutes(parent: FastifyInstance, { db, files }: { db: Kysely<Database>; files: ModelFiles }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/added-duplicates',
    {
      schema: {
        tags: ['Reports'],
        summary: 'Models added although the library already held the same part',
        description:
          'Ask about `modelIds`, or about the models created `since` a time in `folderIds` (with subfolders; the whole library without). ' +
          'A result is a model with the earlier models it duplicates (part-to-part ≥ 98, not a mirror image or a scaled copy). ' +
          '`pending` counts models still processing: ask again once they settle.',
        querystring: query,
        response: { 200: addedDuplicatesResponseSchema },
      },
    },
    async (request): Promise<AddedDuplicatesResponse> => {
      const auth = requireRole(request, 'viewer');
      const q = request.query;
      if (!q.modelIds?.length && !q.since)
        throw new InvalidInput('Name the models: modelIds, or since (a time) with or without folderIds.');
      if ((q.modelIds?.length ?? 0) > MAX_ASKED) throw new InvalidInput(`Ask about ${MAX_ASKED} models at most in one request.`);
      const scope = await folderScope(db, auth.tenantId, q);
      const asked = await askedModels(db, auth.tenantId, { ids: q.modelIds, since: q.since, scope });
      if (asked.length > MAX_ASKED)
        throw new InvalidInput(`More than ${MAX_ASKED} models were created since then here: choose a later time or a smaller folder.`, {
          parameter: 'since',
        });

      const searchable = asked.filter((m) => (searchableStates as readonly string[]).includes(m.state)).length;
      const pending = asked.filter((m) => !isSettled(m.state)).length;
      const hits = (await addedDuplicates(db, auth.tenantId, asked)).sort(
        (a, b) => b.model.created_at.getTime() - a.model.created_at.getTime() || (a.model.id < b.model.id ? -1 : 1),
      );

      const start = (q.page - 1) * q.perPage;
      const page = hits.slice(start, start + q.perPage);
      const models = new Map(
        (
          await toModelsByIds(db, auth.tenantId, [...new Set(page.flatMap((h) => [h.model.id, ...h.earlier.map((x) => x.row.id)]))], files)
        ).map((m) => [m.id, m]),
      );
      const results = page.flatMap((h) => {
        const model = models.get(h.model.id);
        const duplicates = h.earlier.flatMap((x) =>
          models.has(x.row.id) ? [{ matchedModel: models.get(x.row.id)!, matchPercentage: Number(x.score.toFixed(3)) }] : [],
        );
        return model && duplicates.length ? [{ model, duplicates }] : [];
      });
      return { results, checked: searchable, pending, pageData: pageDataFor(hits.length, q) };
    },
  );
}

/** The tenant's models asked about: by id, created since a time in a scope, or both (MAX_ASKED + 1 at most). */
async function askedModels(
  db: Kysely<Database>,
  tenantId: number,
  { ids, since, scope }: { ids: string[] | undefined; since: string | undefined; scope: number[] | null },
): Promise<ModelRow[]> {
  let rows = ids?.length
    ? await modelsByIds(db, tenantId, ids.filter(isUuid))
    : await db
        .selectFrom('models')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('created_at', '>=', new Date(since!))
        .$if(scope !== null, (b) => (scope!.length ? b.where('folder_id', 'in', scope!) : b.where(sql<boolean>`false`)))
        .orderBy('created_at', 'desc')
        .limit(MAX_ASKED + 1)
        .execute();
  if (ids?.length && since) rows = rows.filter((r) => r.created_at.getTime() >= new Date(since).getTime());
  if (ids?.length && scope !== null) rows = rows.filter((r) => scope.includes(r.folder_id));
  return rows;
}
