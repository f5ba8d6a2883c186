import { createHash, randomBytes } from 'node:crypto';
import { embeddedSpaClient } from '../../contract/app-config';
import { CookieJar } from './cookie-jar';

export interface Tokens {
  access_token: string;
  id_token?: string;
  refresh_token?: string;
  expires_in: number;
  scope?: string;
  token_type: string;
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The app's authorization request (shared decisions, OIDC), with parameters overridable for negative tests. */
export function authorizeUrl(baseUrl: string, pkce: Pkce, overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    client_id: embeddedSpaClient.clientId,
    response_type: 'code',
    scope: embeddedSpaClient.scopes,
    redirect_uri: `${baseUrl}${embeddedSpaClient.redirectPath}`,
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  const url = new URL(`${baseUrl}/oauth2/default/v1/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

export interface SignInPage {
  url: string;
  status: number;
  html: string;
  csrf: string | undefined;
}

export async function readSignInPage(jar: CookieJar, url: string): Promise<SignInPage> {
  const response = await jar.fetch(url, { headers: { accept: 'text/html' } });
  const html = await response.text();
  return { url, status: response.status, html, csrf: html.match(/name="csrf" value="([^"]+)"/)?.[1] };
}

/** Follows redirects by hand (so the jar sees every cookie) until one leaves for `stopAt`. */
export async function followRedirects(jar: CookieJar, baseUrl: string, start: Response, stopAt: string): Promise<URL> {
  let response = start;
  for (let hop = 0; hop < 10; hop += 1) {
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`expected a redirect towards ${stopAt}, got ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
    const next = new URL(location, baseUrl);
    if (next.toString().startsWith(stopAt)) return next;
    response = await jar.fetch(next.toString(), { headers: { accept: 'text/html' } });
  }
  throw new Error('too many redirects');
}

/** Starts an authorization request and returns the sign-in page it lands on. */
export async function beginSignIn(
  baseUrl: string,
  jar = new CookieJar(),
  pkce = newPkce(),
  overrides: Record<string, string | undefined> = {},
) {
  const first = await jar.fetch(authorizeUrl(baseUrl, pkce, overrides), { headers: { accept: 'text/html' } });
  const signInUrl = await followRedirects(jar, baseUrl, first, `${baseUrl}/signin/`);
  return { jar, pkce, page: await readSignInPage(jar, signInUrl.toString()) };
}

export async function submitSignIn(
  jar: CookieJar,
  page: SignInPage,
  fields: { email: string; password: string; csrf?: string | undefined },
) {
  const body = new URLSearchParams({ email: fields.email, password: fields.password });
  const csrf = 'csrf' in fields ? fields.csrf : page.csrf;
  if (csrf !== undefined) body.set('csrf', csrf);
  return jar.fetch(page.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body,
  });
}

export async function postToken(baseUrl: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/oauth2/default/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams(form),
  });
}

/**
 * The app's whole sign-in through the real endpoints: authorize → /signin/:uid (form, CSRF) →
 * automatic consent → callback with a code → token exchange with the PKCE verifier.
 */
export async function signInWithPkce(baseUrl: string, credentials: { email: string; password: string }) {
  const { jar, pkce, page } = await beginSignIn(baseUrl);
  if (page.status !== 200 || !page.csrf) throw new Error(`no sign-in form at ${page.url} (${page.status})`);
  const submitted = await submitSignIn(jar, page, credentials);
  const redirectUri = `${baseUrl}${embeddedSpaClient.redirectPath}`;
  const callback = await followRedirects(jar, baseUrl, submitted, redirectUri);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in callback ${callback.toString()}`);
  const response = await postToken(
    baseUrl,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: embeddedSpaClient.clientId,
      code_verifier: pkce.verifier,
    },
    { origin: new URL(baseUrl).origin },
  ); // as the browser sends it: the app exchanges the code itself
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return { tokens: (await response.json()) as Tokens, jar };
}

/** The client credentials token request exactly as the published API writes it. */
export async function requestCredentialToken(baseUrl: string, clientId: string, clientSecret: string, scope = 'tenantApp roles') {
  return fetch(`${baseUrl}/oauth2/default/v1/token`, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'cache-control': 'no-cache',
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
}
