import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdClientCredentialSchema } from '../../contract/client-credentials';
import { expectApiError } from '../testing/api-expect';
import { beginSignIn, submitSignIn } from '../testing/oidc-flows';
import { startTestService, type TestService, type TestUser } from '../testing/start-test-service';

// Small limits so the test is quick; the defaults are in config.ts and the README.
const ACCOUNT = 3;
const ADDRESS = 8;
const CLIENT = 3;
const API = 6;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({
    throttle: {
      signInFailuresPerAccount: ACCOUNT,
      signInFailuresPerAddress: ADDRESS,
      tokenFailuresPerClient: CLIENT,
      apiRequestsPerMinute: API,
    },
  });
});
afterAll(() => t?.stop());

async function attempt(user: Pick<TestUser, 'email' | 'password'>) {
  const { jar, page } = await beginSignIn(t.baseUrl);
  const response = await submitSignIn(jar, page, user);
  return { status: response.status, retryAfter: response.headers.get('retry-after'), html: await response.text() };
}

describe('sign-in throttling', () => {
  it('refuses an account after a few wrong passwords, even the right one, with 429, Retry-After and a plain message', async () => {
    const user = await t.createUser();
    for (let i = 0; i < ACCOUNT; i++) expect((await attempt({ email: user.email, password: `wrong-${i}` })).status).toBe(401);
    const blocked = await attempt(user);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect(Number(blocked.retryAfter)).toBeLessThanOrEqual(60);
    expect(blocked.html).toMatch(/<p role="alert">Too many failed sign-ins\. Wait \d+ seconds, then try again\.<\/p>/);
    // The address of the email is counted case-insensitively: a capital letter is the same account.
    expect((await attempt({ email: user.email.toUpperCase(), password: user.password })).status).toBe(429);
    // Another account from the same address is not blocked by this one.
    const other = await t.createUser();
    expect((await attempt(other)).status).toBe(303);
  });

  it('starts the count again after a right password', async () => {
    const user = await t.createUser();
    for (let i = 0; i < ACCOUNT - 1; i++) expect((await attempt({ email: user.email, password: 'nope-nope' })).status).toBe(401);
    expect((await attempt(user)).status).toBe(303);
    for (let i = 0; i < ACCOUNT - 1; i++) expect((await attempt({ email: user.email, password: 'nope-nope' })).status).toBe(401);
    expect((await attempt(user)).status).toBe(303);
  });

  it('refuses an address that tries many accounts', async () => {
    // Earlier tests spent some of this address's failures; fill the rest with fresh accounts.
    const seen: number[] = [];
    for (let i = 0; i < ADDRESS; i++) seen.push((await attempt({ email: `nobody-${i}@example.com`, password: 'guess-guess' })).status);
    expect(seen).toContain(429);
    const user = await t.createUser();
    expect((await attempt(user)).status).toBe(429);
  });
});

describe('token endpoint throttling', () => {
  it('refuses a client id after a few wrong secrets, even the right one; other clients go on', async () => {
    const owner = await t.createUser({ tenantKey: 'tokens' });
    const token = await t.tokenFor(owner);
    const create = async () => {
      const response = await t.api('/client-credentials', { method: 'POST', token, json: {} });
      expect(response.status).toBe(201);
      return createdClientCredentialSchema.parse(await response.json()).clientCredentials;
    };
    const [target, bystander] = [await create(), await create()];
    for (let i = 0; i < CLIENT; i++) expect((await t.credentialToken(target.clientId, `guess-${i}`)).status).toBe(401);
    const blocked = await t.credentialToken(target.clientId, target.clientSecret);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.json()).toMatchObject({
      error: 'slow_down',
      error_description: expect.stringMatching(/try again in \d+ seconds/),
    });
    expect((await t.credentialToken(bystander.clientId, bystander.clientSecret)).status).toBe(200);
  });
});

describe('API requests per token', () => {
  it('answers 429 in the contract shape with Retry-After past the limit, per token', async () => {
    const token = await t.editorToken('api-limit');
    const statuses: number[] = [];
    for (let i = 0; i < API; i++) statuses.push((await t.api('/v2/folders', { token })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await t.api('/v2/folders', { token });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectApiError(refused, 429, /Too many requests with this token/);
    expect((await t.api('/v2/folders', { token: await t.editorToken('api-limit') })).status).toBe(200);
  });
});
