// Another OIDC provider (OIDC_ISSUER): a second real service plays the company's identity provider
// (its own oidc-provider, discovery and JWKS over HTTP); the service under test trusts it.
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdClientCredentialSchema } from '../../contract/client-credentials';
import { expectApiError } from '../testing/api-expect';
import { startTestService, type TestService, type TestUser } from '../testing/start-test-service';

let idp: TestService;
let api: TestService;
let ann: TestUser;
let annToken: string;

beforeAll(async () => {
  idp = await startTestService();
  api = await startTestService({
    oidc: {
      issuer: idp.issuer,
      audience: 'api://default',
      clientId: 'workbench-app',
      scopes: 'openid profile',
      tenantClaim: 'tenant',
      rolesClaim: 'roles',
    },
  });
  ann = await idp.createUser({ tenantKey: 'globex', roles: ['viewer', 'editor'], email: 'ann@globex.example.com' });
  annToken = (await idp.signIn(ann)).access_token;
});
afterAll(async () => {
  await api?.stop();
  await idp?.stop();
});

describe('tokens of another OIDC provider', () => {
  it('are verified by its published keys; the user is made on first sight in the token’s tenant with the token’s roles', async () => {
    const me = await api.api('/v2/users/me', { token: annToken });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { id: string; tenant: { key: string }; workbenchRoles: string[] };
    expect(body.tenant.key).toBe('globex');
    expect(body.workbenchRoles).toEqual(['viewer', 'editor']);
    // The same local user on every request, and writes are owned by them.
    expect(((await (await api.api('/v2/users/me', { token: annToken })).json()) as { id: string }).id).toBe(body.id);
    const created = await api.api('/v2/folders', { method: 'POST', token: annToken, json: { name: 'From elsewhere' } });
    expect(created.status).toBe(201);
    const folders = (await (await api.api('/v2/folders', { token: annToken })).json()) as { folders: { name: string }[] };
    expect(folders.folders.map((f) => f.name)).toContain('From elsewhere');
    // Another tenant of the same service sees none of it.
    const stranger = await api.editorToken('acme');
    const theirs = (await (await api.api('/v2/folders', { token: stranger })).json()) as { folders: { name: string }[] };
    expect(theirs.folders.map((f) => f.name)).not.toContain('From elsewhere');
  });

  it('are refused when signed by another key, for another audience, without a tenant, or with a mismatching tenant header; roles still apply', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const claims = { tenant: 'globex', roles: ['viewer', 'editor'] };
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'not-theirs' })
      .setIssuer(idp.issuer)
      .setAudience('api://default')
      .setSubject(ann.id)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
    await expectApiError(await api.api('/v2/folders', { token: forged }), 401, /not valid/);

    const { key, kid } = await idp.signingKey();
    const sign = (payload: Record<string, unknown>, audience: string) =>
      new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(idp.issuer)
        .setAudience(audience)
        .setSubject('sub-from-idp')
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(key);
    await expectApiError(await api.api('/v2/folders', { token: await sign(claims, 'api://someone-else') }), 401, /not valid/);
    await expectApiError(await api.api('/v2/folders', { token: await sign({ roles: ['viewer'] }, 'api://default') }), 401, /no tenant/);
    const viewer = await sign({ tenant: 'globex', roles: 'viewer' }, 'api://default');
    expect((await api.api('/v2/folders', { token: viewer })).status).toBe(200);
    await expectApiError(await api.api('/v2/folders', { method: 'POST', token: viewer, json: { name: 'nope' } }), 403, /editor/);
    await expectApiError(await api.api('/v2/folders', { token: annToken, headers: { 'X-Tenant-Id': 'acme' } }), 403);
  });

  it('leave the embedded provider working beside it: such a user’s client credentials get tokens from the service itself', async () => {
    const made = await api.api('/client-credentials', { method: 'POST', token: annToken, json: { name: 'script' } });
    expect(made.status).toBe(201);
    const { clientId, clientSecret } = createdClientCredentialSchema.parse(await made.json()).clientCredentials;
    const tokenResponse = await api.credentialToken(clientId, clientSecret);
    expect(tokenResponse.status).toBe(200);
    const { access_token } = (await tokenResponse.json()) as { access_token: string };
    const folders = (await (await api.api('/v2/folders', { token: access_token })).json()) as { folders: { name: string }[] };
    expect(folders.folders.map((f) => f.name)).toContain('From elsewhere');
  });
});
