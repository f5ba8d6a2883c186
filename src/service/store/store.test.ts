import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdapterClass } from '../identity/adapter';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../testing/postgres-server';
import { createCredential, deleteCredential, findCredential, listCredentials, touchCredential, verifyClientSecret } from './client-credentials';
import { migrateToLatest, openStore, type Store } from './database';
import { ensureDemoAccount } from './demo';
import { createFolder, folderPaths, listFolders } from './folders';
import { loadOrCreateKeys } from './keys';
import { authenticate, createUser, ensureTenant, findAccount } from './users';

/** Everything the store must do the same on PGlite and on PostgreSQL. */
async function exerciseStore(store: Store) {
  const { db } = store;

  // migrations: applied once, idempotent
  await migrateToLatest(db);
  const applied = await db
    .selectFrom(sql<{ name: string }>`kysely_migration`.as('m'))
    .select('m.name')
    .execute();
  expect(applied.map((m) => m.name)).toEqual(['0001-initial']);

  // tenants + users
  const tenant = await ensureTenant(db, 'acme', 'Acme Inc.');
  expect(await ensureTenant(db, 'acme')).toEqual(tenant);
  const user = await createUser(db, { tenantId: tenant.id, email: 'Ada@Example.com', name: 'Ada', password: 'correct horse', roles: ['viewer', 'admin'] });
  expect(user.roles).toEqual(['viewer', 'admin']);
  expect(user.password_hash).not.toContain('correct horse');
  expect((await authenticate(db, 'ada@example.com', 'correct horse'))?.id).toBe(user.id);
  expect(await authenticate(db, 'ada@example.com', 'wrong')).toBeUndefined();
  expect(await authenticate(db, 'nobody@example.com', 'correct horse')).toBeUndefined();
  await expect(createUser(db, { tenantId: tenant.id, email: 'ADA@example.com', name: 'x', password: 'p', roles: [] })).rejects.toThrow();
  expect(await findAccount(db, user.id)).toMatchObject({ user: { id: user.id }, tenant: { key: 'acme' } });
  expect(await ensureDemoAccount(db, { email: 'demo@example.com', password: 'demo-password' })).toBe(true);
  expect(await ensureDemoAccount(db, { email: 'demo@example.com', password: 'demo-password' })).toBe(false);

  // oidc payloads through the provider adapter
  const Adapter = createAdapterClass(db);
  const sessions = new Adapter('Session');
  await sessions.upsert('s1', { uid: 'u1', accountId: user.id }, 60);
  expect(await sessions.find('s1')).toEqual({ uid: 'u1', accountId: user.id });
  expect(await sessions.findByUid('u1')).toMatchObject({ accountId: user.id });
  await sessions.upsert('s1', { uid: 'u1', accountId: user.id, changed: true }, 60);
  expect(await sessions.find('s1')).toMatchObject({ changed: true });
  await sessions.destroy('s1');
  expect(await sessions.find('s1')).toBeUndefined();
  const codes = new Adapter('AuthorizationCode');
  await codes.upsert('c1', { grantId: 'g1', userCode: 'UC' }, 60);
  expect(await codes.findByUserCode('UC')).toMatchObject({ grantId: 'g1' });
  await codes.consume('c1');
  expect((await codes.find('c1'))?.consumed).toEqual(expect.any(Number));
  await codes.upsert('c2', { grantId: 'g1' }, 60);
  await codes.revokeByGrantId('g1');
  expect(await codes.find('c2')).toBeUndefined();
  await codes.upsert('old', {}, 1);
  await db.updateTable('oidc_payloads').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', 'old').execute();
  expect(await codes.find('old')).toBeUndefined();

  // keys: made once, then the same on every load
  const keys = await loadOrCreateKeys(db);
  expect(keys.signingKeys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', d: expect.any(String) });
  expect(await loadOrCreateKeys(db)).toEqual(keys);

  // client credentials
  const { row, secret } = await createCredential(db, { userId: user.id, tenantId: tenant.id, name: 'ci' });
  expect(verifyClientSecret(secret, row.secret_hash)).toBe(true);
  expect(row.secret_hash).not.toContain(secret);
  const clients = new Adapter('Client');
  expect(await clients.find(row.client_id)).toMatchObject({ client_id: row.client_id, grant_types: ['client_credentials'] });
  const now = new Date();
  await touchCredential(db, row.client_id, now, 60_000);
  await touchCredential(db, row.client_id, new Date(now.getTime() + 1000), 60_000); // throttled
  expect((await findCredential(db, row.client_id))?.last_used_at?.getTime()).toBe(now.getTime());
  expect(await listCredentials(db, user.id)).toHaveLength(1);
  expect(await deleteCredential(db, '00000000-0000-4000-8000-000000000000', row.client_id)).toBe(false);
  expect(await deleteCredential(db, user.id, row.client_id)).toBe(true);
  expect(await clients.find(row.client_id)).toBeUndefined();

  // folders
  const root = await createFolder(db, { tenantId: tenant.id, name: 'Parts' });
  const child = await createFolder(db, { tenantId: tenant.id, name: 'Bolts', parentFolderId: root.id });
  await expect(createFolder(db, { tenantId: tenant.id, name: 'parts' })).rejects.toThrow(); // siblings unique, any case
  const { rows, total } = await listFolders(db, tenant.id, { page: 1, perPage: 10 });
  expect(total).toBe(2);
  expect(rows.map((f) => f.name)).toEqual(['Bolts', 'Parts']);
  expect((await folderPaths(db, tenant.id)).get(child.id)).toBe('Parts/Bolts');
}

describe('store on PGlite', () => {
  let dataDir: string;
  let store: Store | undefined;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-store-'));
  });
  afterAll(async () => {
    await store?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('migrates and round-trips every table', async () => {
    store = await openStore({ dataDir });
    await exerciseStore(store);
    // data survives a reopen of the same directory
    await store.close();
    store = await openStore({ dataDir });
    expect(await store.db.selectFrom('tenants').select('key').where('key', '=', 'acme').executeTakeFirst()).toEqual({ key: 'acme' });
  });
});

describe('store on PostgreSQL', () => {
  let server: ThrowawayPostgres | undefined;
  let store: Store | undefined;
  beforeAll(async () => {
    server = await startThrowawayPostgres();
  });
  afterAll(async () => {
    await store?.close();
    await server?.stop();
  });

  it('migrates and round-trips every table', async () => {
    // The real-server path must be proven wherever the tests run (README: npm test needs postgresql).
    if (!server) throw new Error('PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin); install the Debian package "postgresql".');
    store = await openStore({ databaseUrl: server.url, dataDir: '/nonexistent' });
    expect(store.location).toContain('gsw_test');
    await exerciseStore(store);
  });
});
