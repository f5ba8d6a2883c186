import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentialListResponseSchema, createdClientCredentialSchema } from '../../contract/client-credentials';
import { apiErrorBodySchema } from '../../contract/errors';
import { startTestService, type TestService, type TestUser } from '../testing/start-test-service';

let t: TestService;
let owner: TestUser;
let ownerToken: string;

beforeAll(async () => {
  t = await startTestService();
  owner = await t.createUser({ tenantKey: 'acme', roles: ['viewer', 'editor'] });
  ownerToken = (await t.signIn(owner)).access_token;
});
afterAll(() => t?.stop());

async function createCredential(token: string, name?: string, prefix = '/client-credentials') {
  const response = await t.api(prefix, { method: 'POST', token, json: name === undefined ? {} : { name } });
  expect(response.status).toBe(201);
  return createdClientCredentialSchema.parse(await response.json()).clientCredentials;
}

describe('client credentials', () => {
  it('creates several named credentials, lists them without secrets, deletes one', async () => {
    const a = await createCredential(ownerToken, 'CI pipeline');
    const b = await createCredential(ownerToken, undefined, '/v2/client-credentials');
    expect(a.name).toBe('CI pipeline');
    expect(b.name).toMatch(/^Credential \d+$/);
    expect(a.clientId).toMatch(/^gswc_[0-9a-f]{24}$/);
    expect(a.clientSecret.length).toBeGreaterThanOrEqual(43); // 256 bits, base64url
    expect(a.clientId).not.toBe(b.clientId);

    const list = await t.api('/v2/client-credentials', { token: ownerToken });
    expect(list.status).toBe(200);
    const raw = await list.text();
    expect(raw).not.toContain(a.clientSecret);
    const { clientCredentials } = clientCredentialListResponseSchema.parse(JSON.parse(raw));
    expect(clientCredentials.map((c) => c.clientId)).toEqual(expect.arrayContaining([a.clientId, b.clientId]));
    expect(clientCredentials.find((c) => c.clientId === a.clientId)).toMatchObject({ name: 'CI pipeline', lastUsedAt: null });

    const removed = await t.api(`/client-credentials/${b.clientId}`, { method: 'DELETE', token: ownerToken });
    expect(removed.status).toBe(204);
    const again = await t.api(`/client-credentials/${b.clientId}`, { method: 'DELETE', token: ownerToken });
    expect(again.status).toBe(404);
    expect(apiErrorBodySchema.parse(await again.json()).error.code).toBe('not_found');
  });

  it('refuses a duplicate name (409) and a bad name (400 naming the field)', async () => {
    await createCredential(ownerToken, 'dup');
    const dup = await t.api('/client-credentials', { method: 'POST', token: ownerToken, json: { name: 'dup' } });
    expect(dup.status).toBe(409);
    const bad = await t.api('/client-credentials', { method: 'POST', token: ownerToken, json: { name: 'x'.repeat(101) } });
    expect(bad.status).toBe(400);
    const body = apiErrorBodySchema.parse(await bad.json());
    expect(body.error).toMatchObject({ code: 'invalid_input' });
    expect(body.error.message).toMatch(/^name: /);
  });

  it('answers the token request exactly as the published API shows', async () => {
    const credential = await createCredential(ownerToken, 'token shape');
    const response = await t.credentialToken(credential.clientId, credential.clientSecret);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['access_token', 'token_type', 'expires_in', 'scope']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 36000, scope: 'roles tenantApp' });

    const claims = decodeJwt(String(body.access_token));
    expect(claims).toMatchObject({
      sub: owner.id,
      client_id: credential.clientId,
      tenant: 'acme',
      roles: ['viewer', 'editor'],
      aud: 'api://default',
      iss: t.issuer,
    });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(36000);
  });

  it('acts as its owner, records use, and stops working once deleted', async () => {
    const credential = await createCredential(ownerToken, 'acts as owner');
    const token = String(
      ((await (await t.credentialToken(credential.clientId, credential.clientSecret)).json()) as { access_token: string }).access_token,
    );

    const list = await t.api('/v2/client-credentials', { token });
    expect(list.status).toBe(200);
    const { clientCredentials } = clientCredentialListResponseSchema.parse(await list.json());
    const own = clientCredentials.find((c) => c.clientId === credential.clientId);
    expect(own?.lastUsedAt).not.toBeNull();
    const folders = await t.api('/v2/folders', { token, headers: { 'x-tenant-id': 'acme' } });
    expect(folders.status).toBe(200);

    const removed = await t.api(`/client-credentials/${credential.clientId}`, { method: 'DELETE', token: ownerToken });
    expect(removed.status).toBe(204);
    const after = await t.api('/v2/folders', { token });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(apiErrorBodySchema.parse(await after.json()).error.code).toBe('unauthorized');

    const newToken = await t.credentialToken(credential.clientId, credential.clientSecret);
    expect(newToken.status).toBe(401);
    expect(await newToken.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a wrong secret with 401 invalid_client', async () => {
    const credential = await createCredential(ownerToken, 'wrong secret');
    const last = credential.clientSecret.slice(-1);
    const wrong = `${credential.clientSecret.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
    const response = await t.credentialToken(credential.clientId, wrong);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    const unknown = await t.credentialToken('gswc_000000000000000000000000', credential.clientSecret);
    expect(unknown.status).toBe(401);
  });

  it("never shows or deletes another user's or tenant's credentials", async () => {
    const mine = await createCredential(ownerToken, 'private');
    const colleague = await t.createUser({ tenantKey: 'acme' });
    const stranger = await t.createUser({ tenantKey: 'globex' });
    for (const other of [colleague, stranger]) {
      const token = (await t.signIn(other)).access_token;
      const list = clientCredentialListResponseSchema.parse(await (await t.api('/client-credentials', { token })).json());
      expect(list.clientCredentials.map((c) => c.clientId)).not.toContain(mine.clientId);
      const del = await t.api(`/client-credentials/${mine.clientId}`, { method: 'DELETE', token });
      expect(del.status).toBe(404);
    }
    const strangerToken = (await t.signIn(stranger)).access_token;
    const mismatch = await t.api('/client-credentials', { token: strangerToken, headers: { 'x-tenant-id': 'acme' } });
    expect(mismatch.status).toBe(403);
    expect(apiErrorBodySchema.parse(await mismatch.json()).error.code).toBe('forbidden');

    const still = clientCredentialListResponseSchema.parse(await (await t.api('/client-credentials', { token: ownerToken })).json());
    expect(still.clientCredentials.map((c) => c.clientId)).toContain(mine.clientId);
  });
});
