import { createHash, generateKeyPairSync } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '../../contract/errors';
import { folderListResponseSchema } from '../../contract/folders';
import { createFolder } from '../store/folders';
import { hasRole } from './auth';
import { startTestService, type TestService, type TestUser } from '../testing/start-test-service';

let t: TestService;
let user: TestUser;
let token: string;

beforeAll(async () => {
  t = await startTestService();
  user = await t.createUser({ tenantKey: 'acme', roles: ['viewer'] });
  token = (await t.signIn(user)).access_token;
});
afterAll(() => t?.stop());

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function claims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: t.issuer,
    aud: 'api://default',
    sub: user.id,
    tenant: 'acme',
    roles: ['viewer'],
    client_id: 'workbench-app',
    iat: now,
    exp: now + 600,
    ...overrides,
  };
}

async function signWithRealKey(payload: Record<string, unknown>) {
  const { key, kid } = await t.signingKey();
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(key);
}

async function expect401(bearer: string | undefined) {
  const response = await t.api('/v2/folders', bearer === undefined ? {} : { headers: { authorization: bearer } });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  const body = apiErrorBodySchema.parse(await response.json());
  expect(body.error.code).toBe('unauthorized');
  return body;
}

describe('API authentication', () => {
  it('accepts a real token and a token forged with the real key (the key is what is trusted)', async () => {
    expect((await t.api('/v2/folders', { token })).status).toBe(200);
    expect((await t.api('/v2/folders', { token: await signWithRealKey(claims()) })).status).toBe(200);
  });

  it('refuses missing, malformed and expired tokens', async () => {
    await expect401(undefined);
    await expect401('Bearer');
    await expect401('Basic dXNlcjpwYXNz');
    await expect401('Bearer not.a.jwt');
    const signatureAt = token.lastIndexOf('.') + 10;
    const flipped = token[signatureAt] === 'A' ? 'B' : 'A';
    await expect401(`Bearer ${token.slice(0, signatureAt)}${flipped}${token.slice(signatureAt + 1)}`); // signature broken
    const now = Math.floor(Date.now() / 1000);
    const expired = await expect401(`Bearer ${await signWithRealKey(claims({ iat: now - 7200, exp: now - 3600 }))}`);
    expect(expired.error.message).toMatch(/expired/);
  });

  it('refuses tokens signed by another key, alg none and HS256', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { kid } = await t.signingKey();
    const otherKey = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(privateKey);
    await expect401(`Bearer ${otherKey}`);

    const none = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims())}.`;
    await expect401(`Bearer ${none}`);

    // HS256 keyed with the public key's bytes: the classic algorithm-confusion forgery
    const publicJwk = JSON.stringify((await (await fetch(`${t.issuer}/v1/keys`)).json()) as unknown);
    const secret = createHash('sha256').update(publicJwk).digest();
    const hs = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid }).sign(secret);
    await expect401(`Bearer ${hs}`);
  });

  it('refuses tokens for another audience or issuer, ID tokens, unknown tenants and missing claims', async () => {
    await expect401(`Bearer ${await signWithRealKey(claims({ aud: 'workbench-app' }))}`);
    await expect401(`Bearer ${await signWithRealKey(claims({ iss: 'https://elsewhere.example/oauth2/default' }))}`);
    await expect401(`Bearer ${await signWithRealKey(claims({ tenant: 'no-such-tenant' }))}`);
    await expect401(`Bearer ${await signWithRealKey(claims({ roles: undefined }))}`);
    const idToken = (await t.signIn(user)).id_token ?? '';
    expect(decodeJwt(idToken).sub).toBe(user.id);
    await expect401(`Bearer ${idToken}`);
    // a client id that is no credential
    await expect401(`Bearer ${await signWithRealKey(claims({ client_id: 'gswc_ffffffffffffffffffffffff' }))}`);
  });

  it('checks roles: nested (admin ⊇ editor ⊇ viewer), 403 without the needed one', async () => {
    expect(hasRole({ roles: ['admin'] }, 'viewer')).toBe(true);
    expect(hasRole({ roles: ['editor'] }, 'viewer')).toBe(true);
    expect(hasRole({ roles: ['viewer'] }, 'editor')).toBe(false);
    expect(hasRole({ roles: ['editor'] }, 'admin')).toBe(false);
    const noRoles = await signWithRealKey(claims({ roles: [] }));
    const response = await t.api('/v2/folders', { token: noRoles });
    expect(response.status).toBe(403);
    expect(apiErrorBodySchema.parse(await response.json()).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/viewer/),
    });
  });

  it('refuses a tenant header that does not match the token (403)', async () => {
    const response = await t.api('/v2/folders', { token, headers: { 'x-tenant-id': 'globex' } });
    expect(response.status).toBe(403);
    expect(apiErrorBodySchema.parse(await response.json()).error.code).toBe('forbidden');
    expect((await t.api('/v2/folders', { token, headers: { 'x-tenant-id': 'acme' } })).status).toBe(200);
  });
});

describe('API errors and folders', () => {
  it('lists only the caller tenant folders with paths and paging', async () => {
    const acme = user.tenantId;
    const other = await t.createUser({ tenantKey: 'globex' });
    const root = await createFolder(t.db, { tenantId: acme, name: 'Brackets' });
    await createFolder(t.db, { tenantId: acme, name: 'Steel', parentFolderId: root.id });
    await createFolder(t.db, { tenantId: other.tenantId, name: 'Secret' });

    const response = await t.api('/v2/folders?perPage=1&page=2', { token });
    expect(response.status).toBe(200);
    const body = folderListResponseSchema.parse(await response.json());
    expect(body.pageData).toEqual({ total: 2, perPage: 1, currentPage: 2, lastPage: 2, startIndex: 1, endIndex: 2 });
    expect(body.folders).toEqual([
      expect.objectContaining({ name: 'Steel', parentFolderId: root.id, path: 'Brackets/Steel', modelCount: 0 }),
    ]);
    const all = folderListResponseSchema.parse(await (await t.api('/v2/folders', { token })).json());
    expect(all.folders.map((f) => f.name)).toEqual(['Brackets', 'Steel']);
  });

  it('writes the contract error shape for bad input, unknown routes, media type and size', async () => {
    const badPage = await t.api('/v2/folders?perPage=1000', { token });
    expect(badPage.status).toBe(400);
    const bad = apiErrorBodySchema.parse(await badPage.json());
    expect(bad.error).toMatchObject({ code: 'invalid_input' });
    expect(bad.error.message).toMatch(/^perPage: /);

    const unknown = await t.api('/v2/nothing-here', { token });
    expect(unknown.status).toBe(404);
    expect(apiErrorBodySchema.parse(await unknown.json()).error.code).toBe('not_found');

    const text = await fetch(`${t.baseUrl}/client-credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expect(text.status).toBe(415);
    expect(apiErrorBodySchema.parse(await text.json()).error.code).toBe('unsupported_media_type');

    const huge = await t.api('/client-credentials', { method: 'POST', token, json: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(apiErrorBodySchema.parse(await huge.json()).error.code).toBe('too_large');

    const broken = await fetch(`${t.baseUrl}/client-credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(broken.status).toBe(400);
    expect(apiErrorBodySchema.parse(await broken.json()).error.code).toBe('invalid_input');
  });

  it('sends security headers and keeps the SPA fallback away from API paths', async () => {
    const response = await t.api('/v2/folders', { token });
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await fetch(`${t.baseUrl}/v2/whatever`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(404);
    expect(html.headers.get('content-type')).toMatch(/application\/json/);
  });
});
