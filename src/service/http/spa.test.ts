import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../testing/start-test-service';

let t: TestService;
let distDir: string;
const indexHtml =
  '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/app-abc123.js"></script></body></html>';

beforeAll(async () => {
  distDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-dist-'));
  await fs.mkdir(path.join(distDir, 'assets'));
  await fs.writeFile(path.join(distDir, 'index.html'), indexHtml);
  await fs.writeFile(path.join(distDir, 'assets', 'app-abc123.js'), 'console.log(1)');
  await fs.writeFile(path.join(distDir, 'config.json'), '{"baseUrl":"/"}');
  t = await startTestService({ distDir });
});
afterAll(async () => {
  await t?.stop();
  await fs.rm(distDir, { recursive: true, force: true });
});

const html = { accept: 'text/html,application/xhtml+xml' };

describe('serving the built app', () => {
  it('serves index.html for app routes, revalidated on every load', async () => {
    for (const route of ['/', '/folders/12?page=2', '/models/abc/matches/part-to-part', '/no/such/page']) {
      const response = await fetch(`${t.baseUrl}${route}`, { headers: html });
      expect(response.status, route).toBe(200);
      expect(response.headers.get('cache-control'), route).toBe('no-cache');
      expect(await response.text()).toBe(indexHtml);
    }
  });

  it('caches hashed assets for a year and revalidates config.json', async () => {
    const asset = await fetch(`${t.baseUrl}/assets/app-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const config = await fetch(`${t.baseUrl}/config.json`);
    expect(config.headers.get('cache-control')).toBe('no-cache');
    expect(await config.json()).toEqual({ baseUrl: '/', uploadMaxBytes: 4 * 1024 * 1024 * 1024 });
    expect((await fetch(`${t.baseUrl}/assets/missing.js`)).status).toBe(404);
  });

  it('never answers API, identity or non-GET requests with the app', async () => {
    const api = await fetch(`${t.baseUrl}/v2/unknown`, { headers: html });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: { code: 'not_found' } });
    const signin = await fetch(`${t.baseUrl}/signin/nope`, { headers: html });
    expect(signin.status).toBe(400);
    expect(await signin.text()).toContain('Sign-in expired');
    const discovery = await fetch(`${t.baseUrl}/oauth2/default/.well-known/openid-configuration`);
    expect(await discovery.json()).toMatchObject({
      issuer: `${t.baseUrl}/oauth2/default`,
      authorization_endpoint: `${t.baseUrl}/oauth2/default/v1/authorize`,
      token_endpoint: `${t.baseUrl}/oauth2/default/v1/token`,
      jwks_uri: `${t.baseUrl}/oauth2/default/v1/keys`,
      end_session_endpoint: `${t.baseUrl}/oauth2/default/v1/logout`,
      revocation_endpoint: `${t.baseUrl}/oauth2/default/v1/revoke`,
      code_challenge_methods_supported: ['S256'],
    });
    const post = await fetch(`${t.baseUrl}/folders`, { method: 'POST', headers: html });
    expect(post.status).toBe(404);
  });
});
