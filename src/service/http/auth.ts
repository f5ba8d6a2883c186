import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWK } from 'jose';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { accessTokenClaimsSchema, roles as knownRoles, type Role } from '../../contract/app-config';
import { createExternalVerifier, type ExternalOidcConfig } from '../identity/external-issuer';
import { findCredential, touchCredential } from '../store/client-credentials';
import type { Database } from '../store/schema';
import { isUuid } from '../store/users';
import { Forbidden, Unauthorized } from './errors';

/** Who a request acts for, set by the auth preHandler on every protected route. */
export interface RequestAuth {
  userId: string;
  tenantId: number;
  tenantKey: string;
  roles: Role[];
  /** `workbench-app` for browser sessions, the credential's client id for client-credential tokens. */
  clientId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: RequestAuth;
  }
}

export interface AuthOptions {
  db: Kysely<Database>;
  issuer: string;
  audience: string;
  appClientId: string;
  /** Public keys of the provider's own JWKS: the only keys whose tokens the API accepts. */
  publicKeys: JWK[];
  /** Minimum time between two writes of a credential's last_used_at. */
  touchIntervalMs?: number;
  /** Another provider whose access tokens are accepted too (OIDC_ISSUER); client credentials stay the embedded provider's. */
  external?: ExternalOidcConfig | undefined;
}

/** The `iss` a token claims (unverified: it only picks which issuer's keys must verify it). */
function claimedIssuer(token: string): string | undefined {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

/** Ours and the published API's name for the same promise. */
function checkTenantHeaders(request: FastifyRequest, tenantKey: string) {
  for (const header of ['x-tenant-id', 'x-physna-tenantid']) {
    const value = request.headers[header];
    if (value !== undefined && value !== tenantKey) {
      throw new Forbidden(
        `${header === 'x-tenant-id' ? 'X-Tenant-Id' : 'X-PHYSNA-TENANTID'} does not match the tenant of the access token.`,
      );
    }
  }
}

export type Authenticator = (request: FastifyRequest) => Promise<RequestAuth>;

export function createAuthenticator({
  db,
  issuer,
  audience,
  appClientId,
  publicKeys,
  touchIntervalMs = 60_000,
  external,
}: AuthOptions): Authenticator {
  const keySet = createLocalJWKSet({ keys: publicKeys });
  const verifyExternal = external ? createExternalVerifier(db, external) : undefined;
  const lastTouched = new Map<string, number>();

  async function verify(token: string) {
    try {
      const { payload } = await jwtVerify(token, keySet, {
        issuer,
        audience,
        algorithms: ['RS256'], // refuses alg "none" and HMAC tokens signed with a public key
        typ: 'at+jwt', // an ID token is not an access token
        requiredClaims: ['exp', 'sub'],
      });
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new Unauthorized('The access token has expired.', 'invalid_token');
      throw new Unauthorized('The access token is not valid.', 'invalid_token');
    }
  }

  async function touch(clientId: string) {
    const now = Date.now();
    if (now - (lastTouched.get(clientId) ?? 0) < touchIntervalMs) return;
    lastTouched.set(clientId, now);
    await touchCredential(db, clientId, new Date(now), touchIntervalMs);
  }

  return async function authenticateRequest(request) {
    const header = request.headers.authorization;
    const match = header?.match(/^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)$/i);
    if (!header) throw new Unauthorized();
    if (!match?.[1]) throw new Unauthorized('The Authorization header must be "Bearer <access token>".', 'invalid_token');

    if (verifyExternal && external && claimedIssuer(match[1]) === external.issuer) {
      const caller = await verifyExternal(match[1]);
      checkTenantHeaders(request, caller.tenantKey);
      return {
        userId: caller.userId,
        tenantId: caller.tenantId,
        tenantKey: caller.tenantKey,
        roles: caller.roles,
        clientId: external.clientId,
      };
    }
    const payload = await verify(match[1]);
    const claims = accessTokenClaimsSchema.safeParse(payload);
    if (!claims.success || !isUuid(claims.data.sub)) throw new Unauthorized('The access token lacks tenant or roles.', 'invalid_token');
    const { sub, tenant: tenantKey, client_id: clientId = appClientId } = claims.data;

    const account = await db
      .selectFrom('users')
      .innerJoin('tenants', 'tenants.id', 'users.tenant_id')
      .select(['tenants.id as tenant_id'])
      .where('users.id', '=', sub)
      .where('tenants.key', '=', tenantKey)
      .executeTakeFirst();
    if (!account) throw new Unauthorized('The access token names an unknown user or tenant.', 'invalid_token');

    if (clientId !== appClientId) {
      // A deleted credential stops its tokens at once.
      const credential = await findCredential(db, clientId);
      if (!credential || credential.user_id !== sub) throw new Unauthorized('The client credential no longer exists.', 'invalid_token');
      await touch(clientId);
    }

    checkTenantHeaders(request, tenantKey);

    return {
      userId: sub,
      tenantId: account.tenant_id,
      tenantKey,
      roles: claims.data.roles.filter((r): r is Role => (knownRoles as readonly string[]).includes(r)),
      clientId,
    };
  };
}

const implied: Record<Role, readonly Role[]> = {
  viewer: ['viewer', 'editor', 'admin'],
  editor: ['editor', 'admin'],
  admin: ['admin'],
};

/** Roles nest: admin ⊇ editor ⊇ viewer. */
export function hasRole(auth: Pick<RequestAuth, 'roles'>, needed: Role): boolean {
  return auth.roles.some((r) => implied[needed].includes(r));
}

/** The caller's auth, or 401 when the route was reached without the auth preHandler. */
export function requireAuth(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new Unauthorized();
  return request.auth;
}

/** For routes: the caller's auth if they hold `needed` (or a role implying it), else 403. */
export function requireRole(request: FastifyRequest, needed: Role): RequestAuth {
  const auth = requireAuth(request);
  if (!hasRole(auth, needed)) throw new Forbidden(`This needs the ${needed} role.`);
  return auth;
}
