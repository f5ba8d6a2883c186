import type { ExternalOidcConfig } from './identity/external-issuer';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_UNPACKED_MAX_BYTES } from '../geometry/import/importer';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../contract/app-config';

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost', '0:0:0:0:0:0:0:1']);

export function isLoopbackHost(host: string): boolean {
  return loopbackHosts.has(host) || host.startsWith('127.');
}

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

/** Brute-force limits (README, Configuration): failures per minute, or per 10 minutes per address. */
export interface ThrottleConfig {
  /** Wrong passwords per account per minute before sign-in is refused for a minute. */
  signInFailuresPerAccount: number;
  /** Failed sign-ins per client address per 10 minutes, over all accounts. */
  signInFailuresPerAddress: number;
  /** Refused client-credentials token requests per client id per minute. */
  tokenFailuresPerClient: number;
  /** API requests per access token per minute. */
  apiRequestsPerMinute: number;
}

export const defaultThrottle: ThrottleConfig = {
  signInFailuresPerAccount: 5,
  signInFailuresPerAddress: 30,
  tokenFailuresPerClient: 5,
  apiRequestsPerMinute: 1200,
};

const envSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(8080)),
  HOST: z.preprocess(emptyAsUndefined, z.string().min(1).default('127.0.0.1')),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().min(1).default('.data')),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  DEMO_USER: z.preprocess(emptyAsUndefined, z.email().default('demo@example.com')),
  DEMO_PASSWORD: z.preprocess(emptyAsUndefined, z.string().min(8).optional()),
  UPLOAD_MAX_BYTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(DEFAULT_UPLOAD_MAX_BYTES)),
  UNPACKED_MAX_BYTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(DEFAULT_UNPACKED_MAX_BYTES)),
  WORKER_THREADS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(64).optional()),
  INGEST_MEMORY_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(128).default(1024)),
  SIGNIN_FAILURES_PER_ACCOUNT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().positive().default(defaultThrottle.signInFailuresPerAccount),
  ),
  SIGNIN_FAILURES_PER_ADDRESS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().positive().default(defaultThrottle.signInFailuresPerAddress),
  ),
  TOKEN_FAILURES_PER_CLIENT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().positive().default(defaultThrottle.tokenFailuresPerClient),
  ),
  API_REQUESTS_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().default(defaultThrottle.apiRequestsPerMinute)),
  BLOB_STORE: z.preprocess(emptyAsUndefined, z.enum(['local', 's3']).default('local')),
  S3_BUCKET: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  S3_REGION: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  S3_FORCE_PATH_STYLE: z.preprocess(emptyAsUndefined, z.enum(['true', 'false', '1', '0']).optional()),
  OIDC_ISSUER: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional()),
  OIDC_AUDIENCE: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  OIDC_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().min(1).default('workbench-app')),
  OIDC_SCOPES: z.preprocess(emptyAsUndefined, z.string().min(1).default('openid profile email')),
  OIDC_TENANT_CLAIM: z.preprocess(emptyAsUndefined, z.string().min(1).default('tenant')),
  OIDC_ROLES_CLAIM: z.preprocess(emptyAsUndefined, z.string().min(1).default('roles')),
  PUBLISHED_FIELDS_ONLY: z.preprocess(emptyAsUndefined, z.string().min(1).optional()),
  WEBHOOKS_ALLOW_PRIVATE: z.preprocess(emptyAsUndefined, z.enum(['true', 'false', '1', '0']).optional()),
});

/** Where files live: DATA_DIR/blobs, or an S3-compatible bucket (credentials from the standard AWS env). */
export type BlobStoreConfig =
  { kind: 'local' } | { kind: 's3'; bucket: string; region: string; endpoint: string | undefined; forcePathStyle: boolean };

export interface ServiceConfig {
  port: number;
  host: string;
  /** Absolute path of the data directory. */
  dataDir: string;
  /** `undefined` = embedded PGlite in `${dataDir}/pglite`. */
  databaseUrl: string | undefined;
  /** Origin users reach, without a trailing slash. */
  publicUrl: string;
  /** `undefined` when no demo user is to be created. */
  demo: { email: string; password: string } | undefined;
  /** Largest model file a signed upload accepts (UPLOAD_MAX_BYTES, default 4 GiB). */
  uploadMaxBytes: number;
  /** Most bytes a packed file (3MF, glTF) may unpack to (UNPACKED_MAX_BYTES, default 256 MiB). */
  unpackedMaxBytes: number;
  /** Memory ingestion's worker threads may add to the process, native memory included (INGEST_MEMORY_MB). */
  ingestMemoryMb: number;
  /** Models processed at once, one worker thread each (WORKER_THREADS; default: cores, at most 2). */
  workerThreads: number | undefined;
  throttle: ThrottleConfig;
  blobStore: BlobStoreConfig;
  /** Another OIDC provider whose tokens the API accepts and where the app signs in (OIDC_*); undefined = the embedded one only. */
  oidc?: ExternalOidcConfig | undefined;
  /** An OpenAPI document (the published API's): answers carry only the fields it defines (a strict deployment, for testing clients). */
  publishedFieldsOnly?: string | undefined;
  /** Webhooks may reach private, loopback and link-local addresses (WEBHOOKS_ALLOW_PRIVATE; off: public addresses only). */
  webhooksAllowPrivate?: boolean;
}

export class ConfigError extends Error {}

/**
 * Reads the service configuration from the environment.
 * `port` may be overridden after listening on port 0 (tests), so PUBLIC_URL can follow it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServiceConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid environment: ${issues}`);
  }
  const e = parsed.data;
  const loopback = isLoopbackHost(e.HOST);
  // A demo password is never invented for a service reachable from other machines.
  const demoPassword = e.DEMO_PASSWORD ?? (loopback ? 'demo-password' : undefined);
  if (e.OIDC_ISSUER && !e.OIDC_AUDIENCE)
    throw new ConfigError(
      'Invalid environment: OIDC_AUDIENCE: required with OIDC_ISSUER (the audience its access tokens carry for this API)',
    );
  if (e.BLOB_STORE === 's3' && !e.S3_BUCKET) throw new ConfigError('Invalid environment: S3_BUCKET: required when BLOB_STORE=s3');
  const blobStore: BlobStoreConfig =
    e.BLOB_STORE === 's3'
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET ?? '',
          region: e.S3_REGION ?? env.AWS_REGION ?? 'us-east-1',
          endpoint: e.S3_ENDPOINT,
          forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true' || e.S3_FORCE_PATH_STYLE === '1',
        }
      : { kind: 'local' };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    publicUrl: (e.PUBLIC_URL ?? defaultPublicUrl(e.HOST, e.PORT)).replace(/\/+$/, ''),
    demo: demoPassword ? { email: e.DEMO_USER, password: demoPassword } : undefined,
    uploadMaxBytes: e.UPLOAD_MAX_BYTES,
    unpackedMaxBytes: e.UNPACKED_MAX_BYTES,
    ingestMemoryMb: e.INGEST_MEMORY_MB,
    workerThreads: e.WORKER_THREADS,
    throttle: {
      signInFailuresPerAccount: e.SIGNIN_FAILURES_PER_ACCOUNT,
      signInFailuresPerAddress: e.SIGNIN_FAILURES_PER_ADDRESS,
      tokenFailuresPerClient: e.TOKEN_FAILURES_PER_CLIENT,
      apiRequestsPerMinute: e.API_REQUESTS_PER_MINUTE,
    },
    blobStore,
    publishedFieldsOnly: e.PUBLISHED_FIELDS_ONLY ? path.resolve(cwd, e.PUBLISHED_FIELDS_ONLY) : undefined,
    webhooksAllowPrivate: e.WEBHOOKS_ALLOW_PRIVATE === 'true' || e.WEBHOOKS_ALLOW_PRIVATE === '1',
    oidc: e.OIDC_ISSUER
      ? {
          issuer: e.OIDC_ISSUER,
          audience: e.OIDC_AUDIENCE ?? '',
          clientId: e.OIDC_CLIENT_ID,
          scopes: e.OIDC_SCOPES,
          tenantClaim: e.OIDC_TENANT_CLAIM,
          rolesClaim: e.OIDC_ROLES_CLAIM,
        }
      : undefined,
  };
}

export function defaultPublicUrl(host: string, port: number): string {
  // Wildcard and loopback binds are reached as localhost; cookies and redirect URIs need one stable name.
  const name = isLoopbackHost(host) || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const hostPart = name.includes(':') ? `[${name}]` : name;
  return `http://${hostPart}:${port}`;
}
