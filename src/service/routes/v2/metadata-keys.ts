import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { createMetadataKeyRequestSchema } from '../../../contract/metadata-keys';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import { requireRole } from '../../http/auth';
import { Conflict } from '../../http/errors';
import { parseInput } from '../../http/validation';
import { createMetadataKey, listMetadataKeys } from '../../store/metadata-keys';
import type { Database } from '../../store/schema';

/** `/v2/metadata-keys` (api-contract.md, Metadata keys). */
export async function metadataKeyRoutes(app: FastifyInstance, { db }: { db: Kysely<Database> }) {
  app.get('/', async (request) => {
    const auth = requireRole(request, 'viewer');
    const page = parseInput(pageQuerySchema, request.query, 'query');
    const { rows, total } = await listMetadataKeys(db, auth.tenantId, page);
    return { metadataKeys: rows.map((k) => ({ id: k.id, name: k.name })), pageData: pageDataFor(total, page) };
  });

  app.post('/', async (request, reply) => {
    const auth = requireRole(request, 'editor');
    const { name } = parseInput(createMetadataKeyRequestSchema, request.body, 'body');
    const row = await createMetadataKey(db, auth.tenantId, name);
    if (!row) throw new Conflict(`A metadata key named “${name}” already exists.`);
    return reply.status(201).send({ metadataKey: { id: row.id, name: row.name } });
  });
}
