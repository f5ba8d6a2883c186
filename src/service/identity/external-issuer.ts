// Tokens of another OIDC provider (OIDC_ISSUER): keys found by discovery and fetched by jose's
// remote JWK set, which fetches again when a token names a key it has not seen (rotation) and
// caches between. Tenant and roles come from configurable claims; the user is a local row made
// on first sight (store/users.ts externalUser).
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { roles as knownRoles, type Role } from '../../contract/app-config';
import { Unauthorized } from '../http/errors';
import type { Database } from '../store/schema';
import { externalUser } from '../store/users';

export interface ExternalOidcConfig {
  issuer: string;
  /** The `aud` the API requires of that provider's access tokens. */
  audience: string;
  /** The app's public client at that provider (the app signs in there with PKCE). */
  clientId: string;
  scopes: string;
  /** Claim holding the tenant key; a dotted path reaches into objects (`org.key`). */
  tenantClaim: string;
  /** Claim holding the roles (an array, or a space-separated string); dotted paths as above. */
  rolesClaim: string;
}

export interface ExternalCaller {
  userId: string;
  tenantId: number;
  tenantKey: string;
  roles: Role[];
  subject: string;
}

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.url() });

function claimAt(payload: JWTPayload, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), payload);
}

export function createExternalVerifier(db: Kysely<Database>, config: ExternalOidcConfig) {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const discover = async () => {
    const url = `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    const doc = discoverySchema.parse(await response.json());
    if (doc.issuer !== config.issuer) throw new Error(`${url} names the issuer ${doc.issuer}, not ${config.issuer}`);
    return createRemoteJWKSet(new URL(doc.jwks_uri));
  };

  return async function verifyExternal(token: string): Promise<ExternalCaller> {
    // A failed discovery is tried again on the next request rather than remembered.
    keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await keys, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new Unauthorized('The access token has expired.', 'invalid_token');
      if (error instanceof joseErrors.JOSEError) throw new Unauthorized('The access token is not valid.', 'invalid_token');
      throw new Unauthorized(
        `The identity provider could not be reached to check the token (${error instanceof Error ? error.message : String(error)}).`,
        'invalid_token',
      );
    }
    const tenantKey = claimAt(payload, config.tenantClaim);
    const rawRoles = claimAt(payload, config.rolesClaim);
    const roleList = Array.isArray(rawRoles)
      ? rawRoles.filter((r): r is string => typeof r === 'string')
      : typeof rawRoles === 'string'
        ? rawRoles.split(/\s+/)
        : [];
    if (typeof tenantKey !== 'string' || tenantKey === '')
      throw new Unauthorized(`The access token has no tenant (claim "${config.tenantClaim}").`, 'invalid_token');
    const subject = payload.sub!;
    const email = typeof payload.email === 'string' ? payload.email : undefined;
    const name = typeof payload.name === 'string' ? payload.name : undefined;
    const roles = roleList.filter((r): r is Role => (knownRoles as readonly string[]).includes(r));
    const { userId, tenantId } = await externalUser(db, { issuer: config.issuer, subject, tenantKey, roles, email, name });
    return { userId, tenantId, tenantKey, subject, roles };
  };
}
