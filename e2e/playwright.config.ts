import { defineConfig } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every run gets throwaway data directories; workers inherit them through the environment.
process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'workbench-e2e-'));
process.env.E2E_PUBLISHED_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'workbench-e2e-published-'));
const port = Number(process.env.E2E_PORT ?? 8391);
const origin = `http://localhost:${port}`;
// The same service answering only the published API's fields (PUBLISHED_FIELDS_ONLY), as a
// deployment of the hosted service would: the main pages run against it too.
const publishedPort = port + 1;
const publishedOrigin = `http://localhost:${publishedPort}`;
const publishedDocument = 'src/service/testing/published-api/physna-openapi-2.0.1.facts.json';
const serverEnv = (p: number, o: string, dataDir: string | undefined) => ({
  PORT: String(p),
  HOST: '127.0.0.1',
  PUBLIC_URL: o,
  DATA_DIR: dataDir ?? '',
});

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: '../test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  globalTeardown: './global-teardown.ts',
  use: {
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--use-angle=swiftshader',
        '--enable-unsafe-swiftshader',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  projects: [
    { name: 'service', use: { baseURL: origin } },
    {
      name: 'published-fields-only',
      use: { baseURL: publishedOrigin },
      testMatch: ['browse.spec.ts', 'matches.spec.ts', 'upload.spec.ts', 'image-search.spec.ts', 'credentials.spec.ts'],
    },
  ],
  webServer: [
    {
      command: 'npm start',
      cwd: '..',
      url: `${origin}/oauth2/default/.well-known/openid-configuration`,
      timeout: 240_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
      // The webhook spec's receiver listens on this machine's loopback: this deployment allows it.
      env: { ...serverEnv(port, origin, process.env.E2E_DATA_DIR), WEBHOOKS_ALLOW_PRIVATE: 'true' },
    },
    {
      // After the first is up: the first start builds the app, and two builds must not race.
      command: `node e2e/wait-for-url.mjs ${origin}/oauth2/default/.well-known/openid-configuration && npm start`,
      cwd: '..',
      url: `${publishedOrigin}/oauth2/default/.well-known/openid-configuration`,
      timeout: 300_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...serverEnv(publishedPort, publishedOrigin, process.env.E2E_PUBLISHED_DATA_DIR), PUBLISHED_FIELDS_ONLY: publishedDocument },
    },
  ],
});
