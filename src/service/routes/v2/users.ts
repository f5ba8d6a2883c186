import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { roles as workbenchRoles, type Role } from '../../../contract/app-config';
import { currentUserResponseSchema, publishedRoleNames, type CurrentUser } from '../../../contract/users';
import { requireAuth } from '../../http/auth';
import { NotFound } from '../../http/errors';
import type { Database } from '../../store/schema';
import { findAccount } from '../../store/users';

/** `GET /v2/users/me`: who the token acts for (a credential's token acts for its owner). */
export async function userRoutes(parent: FastifyInstance, { db }: { db: Kysely<Database> }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/me',
    { schema: { tags: ['Users'], summary: 'Who this token acts for', response: { 200: currentUserResponseSchema } } },
    async (request) => {
      const auth = requireAuth(request);
      const account = await findAccount(db, auth.userId);
      if (!account) throw new NotFound('The user of this token no longer exists.');
      // The token's roles: for users of another provider (OIDC_ISSUER) only the token knows them.
      const own = auth.roles.filter((r): r is Role => (workbenchRoles as readonly string[]).includes(r));
      const body: CurrentUser = {
        id: account.user.id,
        externalId: account.user.id,
        email: account.user.email,
        department: '',
        acceptedLicenseAgreement: true,
        status: 'Active',
        roles: own.map((r) => publishedRoleNames[r]),
        tenants: [account.tenant.key],
        name: account.user.name,
        tenant: { key: account.tenant.key, name: account.tenant.name },
        workbenchRoles: own,
      };
      return body;
    },
  );
}
