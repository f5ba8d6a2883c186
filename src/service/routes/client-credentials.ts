import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import {
  clientCredentialListResponseSchema,
  createClientCredentialRequestSchema,
  createdClientCredentialSchema,
  type ClientCredentialListResponse,
  type CreatedClientCredential,
} from '../../contract/client-credentials';
import { requireAuth } from '../http/auth';
import { Conflict, NotFound } from '../http/errors';
import { createCredential, deleteCredential, listCredentials } from '../store/client-credentials';
import type { Database } from '../store/schema';
import { z } from 'zod';

/** A user's cap, so a script gone wrong cannot fill the table. */
const maxCredentialsPerUser = 50;

/**
 * `/client-credentials`. Every signed-in user manages their
 * own credentials only; someone else's client id answers 404 as if it did not exist.
 */
export async function clientCredentialRoutes(parent: FastifyInstance, { db }: { db: Kysely<Database> }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/',
    {
      schema: {
        tags: ['Client credentials'],
        summary: 'Create a credential for scripts; its secret is shown once',
        description: 'Then POST grant_type=client_credentials to the token endpoint with HTTP Basic client id and secret.',
        body: createClientCredentialRequestSchema,
        response: { 201: createdClientCredentialSchema },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      const input = request.body;
      const existing = await listCredentials(db, auth.userId);
      if (existing.length >= maxCredentialsPerUser)
        throw new Conflict(`At most ${maxCredentialsPerUser} credentials per user; delete one first.`);
      const taken = new Set(existing.map((c) => c.name));
      let name = input.name;
      if (name === undefined) {
        let n = existing.length + 1;
        while (taken.has(`Credential ${n}`)) n += 1;
        name = `Credential ${n}`;
      } else if (taken.has(name)) {
        throw new Conflict(`name: a credential named "${name}" already exists.`);
      }
      const { row, secret } = await createCredential(db, { userId: auth.userId, tenantId: auth.tenantId, name });
      const body: CreatedClientCredential = {
        clientCredentials: { clientId: row.client_id, clientSecret: secret, name: row.name, createdAt: row.created_at.toISOString() },
      };
      return reply.status(201).header('cache-control', 'no-store').send(body);
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['Client credentials'],
        summary: 'Your credentials (never their secrets)',
        response: { 200: clientCredentialListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const rows = await listCredentials(db, auth.userId);
      const body: ClientCredentialListResponse = {
        clientCredentials: rows.map((r) => ({
          clientId: r.client_id,
          name: r.name,
          createdAt: r.created_at.toISOString(),
          lastUsedAt: r.last_used_at?.toISOString() ?? null,
        })),
        ...(rows.length ? { clientId: rows[rows.length - 1]!.client_id } : {}),
      };
      return body;
    },
  );

  app.delete<{ Params: { clientId: string } }>(
    '/:clientId',
    {
      schema: {
        tags: ['Client credentials'],
        summary: 'Delete a credential; its tokens stop at once',
        params: z.object({ clientId: z.string() }),
        response: { 204: z.undefined() },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      if (!(await deleteCredential(db, auth.userId, request.params.clientId))) {
        throw new NotFound(`No client credential ${request.params.clientId}.`);
      }
      return reply.status(204).send();
    },
  );
}
