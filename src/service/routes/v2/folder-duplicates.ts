import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { folderDuplicatesResponseSchema, type FolderDuplicatesResponse } from '../../../contract/matches';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { InvalidInput, NotFound } from '../../http/errors';
import { folderDuplicates } from '../../search/duplicates';
import { TooManyPairs } from '../../search/near-pairs';
import { findFolder } from '../../store/folders';
import type { Database } from '../../store/schema';
import { modelsOfDuplicates, relationsAnswer, roundedLinks } from '../../store/duplicate-answers';

const idParams = z.object({ id: z.string() });
const query = z.object({ threshold: z.coerce.number().min(0).max(100).default(98) });

/** `GET /v2/folders/{id}/duplicates?threshold=` (contract matches.ts folderDuplicatesResponseSchema). */
export async function folderDuplicateRoutes(parent: FastifyInstance, { db, files }: { db: Kysely<Database>; files: ModelFiles }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/:id/duplicates',
    {
      schema: {
        tags: ['Folders'],
        summary: "Duplicate groups among a folder's own models",
        params: idParams,
        querystring: query,
        response: { 200: folderDuplicatesResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const { id } = request.params;
      const { threshold } = request.query;
      const folderId = /^\d{1,10}$/.test(id) ? Number(id) : NaN;
      const folder =
        Number.isSafeInteger(folderId) && folderId <= 2_147_483_647 ? await findFolder(db, auth.tenantId, folderId) : undefined;
      if (!folder) throw new NotFound(`No folder ${id}.`);
      const found = await folderDuplicates(db, auth.tenantId, folder.id, threshold).catch((error: unknown) => {
        if (error instanceof TooManyPairs) {
          throw new InvalidInput(
            `At ${threshold}% more than ${error.maxPairs.toLocaleString('en')} pairs of this folder's models match: raise the threshold.`,
            { threshold, maxLinks: error.maxPairs },
          );
        }
        throw error;
      });
      const models = await modelsOfDuplicates(db, auth.tenantId, found, files);
      const body: FolderDuplicatesResponse = {
        clusters: found.clusters
          .map((c) => ({
            models: c.modelIds.map((m) => models.get(m)).filter((m) => m !== undefined),
            links: roundedLinks(c.links),
          }))
          .filter((c) => c.models.length > 1),
        ...relationsAnswer(found, models),
        modelCount: found.modelCount,
        threshold,
      };
      return body;
    },
  );
}
