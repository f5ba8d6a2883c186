import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { createMetadataKeyRequestSchema } from '../../../contract/metadata-keys';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import { requireRole } from '../../http/auth';
import { z } from 'zod';
import { Conflict, NotFound } from '../../http/errors';
import { createMetadataKey, findMetadataKey, listMetadataKeys } from '../../store/metadata-keys';
import type { Database } from '../../store/schema';
import { metadataKeyListResponseSchema, metadataKeyResponseSchema } from '../../../contract/metadata-keys';

const keyParams = z.object({ id: z.string() });

/** `/v2/metadata-keys`. */
export async function metadataKeyRoutes(parent: FastifyInstance, { db }: { db: Kysely<Database> }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/',
    {
      schema: {
        tags: ['Metadata'],
        summary: 'Metadata keys',
        querystring: pageQuerySchema,
        response: { 200: metadataKeyListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const page = request.query;
      const { rows, total } = await listMetadataKeys(db, auth.tenantId, page);
      return { metadataKeys: rows.map((k) => ({ id: k.id, name: k.name })), pageData: pageDataFor(total, page) };
    },
  );

  app.get(
    '/:id',
    { schema: { tags: ['Metadata'], summary: 'One metadata key', params: keyParams, response: { 200: metadataKeyResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const { id } = request.params;
      const row = /^\d{1,10}$/.test(id) ? await findMetadataKey(db, auth.tenantId, Number(id)) : undefined;
      if (!row) throw new NotFound(`No metadata key ${id}.`);
      return { metadataKey: { id: row.id, name: row.name } };
    },
  );

  app.post(
    '/',
    {
      schema: {
        tags: ['Metadata'],
        summary: 'Create a metadata key (name or metadataKeyName)',
        body: createMetadataKeyRequestSchema,
        response: { 201: metadataKeyResponseSchema },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const { name } = request.body;
      const row = await createMetadataKey(db, auth.tenantId, name);
      if (!row) throw new Conflict(`A metadata key named “${name}” already exists.`);
      return reply.status(201).send({ metadataKey: { id: row.id, name: row.name } });
    },
  );
}
