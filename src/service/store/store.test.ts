import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdapterClass } from '../identity/adapter';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../testing/postgres-server';
import {
  createCredential,
  deleteCredential,
  findCredential,
  listCredentials,
  touchCredential,
  verifyClientSecret,
} from './client-credentials';
import { migrateToLatest, openStore, type Store } from './database';
import { migrationProvider } from './migrations/index';
import { ensureDemoAccount } from './demo';
import { parseFilter, modelFilterFields } from '../../contract/filter';
import { createFolder, deleteFolder, folderPaths, listFolders, renameFolder } from './folders';
import { createMetadataKey } from './metadata-keys';
import { createModels, deleteModel, listModels } from './models';
import { loadOrCreateKeys } from './keys';
import { authenticate, createUser, ensureTenant, findAccount } from './users';
import { ModelLifecycle } from './model-lifecycle';
import { VIEW_METHOD, VIEW_DESCRIPTOR_LENGTH } from '../../geometry/search/views/shape-features';
import { packPolar, POLAR_LENGTH, unpackPolar } from '../../geometry/search/views/polar-signature';
import { quantizeViews } from '../../geometry/search/views/view-index';
import { imageDb } from '../images/image-store';
import { decodeDescriptors, decodeSignatures, VIEW_SIGNATURE_METHOD } from '../images/view-signature';
import { convertOlderLayout } from './migrations/0018-view-signatures';

/** Everything the store must do the same on PGlite and on PostgreSQL. */
async function exerciseStore(store: Store) {
  const { db } = store;

  // migrations: applied once, idempotent
  await migrateToLatest(db);
  const applied = await db
    .selectFrom(sql<{ name: string }>`kysely_migration`.as('m'))
    .select('m.name')
    .execute();
  expect(applied.map((m) => m.name)).toEqual(Object.keys(await migrationProvider.getMigrations()).sort());

  // tenants + users
  const tenant = await ensureTenant(db, 'acme', 'Acme Inc.');
  expect(await ensureTenant(db, 'acme')).toEqual(tenant);
  const user = await createUser(db, {
    tenantId: tenant.id,
    email: 'Ada@Example.com',
    name: 'Ada',
    password: 'correct horse',
    roles: ['viewer', 'admin'],
  });
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
  await db
    .updateTable('oidc_payloads')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', 'old')
    .execute();
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

  // models: one transaction per batch, filters compiled to SQL (collations, dates, metadata, uuids)
  const key = await createMetadataKey(db, tenant.id, 'Material');
  if (!key) throw new Error('no key');
  expect(await createMetadataKey(db, tenant.id, 'MATERIAL')).toBeNull();
  const expiresAt = new Date(Date.now() + 60_000);
  const missing = await createModels(db, {
    tenantId: tenant.id,
    ownerId: 'u',
    items: [{ filePath: 'New/x.stl', name: 'x' }],
    createMissingFolders: false,
    uploadExpiresAt: expiresAt,
  });
  expect(missing).toEqual({ ok: false, reason: 'missing-folder', index: 0, folder: 'New' });
  const made = await createModels(db, {
    tenantId: tenant.id,
    ownerId: 'u',
    items: [
      { filePath: 'parts/bolts/M8.STEP', name: 'M8 bolt', metadata: [{ metadataKeyId: key.id, value: 'Steel' }] },
      { filePath: 'Parts/Nuts/m8-nut.stl', name: 'nut' },
    ],
    createMissingFolders: true,
    uploadExpiresAt: expiresAt,
  });
  if (!made.ok) throw new Error(made.reason);
  expect(made.foldersCreated).toBe(1);
  expect(made.models.map((m) => [m.row.folder_id === child.id, m.row.file_type])).toEqual([
    [true, 'step'],
    [false, 'stl'],
  ]);
  const [bolt, nut] = made.models.map((m) => m.row);
  // A path whose model still waits for its file is taken over: the same record, a new upload nonce ...
  const again = await createModels(db, {
    tenantId: tenant.id,
    ownerId: 'u',
    items: [{ filePath: 'PARTS/BOLTS/m8.step', name: 'dup' }],
    createMissingFolders: true,
    uploadExpiresAt: expiresAt,
  });
  expect(again).toMatchObject({ ok: true, models: [{ row: { id: bolt?.id, file_path: 'parts/bolts/M8.STEP', name: 'M8 bolt' } }] });
  expect(again.ok && again.models[0]?.nonce).not.toBe(made.models[0]?.nonce);
  await new ModelLifecycle(db, undefined).complete(nut?.id ?? '', 0, { state: 'finished', isAssembly: true });
  // ... one whose model has its file is a duplicate.
  const taken = await createModels(db, {
    tenantId: tenant.id,
    ownerId: 'u',
    items: [{ filePath: 'parts/nuts/M8-NUT.stl', name: 'dup' }],
    createMissingFolders: true,
    uploadExpiresAt: expiresAt,
  });
  expect(taken).toMatchObject({ ok: false, reason: 'duplicate', paths: ['Parts/Nuts/m8-nut.stl'] });
  const query = async (filter: string, order = '') => {
    const clauses = parseFilter(filter, { fields: modelFilterFields, allowMetadata: true });
    const { rows } = await listModels(db, tenant.id, {
      page: 1,
      perPage: 10,
      filter: clauses,
      order: order ? [{ field: 'name', direction: 'desc' }] : [],
    });
    return rows.map((r) => r.name);
  };
  expect(await query(`id(in(${bolt?.id},${nut?.id})),name(gt('M')),name(lt(n))`)).toEqual(['M8 bolt']);
  expect(await query(`metadata.${key.id}(eq(Steel))`)).toEqual(['M8 bolt']);
  expect(await query(`metadata.${key.id}(ne(Steel)),isAssembly(eq(true))`)).toEqual(['nut']);
  expect(await query("createdAt(gt('2000-01-01T00:00:00Z')),fileType(like('S*'))", 'desc')).toEqual(['nut', 'M8 bolt']);
  expect(await query(`id(lt('0')),folderId(between(0,${2 ** 40}))`)).toEqual([]);
  expect((await renameFolder(db, tenant.id, child.id, 'Screws')).ok).toBe(true);
  expect((await listModels(db, tenant.id, { page: 1, perPage: 10, search: 'screws/m8' })).rows.map((r) => r.file_path)).toEqual([
    'Parts/Screws/M8.STEP',
  ]);
  expect(await deleteFolder(db, tenant.id, child.id)).toBe('has-models');

  // Image views stored in the layout before view signatures (migration 0018) are converted in place; an unreadable row is left stale.
  const views = { count: 2, dim: VIEW_DESCRIPTOR_LENGTH };
  const floats = Float32Array.from({ length: views.count * views.dim }, (_, i) => ((i * 37) % 100) / 1000);
  const polar = Uint8Array.from({ length: views.count * POLAR_LENGTH }, (_, i) => (i * 11) % 256);
  const older = new Uint8Array(floats.byteLength + polar.byteLength);
  older.set(new Uint8Array(floats.buffer));
  older.set(polar, floats.byteLength);
  const viewsRow = (modelId: string, data: Uint8Array) => ({
    model_id: modelId,
    version: 1,
    method: VIEW_METHOD,
    view_count: 2,
    dim: views.dim,
    data,
  });
  await imageDb(db)
    .insertInto('model_views')
    .values([viewsRow(bolt!.id, older), viewsRow(nut!.id, older.subarray(0, 100))])
    .execute();
  await convertOlderLayout(db);
  const converted = await imageDb(db).selectFrom('model_views').selectAll().where('model_id', '=', bolt!.id).executeTakeFirstOrThrow();
  expect(converted.method).toBe(VIEW_SIGNATURE_METHOD);
  expect(decodeDescriptors(converted.data, views.count * views.dim)).toEqual(quantizeViews(floats));
  expect(decodeSignatures(converted.signatures!, views.count)).toEqual(unpackPolar(packPolar(polar), views.count));
  const unreadable = await imageDb(db).selectFrom('model_views').select('method').where('model_id', '=', nut!.id).executeTakeFirstOrThrow();
  expect(unreadable.method).toMatch(/^unreadable-/);

  expect((await deleteModel(db, tenant.id, bolt?.id ?? ''))?.id).toBe(bolt?.id);
  expect(await deleteFolder(db, tenant.id, child.id)).toBe('deleted');
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
    if (!server)
      throw new Error(
        'PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin); install the Debian package "postgresql".',
      );
    store = await openStore({ databaseUrl: server.url, dataDir: '/nonexistent' });
    expect(store.location).toContain('gsw_test');
    await exerciseStore(store);
  });
});
