import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import { requireRole } from '../../http/auth';
import { listParam } from '../../http/list-param';
import { listMetadataValues } from '../../store/metadata-keys';
import type { Database } from '../../store/schema';
import { metadataValueListResponseSchema } from '../../../contract/models';

const modelIdsQuery = z.object({ modelIds: listParam.transform((v) => v ?? null) });

/** `GET /v2/metadata?modelIds=`: metadata values of the tenant's models, a page at a time (published API). */
export async function metadataRoutes(parent: FastifyInstance, { db }: { db: Kysely<Database> }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const querystring = pageQuerySchema.extend(modelIdsQuery.shape);
  app.get(
    '/',
    {
      schema: { tags: ['Metadata'], summary: 'Metadata values of models', querystring, response: { 200: metadataValueListResponseSchema } },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const page = request.query;
      const { modelIds } = request.query;
      const { values, total } = await listMetadataValues(db, auth.tenantId, modelIds, page);
      return { metadata: values, pageData: pageDataFor(total, page) };
    },
  );
}
