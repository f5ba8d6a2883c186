import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('service configuration', () => {
  it('has the documented defaults on loopback, demo login included', () => {
    const c = loadConfig({}, '/repo');
    expect(c).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/repo/.data',
      databaseUrl: undefined,
      publicUrl: 'http://localhost:8080',
      demo: { email: 'demo@example.com', password: 'demo-password' },
      uploadMaxBytes: 4 * 1024 * 1024 * 1024,
      unpackedMaxBytes: 256 * 1024 * 1024,
      ingestMemoryMb: 1024,
      workerThreads: undefined,
      throttle: { signInFailuresPerAccount: 5, signInFailuresPerAddress: 30, tokenFailuresPerClient: 5, apiRequestsPerMinute: 1200 },
      blobStore: { kind: 'local' },
      webhooksAllowPrivate: false,
    });
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'true' }, '/repo').webhooksAllowPrivate).toBe(true);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOKS_ALLOW_PRIVATE/);
  });

  it('reads the limits of hostile files and of brute force', () => {
    const c = loadConfig(
      {
        UNPACKED_MAX_BYTES: '1000000',
        INGEST_MEMORY_MB: '512',
        SIGNIN_FAILURES_PER_ACCOUNT: '3',
        SIGNIN_FAILURES_PER_ADDRESS: '9',
        TOKEN_FAILURES_PER_CLIENT: '2',
        API_REQUESTS_PER_MINUTE: '60',
      },
      '/repo',
    );
    expect(c).toMatchObject({
      unpackedMaxBytes: 1_000_000,
      ingestMemoryMb: 512,
      throttle: { signInFailuresPerAccount: 3, signInFailuresPerAddress: 9, tokenFailuresPerClient: 2, apiRequestsPerMinute: 60 },
    });
    expect(() => loadConfig({ INGEST_MEMORY_MB: '10' })).toThrow(/INGEST_MEMORY_MB/);
    expect(loadConfig({ WORKER_THREADS: '4' }, '/repo').workerThreads).toBe(4);
    expect(() => loadConfig({ WORKER_THREADS: '0' })).toThrow(/WORKER_THREADS/);
    expect(() => loadConfig({ API_REQUESTS_PER_MINUTE: '0' })).toThrow(/API_REQUESTS_PER_MINUTE/);
  });

  it('reads the upload limit and the S3 blob store settings', () => {
    expect(loadConfig({ UPLOAD_MAX_BYTES: '1000' }, '/repo').uploadMaxBytes).toBe(1000);
    expect(() => loadConfig({ UPLOAD_MAX_BYTES: '-1' })).toThrow(/UPLOAD_MAX_BYTES/);
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ BLOB_STORE: 'ftp' })).toThrow(/BLOB_STORE/);
    expect(
      loadConfig(
        { BLOB_STORE: 's3', S3_BUCKET: 'models', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true', AWS_REGION: 'eu-west-1' },
        '/repo',
      ).blobStore,
    ).toEqual({ kind: 's3', bucket: 'models', region: 'eu-west-1', endpoint: 'http://minio:9000', forcePathStyle: true });
  });

  it('reads another OIDC provider, whose audience must be named', () => {
    expect(loadConfig({}, '/repo').oidc).toBeUndefined();
    expect(() => loadConfig({ OIDC_ISSUER: 'https://login.example.com/realms/acme' })).toThrow(/OIDC_AUDIENCE/);
    expect(() => loadConfig({ OIDC_ISSUER: 'not a url', OIDC_AUDIENCE: 'api' })).toThrow(/OIDC_ISSUER/);
    expect(
      loadConfig(
        { OIDC_ISSUER: 'https://login.example.com/realms/acme', OIDC_AUDIENCE: 'workbench-api', OIDC_ROLES_CLAIM: 'realm_access.roles' },
        '/repo',
      ).oidc,
    ).toEqual({
      issuer: 'https://login.example.com/realms/acme',
      audience: 'workbench-api',
      clientId: 'workbench-app',
      scopes: 'openid profile email',
      tenantClaim: 'tenant',
      rolesClaim: 'realm_access.roles',
    });
  });

  it('makes no demo user on other hosts unless a password is given', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }, '/repo').demo).toBeUndefined();
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }, '/repo').publicUrl).toBe('http://localhost:9000');
    expect(loadConfig({ HOST: '10.0.0.5', DEMO_USER: 'a@b.co', DEMO_PASSWORD: 'long-enough' }, '/repo')).toMatchObject({
      publicUrl: 'http://10.0.0.5:8080',
      demo: { email: 'a@b.co', password: 'long-enough' },
    });
  });

  it('takes PUBLIC_URL, DATA_DIR and DATABASE_URL, and refuses bad values by name', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://cad.example.com/', DATA_DIR: '/var/gsw', DATABASE_URL: 'postgres://u:p@db/gsw' }, '/repo');
    expect(c).toMatchObject({ publicUrl: 'https://cad.example.com', dataDir: '/var/gsw', databaseUrl: 'postgres://u:p@db/gsw' });
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DEMO_PASSWORD: 'short' })).toThrow(/DEMO_PASSWORD/);
  });
});
