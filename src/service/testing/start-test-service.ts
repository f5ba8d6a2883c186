import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import pg from 'pg';
import { DEFAULT_UPLOAD_MAX_BYTES, type Role } from '../../contract/app-config';
import { defaultThrottle, type ServiceConfig, type ThrottleConfig } from '../config';
import { DEFAULT_UNPACKED_MAX_BYTES } from '../../geometry/import/importer';
import type { IngestQueue } from '../ingest/ingest-queue';
import { startService, type RunningService, type StartOptions } from '../server';
import { createUser, ensureTenant } from '../store/users';
import type { CookieJar } from './cookie-jar';
import { requestCredentialToken, signInWithPkce, type Tokens } from './oidc-flows';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  name: string;
  tenantKey: string;
  tenantId: number;
  roles: Role[];
}

export interface TestService {
  /** Origin of the running service (base_url = auth_url), e.g. http://localhost:40123 */
  baseUrl: string;
  issuer: string;
  tokenUrl: string;
  service: RunningService;
  db: RunningService['store']['db'];
  /** Creates a tenant (if missing) and a user directly in the store. */
  createUser(input?: Partial<Omit<TestUser, 'id' | 'tenantId'>>): Promise<TestUser>;
  /** The app's PKCE sign-in through the real endpoints; returns the token response. */
  signIn(user: Pick<TestUser, 'email' | 'password'>): Promise<Tokens & { jar: CookieJar }>;
  /** The published API's client credentials token request (raw response, for status checks). */
  credentialToken(clientId: string, clientSecret: string, scope?: string): Promise<Response>;
  /** fetch against baseUrl with an optional bearer token; JSON bodies are serialised. */
  api(pathname: string, init?: { method?: string; token?: string; json?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** The provider's real private signing key (to forge tokens with chosen claims). */
  signingKey(): Promise<{ key: CryptoKey | Uint8Array; kid: string }>;
  /** An access token for `user` signed with the real key (as the provider would issue; no sign-in round trip). */
  tokenFor(user: Pick<TestUser, 'id' | 'tenantKey' | 'roles'>): Promise<string>;
  /** A new user with roles viewer+editor in `tenantKey` (default acme), and a token for them. */
  editorToken(tenantKey?: string): Promise<string>;
  /** A new user with the viewer role only in `tenantKey` (default acme), and a token for them. */
  viewerToken(tenantKey?: string): Promise<string>;
  /** The throwaway data directory (blobs live in `${dataDir}/blobs`). */
  dataDir: string;
  stop(): Promise<void>;
}

export interface StartTestServiceOptions {
  /** Use this PostgreSQL database instead of a fresh PGlite in a temp dir. */
  databaseUrl?: string;
  /** Create the demo account as `npm start` would (off by default). */
  demo?: { email: string; password: string };
  /** Serve a built app from this directory (default: no web app, API and sign-in only). */
  distDir?: string;
  /** Largest upload accepted (default: the service default, 4 GiB). */
  uploadMaxBytes?: number;
  /** Ingestion's queue (default: none, uploaded models stay `processing`). */
  ingestQueue?: IngestQueue;
  /** Real ingestion started with the service (see StartOptions.ingestion). */
  ingestion?: StartOptions['ingestion'];
  /** Brute-force limits other than the defaults. */
  throttle?: Partial<ThrottleConfig>;
  /** Another OIDC provider whose tokens the API accepts (OIDC_ISSUER and friends). */
  oidc?: ServiceConfig['oidc'];
  /** Another blob store than DATA_DIR/blobs (e.g. one that takes direct uploads, as S3 does). */
  blobStore?: StartOptions['blobStore'];
  /** Answer only the published document's fields (PUBLISHED_FIELDS_ONLY). */
  publishedFieldsOnly?: string;
  /** Webhooks may reach loopback receivers the test starts (WEBHOOKS_ALLOW_PRIVATE). */
  webhooksAllowPrivate?: boolean;
}

/**
 * Under the `postgres` test project (postgres-global-setup.ts), a new database on its server, so
 * the same service tests run on PostgreSQL as on the embedded PGlite; undefined otherwise.
 */
async function freshPostgresDatabase(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  const { inject } = await import('vitest');
  const serverUrl = inject('postgresUrl');
  if (!serverUrl) return undefined;
  const name = `gsw_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Starts the real service (store, identity provider, API) on an ephemeral port with a throwaway
 * data directory. Call `stop()` in afterAll; it closes everything and removes the directory.
 */
export async function startTestService(options: StartTestServiceOptions = {}): Promise<TestService> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-test-'));
  const config: ServiceConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: options.databaseUrl ?? (await freshPostgresDatabase()),
    publicUrl: '', // follows the bound port
    demo: options.demo,
    uploadMaxBytes: options.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
    unpackedMaxBytes: DEFAULT_UNPACKED_MAX_BYTES,
    ingestMemoryMb: 1024,
    workerThreads: undefined,
    throttle: { ...defaultThrottle, ...options.throttle },
    blobStore: { kind: 'local' },
    oidc: options.oidc,
    publishedFieldsOnly: options.publishedFieldsOnly,
    webhooksAllowPrivate: options.webhooksAllowPrivate ?? false,
  };
  let service: RunningService;
  try {
    service = await startService({
      config,
      publicUrlFromEnv: false,
      ingestQueue: options.ingestQueue,
      ingestion: options.ingestion,
      blobStore: options.blobStore,
      web: options.distDir ? { kind: 'dist', distDir: options.distDir } : { kind: 'none' },
      logger: false,
    });
  } catch (error) {
    await fs.rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const baseUrl = service.url;
  let counter = 0;

  const t: TestService = {
    baseUrl,
    issuer: service.issuer,
    tokenUrl: `${service.issuer}/v1/token`,
    service,
    db: service.store.db,

    async createUser(input = {}) {
      counter += 1;
      const tenantKey = input.tenantKey ?? 'acme';
      const tenant = await ensureTenant(service.store.db, tenantKey, `${tenantKey} Inc.`);
      const email = input.email ?? `user${counter}-${randomBytes(3).toString('hex')}@example.com`;
      const password = input.password ?? `pw-${randomBytes(8).toString('hex')}`;
      const name = input.name ?? `Test User ${counter}`;
      const roles = input.roles ?? ['viewer', 'editor'];
      const user = await createUser(service.store.db, { tenantId: tenant.id, email, name, password, roles });
      return { id: user.id, email, password, name, tenantKey, tenantId: tenant.id, roles };
    },

    async signIn(user) {
      const { tokens, jar } = await signInWithPkce(baseUrl, user);
      return { ...tokens, jar };
    },

    credentialToken(clientId, clientSecret, scope) {
      return requestCredentialToken(baseUrl, clientId, clientSecret, scope);
    },

    api(pathname, init = {}) {
      const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      if (init.json !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${baseUrl}${pathname}`, {
        method: init.method ?? 'GET',
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
    },

    async signingKey() {
      const jwk = service.keys.signingKeys[0] as JWK;
      return { key: await importJWK(jwk, 'RS256'), kid: jwk.kid ?? '' };
    },

    async tokenFor(user) {
      const jwk = service.keys.signingKeys[0] as JWK;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ tenant: user.tenantKey, roles: user.roles, client_id: 'workbench-app' })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid ?? '' })
        .setIssuer(service.issuer)
        .setAudience('api://default')
        .setSubject(user.id)
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(await importJWK(jwk, 'RS256'));
    },

    async editorToken(tenantKey = 'acme') {
      return t.tokenFor(await t.createUser({ tenantKey, roles: ['viewer', 'editor'] }));
    },

    async viewerToken(tenantKey = 'acme') {
      return t.tokenFor(await t.createUser({ tenantKey, roles: ['viewer'] }));
    },

    dataDir,

    async stop() {
      await service.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}
