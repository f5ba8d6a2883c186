import type { JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { BruteForceGuard } from './throttle';
import Provider, {
  errors,
  type AccessToken,
  type AuthorizationCode,
  type Client,
  type ClientCredentials,
  type ErrorOut,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import { embeddedSpaClient } from '../../contract/app-config';
import { findCredential, isCredentialClientId, verifyClientSecret } from '../store/client-credentials';
import type { Database } from '../store/schema';
import { findAccount, type Account } from '../store/users';
import { createAdapterClass } from './adapter';
import { escapeHtml, newNonce, page, pageCsp } from './html';

/** Where the provider is mounted; the issuer is `${publicUrl}${identityMountPath}`. */
export const identityMountPath = '/oauth2/default';
/** Audience of every access token the API accepts. */
export const apiAudience = 'api://default';
export const appClientId = embeddedSpaClient.clientId;
export const signInPath = (uid: string) => `/signin/${uid}`;

const accessTokenTtl = 60 * 60;
const credentialTokenTtl = 36_000;

export interface IdentityOptions {
  db: Kysely<Database>;
  publicUrl: string;
  signingKeys: JWK[];
  cookieKeys: string[];
  /** Wrong client secrets per client id and per address at the token endpoint. */
  tokenGuard: BruteForceGuard;
}

export function issuerFor(publicUrl: string): string {
  return `${publicUrl}${identityMountPath}`;
}

/** Claims an account contributes to ID tokens (shared decisions, OIDC). */
function accountClaims({ user, tenant }: Account) {
  return {
    sub: user.id,
    name: user.name,
    email: user.email,
    tenant: tenant.key,
    tenant_name: tenant.name,
    roles: user.roles,
  };
}

export function createProvider({ db, publicUrl, signingKeys, cookieKeys, tokenGuard }: IdentityOptions): Provider {
  const Adapter = createAdapterClass(db);

  /** The user a token acts for: its account, or for a client credential the credential's owner. */
  async function tokenAccount(token: AccessToken | ClientCredentials): Promise<Account | undefined> {
    if (token.kind === 'ClientCredentials') {
      const credential = token.clientId ? await findCredential(db, token.clientId) : undefined;
      return credential ? findAccount(db, credential.user_id) : undefined;
    }
    return 'accountId' in token && token.accountId ? findAccount(db, token.accountId) : undefined;
  }

  const provider = new Provider(issuerFor(publicUrl), {
    adapter: Adapter,
    clients: [
      {
        client_id: appClientId,
        client_name: 'Geometric Search Workbench',
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [`${publicUrl}${embeddedSpaClient.redirectPath}`, `${publicUrl}${embeddedSpaClient.docsRedirectPath}`],
        post_logout_redirect_uris: [`${publicUrl}${embeddedSpaClient.postLogoutPath}`],
        scope: embeddedSpaClient.scopes,
      },
    ],
    jwks: { keys: signingKeys },
    cookies: {
      keys: cookieKeys,
      long: { signed: true, sameSite: 'lax' },
      short: { signed: true, sameSite: 'lax' },
    },
    routes: {
      authorization: '/v1/authorize',
      token: '/v1/token',
      jwks: '/v1/keys',
      userinfo: '/v1/userinfo',
      end_session: '/v1/logout',
      revocation: '/v1/revoke',
      introspection: '/v1/introspect',
    },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'tenant', 'roles', 'tenantApp'],
    claims: {
      openid: ['sub'],
      profile: ['name', 'email'],
      email: ['email'],
      tenant: ['tenant', 'tenant_name'],
      roles: ['roles'],
    },
    // Code-flow ID tokens carry the scope claims too; the app reads name/tenant/roles from them.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiAudience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
          if (indicator !== apiAudience) throw new errors.InvalidTarget();
          return {
            scope: 'tenant roles tenantApp',
            audience: apiAudience,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    ttl: {
      AccessToken: accessTokenTtl,
      ClientCredentials: credentialTokenTtl,
      AuthorizationCode: 60,
      IdToken: accessTokenTtl,
      Interaction: 60 * 60,
      Session: 14 * 24 * 60 * 60,
      Grant: 14 * 24 * 60 * 60,
      RefreshToken: 14 * 24 * 60 * 60,
    },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx: KoaContextWithOIDC, client: Client, code: Pick<AuthorizationCode, 'scopes'>) =>
      client.clientId === appClientId && client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    findAccount: async (_ctx: KoaContextWithOIDC, sub: string) => {
      const account = await findAccount(db, sub);
      if (!account) return undefined;
      return { accountId: account.user.id, claims: () => accountClaims(account) };
    },
    extraTokenClaims: async (_ctx: KoaContextWithOIDC, token: AccessToken | ClientCredentials) => {
      const account = await tokenAccount(token);
      if (!account) return undefined;
      // `sub` here is read by the JWT customizer below; oidc-provider itself overwrites it.
      return { sub: account.user.id, tenant: account.tenant.key, roles: account.user.roles };
    },
    formats: {
      customizers: {
        // A credential token acts as its owner (as the published API says): without
        // this, oidc-provider would put the client id in `sub`.
        jwt: (_ctx: KoaContextWithOIDC, token: AccessToken | ClientCredentials, jwt: { payload: Record<string, unknown> }) => {
          const owner = token.extra?.sub;
          if (token.kind === 'ClientCredentials' && typeof owner === 'string') jwt.payload.sub = owner;
        },
      },
    },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => signInPath(interaction.uid) },
    renderError,
    // The app calls the token endpoint from the browser: its own origin only, nobody else's.
    clientBasedCORS: (_ctx: KoaContextWithOIDC, origin: string, client: Client) =>
      client.clientId === appClientId && origin === new URL(publicUrl).origin,
  });

  // Credential clients hold only a hash of their secret (see store/client-credentials.ts).
  const compare = provider.Client.prototype.compareClientSecret;
  provider.Client.prototype.compareClientSecret = async function (this: Client & { clientSecret: string }, actual: string) {
    if (isCredentialClientId(this.clientId)) return verifyClientSecret(actual, this.clientSecret);
    return compare.call(this, actual);
  };

  provider.proxy = publicUrl.startsWith('https:');
  provider.use(securityHeaders);
  provider.use(throttledTokenRequests(tokenGuard));
  provider.use(firstPartyOfflineAccess);
  provider.use(credentialTokenResponseShape);
  return provider;
}

async function securityHeaders(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  // Set before the action runs: oidc-provider adds hashes of its own inline scripts to script-src.
  ctx.set('content-security-policy', "default-src 'none'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set('referrer-policy', 'no-referrer');
  // As on every other answer of this origin: browsers check the opener policy on each redirect,
  // and one hop without it would cut a sign-in popup (the /docs page's) off from its opener.
  ctx.set('cross-origin-opener-policy', 'same-origin');
  await next();
}

/**
 * Client-credential token requests are checked against the guard before the secret is, and
 * refused ones counted: guessing a secret costs a minute per few tries. The app's own code
 * exchange (a public PKCE client, no secret) is not a guessing target and passes.
 */
function throttledTokenRequests(guard: BruteForceGuard) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    if (ctx.method !== 'POST' || ctx.path !== '/v1/token') return next();
    const clientId = basicClientId(ctx.get('authorization'));
    if (!clientId) return next();
    const keys = { subject: `client:${clientId}`, address: (ctx as KoaContextWithOIDC & { ip: string }).ip };
    const wait = await guard.blockedFor(keys);
    if (wait > 0) {
      ctx.status = 429;
      ctx.set('retry-after', String(wait));
      ctx.set('cache-control', 'no-store');
      ctx.body = { error: 'slow_down', error_description: `Too many failed token requests for this client; try again in ${wait} seconds.` };
      return;
    }
    await next();
    if (ctx.status === 401) await guard.failed(keys);
    else if (ctx.status === 200) await guard.succeeded(keys);
  };
}

/** The client id of HTTP Basic client authentication (form-encoded, RFC 6749 2.3.1). */
function basicClientId(header: string): string | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const id = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
  try {
    return decodeURIComponent(id.replace(/\+/g, ' ')).slice(0, 200) || undefined;
  } catch {
    return id.slice(0, 200) || undefined;
  }
}

/**
 * OIDC Core drops `offline_access` unless the request also says `prompt=consent`. The app is
 * first-party and its consent is implied (the sign-in page grants it without a screen), so its
 * authorization requests asking for offline access get that prompt added here: the app needs no
 * provider-specific parameter to receive refresh tokens.
 */
async function firstPartyOfflineAccess(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  if (ctx.method === 'GET' && ctx.path === '/v1/authorize') {
    const query = ctx.query;
    const scope = typeof query.scope === 'string' ? query.scope.split(' ') : [];
    if (query.client_id === appClientId && query.prompt === undefined && scope.includes('offline_access')) {
      ctx.query = { ...query, prompt: 'consent' };
      // oidc-provider finds its mount path by locating ctx.url inside originalUrl (set by middie).
      (ctx.req as typeof ctx.req & { originalUrl?: string }).originalUrl = `${identityMountPath}${ctx.url}`;
    }
  }
  await next();
}

/**
 * The token answer of the client credentials grant, exactly as the published API's sample:
 * `{access_token, token_type, expires_in, scope}` in that order, scope names sorted ("roles tenantApp").
 */
async function credentialTokenResponseShape(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  await next();
  const body = ctx.body as Record<string, unknown> | undefined;
  if (ctx.oidc?.route !== 'token' || ctx.status !== 200 || !body || typeof body !== 'object') return;
  if (ctx.oidc.params?.grant_type !== 'client_credentials') return;
  const { access_token, token_type, expires_in, scope, ...rest } = body;
  ctx.body = {
    access_token,
    token_type,
    expires_in,
    scope: typeof scope === 'string' ? scope.split(' ').sort().join(' ') : scope,
    ...rest,
  };
}

/** Sign-out confirmation that submits itself: the app's sign-out needs no second click. */
async function logoutSource(ctx: KoaContextWithOIDC, form: string) {
  const nonce = newNonce();
  ctx.set('content-security-policy', pageCsp(nonce));
  ctx.type = 'html';
  ctx.body = page(
    'Signing out',
    `<h1>Signing out…</h1>
${form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>')}
<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>
<script nonce="${nonce}">document.getElementById('op.logoutForm').submit();</script>`,
  );
}

async function postLogoutSuccessSource(ctx: KoaContextWithOIDC) {
  ctx.set('content-security-policy', pageCsp());
  ctx.type = 'html';
  ctx.body = page('Signed out', '<h1>Signed out</h1>\n<p>You have been signed out. <a href="/">Back to the workbench</a></p>');
}

async function renderError(ctx: KoaContextWithOIDC, out: ErrorOut) {
  ctx.set('content-security-policy', pageCsp());
  ctx.type = 'html';
  const details = typeof out.error_description === 'string' ? out.error_description : String(out.error ?? 'unknown error');
  ctx.body = page(
    'Sign-in problem',
    `<h1>Something went wrong</h1>\n<p>${escapeHtml(details)}</p>\n<p><a href="/">Back to the workbench</a></p>`,
  );
}
