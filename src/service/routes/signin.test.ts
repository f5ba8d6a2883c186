import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedSpaClient } from '../../contract/app-config';
import { CookieJar } from '../testing/cookie-jar';
import { authorizeUrl, beginSignIn, followRedirects, newPkce, postToken, submitSignIn } from '../testing/oidc-flows';
import { startTestService, type TestService, type TestUser } from '../testing/start-test-service';

let t: TestService;
let user: TestUser;

beforeAll(async () => {
  t = await startTestService();
  user = await t.createUser({ name: 'Ada <Designer>', tenantKey: 'acme', roles: ['viewer', 'editor'] });
});
afterAll(() => t?.stop());

describe('sign-in with PKCE', () => {
  it('issues an access token for the user, their tenant and roles, and an ID token with the profile', async () => {
    const tokens = await t.signIn(user);
    expect(tokens.token_type).toBe('Bearer');
    const access = decodeJwt(tokens.access_token);
    expect(access).toMatchObject({
      sub: user.id,
      tenant: 'acme',
      roles: ['viewer', 'editor'],
      client_id: embeddedSpaClient.clientId,
      aud: 'api://default',
      iss: t.issuer,
    });
    const id = decodeJwt(tokens.id_token ?? '');
    expect(id).toMatchObject({
      sub: user.id,
      name: user.name,
      email: user.email,
      tenant: 'acme',
      tenant_name: 'acme Inc.',
      roles: ['viewer', 'editor'],
    });
    expect(tokens.refresh_token).toBeTruthy();

    const folders = await t.api('/v2/folders', { token: tokens.access_token });
    expect(folders.status).toBe(200);
  });

  it('answers the app token requests from its own origin only (CORS)', async () => {
    const { jar, pkce, page } = await beginSignIn(t.baseUrl);
    const submitted = await submitSignIn(jar, page, user);
    const redirectUri = `${t.baseUrl}${embeddedSpaClient.redirectPath}`;
    const code = (await followRedirects(jar, t.baseUrl, submitted, redirectUri)).searchParams.get('code') ?? '';
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: embeddedSpaClient.clientId,
      code_verifier: pkce.verifier,
    };
    const foreign = await postToken(t.baseUrl, form, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the sign-in page with the fixed selectors and escapes user text', async () => {
    const { page } = await beginSignIn(t.baseUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Sign in</h1>');
    expect(page.html).toContain('Geometric Search Workbench');
    expect(page.html).toMatch(/<label for="email">Email<\/label>\s*<input id="email" name="email" type="email" autocomplete="username"/);
    expect(page.html).toMatch(/<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/);
    expect(page.html).toContain('<button type="submit">Sign in</button>');

    const { jar, page: again } = await beginSignIn(t.baseUrl);
    const response = await submitSignIn(jar, again, { email: '"><script>alert(1)</script>', password: 'x' });
    const html = await response.text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('re-renders the form with an alert and the email kept on a wrong password', async () => {
    const { jar, page } = await beginSignIn(t.baseUrl);
    const response = await submitSignIn(jar, page, { email: user.email, password: 'wrong-password' });
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain('<p role="alert">Wrong email or password.</p>');
    expect(html).toContain(`value="${user.email}"`);

    // the same interaction still works with the right password
    const retry = { url: page.url, status: 401, html, csrf: html.match(/name="csrf" value="([^"]+)"/)?.[1] };
    const ok = await submitSignIn(jar, retry, user);
    expect(ok.status).toBe(303);
  });

  it('refuses a sign-in POST without the CSRF token or with a foreign one', async () => {
    const { jar, page } = await beginSignIn(t.baseUrl);
    const without = await submitSignIn(jar, page, { ...user, csrf: undefined });
    expect(without.status).toBe(403);
    const forged = await submitSignIn(jar, page, { ...user, csrf: 'x'.repeat(43) });
    expect(forged.status).toBe(403);

    // a token from another browser (another cookie) does not work either
    const other = await beginSignIn(t.baseUrl);
    const crossed = await submitSignIn(jar, page, { ...user, csrf: other.page.csrf });
    expect(crossed.status).toBe(403);
  });

  it('shows the form without the interaction cookie, but signs in only with it', async () => {
    const { page } = await beginSignIn(t.baseUrl);
    const stranger = new CookieJar();
    const shown = await stranger.fetch(page.url, { headers: { accept: 'text/html' } });
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('<h1>Sign in</h1>');
    const csrf = html.match(/name="csrf" value="([^"]+)"/)?.[1];
    const submitted = await submitSignIn(stranger, { ...page, html, csrf }, user);
    expect(submitted.status).toBe(400);
    expect(await submitted.text()).toContain('Sign-in expired');
    expect((await stranger.fetch(`${t.baseUrl}/signin/unknown-uid`)).status).toBe(400);
  });

  it('refuses authorization requests without PKCE or with the plain method', async () => {
    const redirectUri = `${t.baseUrl}${embeddedSpaClient.redirectPath}`;
    for (const overrides of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
    ]) {
      const response = await new CookieJar().fetch(authorizeUrl(t.baseUrl, newPkce(), overrides));
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location') ?? '', t.baseUrl);
      expect(location.toString().startsWith(redirectUri)).toBe(true);
      expect(location.searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('rotates refresh tokens and refuses a used one', async () => {
    const tokens = await t.signIn(user);
    const first = await postToken(t.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
      client_id: embeddedSpaClient.clientId,
    });
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as { refresh_token: string; access_token: string };
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(decodeJwt(rotated.access_token)).toMatchObject({ sub: user.id, tenant: 'acme' });

    const reused = await postToken(t.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
      client_id: embeddedSpaClient.clientId,
    });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('signs out through end_session without a click and back to the app', async () => {
    const tokens = await t.signIn(user);
    const { jar } = tokens;
    const logoutUrl = new URL(`${t.issuer}/v1/logout`);
    logoutUrl.searchParams.set('id_token_hint', tokens.id_token ?? '');
    logoutUrl.searchParams.set('post_logout_redirect_uri', `${t.baseUrl}/`);
    const page = await jar.fetch(logoutUrl.toString(), { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    // the page submits itself (a nonce'd script); a test plays the browser and posts the form
    const nonce = html.match(/<script nonce="([^"]+)">/)?.[1];
    expect(nonce).toBeTruthy();
    expect(page.headers.get('content-security-policy')).toContain(`'nonce-${nonce}'`);
    const action = html.match(/<form id="op.logoutForm" method="post" action="([^"]+)"/)?.[1] ?? '';
    const xsrf = html.match(/name="xsrf" value="([^"]+)"/)?.[1] ?? '';
    expect(html).toContain('name="logout" value="yes"');
    const confirmed = await jar.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }),
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${t.baseUrl}/`);

    // the provider session is gone: a new authorization asks for the password again
    const again = await jar.fetch(authorizeUrl(t.baseUrl, newPkce()));
    const landing = await followRedirects(jar, t.baseUrl, again, `${t.baseUrl}/signin/`);
    expect(landing.pathname.startsWith('/signin/')).toBe(true);
  });
});
