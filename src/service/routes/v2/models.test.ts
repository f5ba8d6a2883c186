import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateFilter, modelFilterFields, parseFilter } from '../../../contract/filter';
import { folderListResponseSchema } from '../../../contract/folders';
import { metadataKeyListResponseSchema, metadataKeyResponseSchema } from '../../../contract/metadata-keys';
import {
  assemblyTreeResponseSchema,
  createModelsResponseSchema,
  modelListResponseSchema,
  modelResponseSchema,
  viewerFileResponseSchema,
  type Model,
} from '../../../contract/models';
import { setAssemblyLinks } from '../../store/models';
import { expectApiError as error, recordingQueue } from '../../testing/api-expect';
import { startTestService, type TestService } from '../../testing/start-test-service';
import { ModelLifecycle } from '../../store/model-lifecycle';

let t: TestService;
let editor: string;
let viewer: string;
let other: string;
const { queue, enqueued } = recordingQueue();

beforeAll(async () => {
  t = await startTestService({ ingestQueue: queue });
  [editor, viewer, other] = await Promise.all([t.editorToken('acme'), t.viewerToken('acme'), t.editorToken('globex')]);
});
afterAll(() => t?.stop());

type Item = { filePath: string; name: string; metadata?: { metadataKeyId: number; value: string }[] };

function post(items: unknown[], { token = editor, createMissingFolders }: { token?: string; createMissingFolders?: boolean } = {}) {
  const query = createMissingFolders === undefined ? '' : `?createMissingFolders=${createMissingFolders}`;
  return t.api(`/v2/models${query}`, { method: 'POST', token, json: { models: items } });
}

async function createModels(items: Item[], token = editor) {
  const response = await post(items, { token, createMissingFolders: true });
  expect(response.status).toBe(201);
  const raw = (await response.json()) as { models: { uploadUrl: string; headers: Record<string, string>; uploadInfo: unknown }[] };
  for (const entry of raw.models)
    expect(entry.uploadInfo).toEqual({
      uploadUrl: entry.uploadUrl,
      headers: entry.headers,
      fileSizeRequirements: { minSizeInBytes: 1, maxSizeInBytes: 4 * 1024 * 1024 * 1024 },
    });
  return createModelsResponseSchema.parse(raw).models;
}

async function list(query: string, token = editor) {
  const response = await t.api(`/v2/models${query}`, { token });
  expect(response.status, query).toBe(200);
  return modelListResponseSchema.parse(await response.json());
}

async function upload(entry: { uploadUrl: string; headers: Record<string, string> }, body: string) {
  const response = await fetch(entry.uploadUrl, { method: 'PUT', headers: entry.headers, body });
  expect(response.status).toBe(200);
}

async function countRows() {
  const [models, folders] = await Promise.all([
    t.db
      .selectFrom('models')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
    t.db
      .selectFrom('folders')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { models: Number(models.n), folders: Number(folders.n) };
}

describe('creating models', () => {
  it('creates a batch with upload addresses in both shapes', async () => {
    await t.api('/v2/folders', { method: 'POST', token: editor, json: { name: 'Brackets' } });
    const response = await post([
      { filePath: 'Brackets/L-bracket.STEP', name: 'L bracket' },
      { filePath: 'brackets/angle.stl', name: '' },
    ]);
    expect(response.status).toBe(201);
    const entries = createModelsResponseSchema.parse(await response.json()).models;
    expect(entries).toHaveLength(2);
    const [first, second] = entries;
    expect(first?.model).toMatchObject({
      name: 'L bracket',
      filePath: 'Brackets/L-bracket.STEP',
      fileName: 'L-bracket.STEP',
      fileType: 'step',
      isAssembly: false,
      state: 'incomplete-upload',
      metadata: [],
      units: 'unknown',
      ownerId: expect.any(String),
    });
    expect(first?.model).not.toHaveProperty('thumbnail'); // a string or nothing, as published
    expect(second?.model).toMatchObject({ name: 'angle.stl', fileType: 'stl', folderId: first?.model.folderId });
    expect(first?.uploadUrl).toMatch(new RegExp(`^${t.baseUrl}/uploads/models/${first?.model.id}\\?expires=\\d+&sig=`));
    expect(first?.headers).toEqual({ 'Content-Type': 'application/octet-stream', 'X-Upload-Token': expect.stringMatching(/^[\w-]{32}$/) });
    expect(first?.headers['X-Upload-Token']).not.toBe(second?.headers['X-Upload-Token']);
  });

  it('applies every filePath rule, naming the item', async () => {
    const bad = [
      '',
      `Deep/${'x'.repeat(1020)}.stl`,
      `Deep/${'é'.repeat(510)}.stl`, // 1020 chars but 1025 bytes
      ...['\n', '\r', '*', ':', '"', '<', '>', '|', '#', '[', ']', '?', '\\'].map((c) => `Deep/a${c}b.stl`),
      'Deep/./a.stl',
      'Deep/../a.stl',
      'a.stl', // no folder
      'Deep/', // no file name
      'Deep//a.stl', // empty folder name
      `${'f'.repeat(101)}/a.stl`, // folder name too long
    ];
    for (const filePath of bad) {
      const e = await error(
        await post(
          [
            { filePath: 'Deep/fine.stl', name: 'ok' },
            { filePath, name: 'x' },
          ],
          { createMissingFolders: true },
        ),
        400,
      );
      expect(e.message, JSON.stringify(filePath)).toMatch(/^models\[1\]\.filePath: /);
    }
    expect((await post([{ filePath: `Deep/${'x'.repeat(1019)}`, name: 'max' }], { createMissingFolders: true })).status).toBe(201); // exactly 1024 bytes
    expect((await error(await post([{ filePath: 7, name: 'x' }]), 400)).message).toMatch(/^models\[0\]\.filePath/);
    expect((await error(await post([{ filePath: 'Deep/y.stl' }]), 400)).message).toMatch(/^models\[0\]\.name/);
    expect((await error(await t.api('/v2/models', { method: 'POST', token: editor, json: { items: [] } }), 400)).message).toMatch(
      /^models/,
    );
  });

  it('takes 1..100 models: 0 is a 400, 101 a 413', async () => {
    expect((await error(await post([]), 400)).message).toMatch(/at least one/);
    const many = Array.from({ length: 101 }, (_, i) => ({ filePath: `Many/m${i}.stl`, name: `m${i}` }));
    expect((await error(await post(many, { createMissingFolders: true }), 413)).code).toBe('too_large');
    expect((await post(many.slice(0, 100), { createMissingFolders: true })).status).toBe(201);
    expect((await list('?search=Many/&perPage=1')).pageData.total).toBe(100);
  });

  it('refuses duplicate paths in the batch and in the tenant (409 naming the path), any case', async () => {
    const [a] = await createModels([{ filePath: 'Dup/a.stl', name: 'a' }]);
    // With its file: a record still waiting for one would be taken over (next test).
    expect((await fetch(a!.uploadUrl, { method: 'PUT', headers: a!.headers, body: 'solid a\nendsolid a\n' })).status).toBe(200);
    const inBatch = await error(
      await post(
        [
          { filePath: 'Dup/b.stl', name: 'b' },
          { filePath: 'DUP/B.stl', name: 'b' },
        ],
        { createMissingFolders: true },
      ),
      409,
    );
    expect(inBatch.message).toContain('DUP/B.stl');
    const existing = await error(
      await post([
        { filePath: 'Dup/c.stl', name: 'c' },
        { filePath: 'dup/A.STL', name: 'a' },
      ]),
      409,
    );
    expect(existing.message).toContain('Dup/a.stl');
    expect((await list('?search=Dup/')).pageData.total).toBe(1); // neither batch left anything
  });

  it('needs existing folders unless createMissingFolders=true, and rejects whole batches', async () => {
    const before = await countRows();
    const missing = await error(
      await post([
        { filePath: 'Dup/ok.stl', name: 'ok' },
        { filePath: 'Nowhere/Deeper/x.stl', name: 'x' },
      ]),
      400,
    );
    expect(missing.message).toMatch(/models\[1\]\.filePath: the folder “Nowhere” does not exist/);
    expect(
      await error(await post([{ filePath: 'a/x.stl', name: 'x' }], { createMissingFolders: 'yes' as unknown as boolean }), 400),
    ).toMatchObject({ message: expect.stringMatching(/^createMissingFolders/) });
    expect(await countRows()).toEqual(before);

    // an unknown metadata key rejects everything, folders that would have been created included
    const unknownKey = await error(
      await post(
        [
          { filePath: 'Fresh/New/x.stl', name: 'x' },
          { filePath: 'Fresh/y.stl', name: 'y', metadata: [{ metadataKeyId: 999999, value: 'v' }] },
        ],
        { createMissingFolders: true },
      ),
      400,
    );
    expect(unknownKey.message).toMatch(/metadata key 999999/);
    expect(await countRows()).toEqual(before);

    const made = await createModels([
      { filePath: 'Fresh/New/x.stl', name: 'x' },
      { filePath: 'fresh/new/Deeper/y.stl', name: 'y' },
    ]);
    const folders = folderListResponseSchema.parse(
      await (await t.api('/v2/folders?search=e&perPage=100', { token: editor })).json(),
    ).folders;
    const deeper = folders.find((f) => f.path === 'Fresh/New/Deeper');
    expect(deeper?.id).toBe(made[1]?.model.folderId);
    expect(await countRows()).toEqual({ models: before.models + 2, folders: before.folders + 3 });
  });

  it('keeps writes to editors', async () => {
    expect((await error(await post([{ filePath: 'Brackets/v.stl', name: 'v' }], { token: viewer }), 403)).message).toMatch(/editor/);
    await error(await t.api('/v2/metadata-keys', { method: 'POST', token: viewer, json: { name: 'Nope' } }), 403);
    const [entry] = await createModels([{ filePath: 'Roles/r.stl', name: 'r' }]);
    const id = entry?.model.id ?? '';
    await error(await t.api(`/v2/models/${id}`, { method: 'DELETE', token: viewer }), 403);
    await error(await t.api(`/v2/models/${id}/reprocess`, { method: 'POST', token: viewer }), 403);
    await error(await t.api(`/v2/models/${id}/metadata/1`, { method: 'PUT', token: viewer, json: { value: 'x' } }), 403);
    expect((await t.api(`/v2/models/${id}`, { token: viewer })).status).toBe(200);
  });
});

describe('metadata', () => {
  it('creates and lists keys, sets and removes values, filters by them', async () => {
    const make = async (name: string) => {
      const response = await t.api('/v2/metadata-keys', { method: 'POST', token: editor, json: { name } });
      expect(response.status).toBe(201);
      return metadataKeyResponseSchema.parse(await response.json()).metadataKey;
    };
    const material = await make('Material');
    const supplier = await make('Supplier');
    await error(await t.api('/v2/metadata-keys', { method: 'POST', token: editor, json: { name: 'material' } }), 409);
    await error(await t.api('/v2/metadata-keys', { method: 'POST', token: editor, json: { name: ' ' } }), 400);
    const keys = metadataKeyListResponseSchema.parse(await (await t.api('/v2/metadata-keys', { token: viewer })).json());
    expect(keys.metadataKeys).toEqual([material, supplier]);
    expect(keys.pageData.total).toBe(2);

    const [brass, steel] = await createModels([
      { filePath: 'Meta/brass.stl', name: 'brass', metadata: [{ metadataKeyId: material.id, value: 'Brass' }] },
      {
        filePath: 'Meta/steel.stl',
        name: 'steel',
        metadata: [
          { metadataKeyId: material.id, value: 'Steel' },
          { metadataKeyId: supplier.id, value: 'ACME' },
        ],
      },
    ]);
    const entry = (modelId: string | undefined, key: { id: number; name: string }, value: string) => ({
      modelId,
      metadataKeyId: key.id,
      name: key.name,
      value,
    });
    expect(steel?.model.metadata).toEqual([entry(steel?.model.id, material, 'Steel'), entry(steel?.model.id, supplier, 'ACME')]);
    const brassId = brass?.model.id ?? '';

    const put = await t.api(`/v2/models/${brassId}/metadata/${supplier.id}`, { method: 'PUT', token: editor, json: { value: 'Globex' } });
    expect(put.status).toBe(200);
    const putBody = (await put.json()) as { metadata: unknown };
    expect(modelResponseSchema.parse(putBody).model.metadata).toEqual([
      entry(brassId, material, 'Brass'),
      entry(brassId, supplier, 'Globex'),
    ]);
    expect(putBody.metadata).toEqual(entry(brassId, supplier, 'Globex'));
    const listed = (await (await t.api(`/v2/models/${brassId}/metadata`, { token: viewer })).json()) as {
      metadata: unknown[];
      pageData: { total: number };
    };
    expect(listed).toMatchObject({
      metadata: [entry(brassId, material, 'Brass'), entry(brassId, supplier, 'Globex')],
      pageData: { total: 2 },
    });
    const byMeta = await list(`?filter=metadata.${material.id}(eq('Brass'))`);
    expect(byMeta.models.map((m) => m.name)).toEqual(['brass']);
    const removed = await t.api(`/v2/models/${brassId}/metadata/${supplier.id}`, { method: 'DELETE', token: editor });
    expect({ status: removed.status, body: await removed.json() }).toEqual({ status: 200, body: { deleted: true } });
    await error(await t.api(`/v2/models/${brassId}/metadata/${supplier.id}`, { method: 'DELETE', token: editor }), 404);
    await error(await t.api(`/v2/models/${brassId}/metadata/999999`, { method: 'PUT', token: editor, json: { value: 'x' } }), 404);
    await error(await t.api(`/v2/models/${brassId}/metadata/${supplier.id}`, { method: 'PUT', token: editor, json: {} }), 400);

    // another tenant sees none of it
    await error(await t.api(`/v2/models/${brassId}/metadata/${supplier.id}`, { method: 'PUT', token: other, json: { value: 'x' } }), 404);
    const theirKeys = metadataKeyListResponseSchema.parse(await (await t.api('/v2/metadata-keys', { token: other })).json());
    expect(theirKeys.pageData.total).toBe(0);
    await error(
      await post([{ filePath: 'X/x.stl', name: 'x', metadata: [{ metadataKeyId: material.id, value: 'v' }] }], {
        token: other,
        createMissingFolders: true,
      }),
      400,
    );
    // a tenant may have a key of the same name
    expect((await t.api('/v2/metadata-keys', { method: 'POST', token: other, json: { name: 'Material' } })).status).toBe(201);
  });
});

describe('listing models', () => {
  let models: Model[];
  let keyId: number;

  beforeAll(async () => {
    const key = await t.api('/v2/metadata-keys', { method: 'POST', token: editor, json: { name: 'Finish' } });
    keyId = metadataKeyResponseSchema.parse(await key.json()).metadataKey.id;
    const entries = await createModels([
      { filePath: 'Catalog/Gears/spur.step', name: 'Spur gear', metadata: [{ metadataKeyId: keyId, value: 'Anodised' }] },
      { filePath: 'Catalog/Gears/helical.STEP', name: 'Helical gear', metadata: [{ metadataKeyId: keyId, value: "O'Brien" }] },
      { filePath: 'Catalog/Shafts/shaft.stl', name: 'Shaft' },
      { filePath: 'Catalog/Shafts/key_50%.obj', name: 'Key 50%' },
      { filePath: 'Catalog/asm.step', name: 'Gearbox' },
    ]);
    models = entries.map((e) => e.model);
    // give them distinct states and one assembly, as ingestion would
    await new ModelLifecycle(t.db, undefined).complete(models[4]?.id ?? '', 0, {
      state: 'finished-incomplete',
      isAssembly: true,
      missingParts: ['bolt.step'],
      partCount: 3,
    });
    await new ModelLifecycle(t.db, undefined).complete(models[2]?.id ?? '', 0, { state: 'failed', stateReason: 'The file is empty.' });
  });

  it('gets one model; unknown, malformed and foreign ids are 404', async () => {
    const one = await t.api(`/v2/models/${models[4]?.id}`, { token: viewer });
    expect(modelResponseSchema.parse(await one.json()).model).toMatchObject({
      name: 'Gearbox',
      state: 'finished-incomplete',
      isAssembly: true,
      missingParts: ['bolt.step'],
      partCount: 3,
      fileSize: null, // registered, never uploaded
    });
    await error(await t.api('/v2/models/00000000-0000-4000-8000-000000000000', { token: viewer }), 404);
    await error(await t.api('/v2/models/not-a-uuid', { token: viewer }), 404);
    await error(await t.api(`/v2/models/${models[4]?.id}`, { token: other }), 404);
  });

  it('searches name and filePath, orders with a stable tiebreak, pages', async () => {
    expect((await list('?search=GEAR&order=name')).models.map((m) => m.name)).toEqual(['Gearbox', 'Helical gear', 'Spur gear']);
    expect((await list('?search=shafts/')).models.map((m) => m.name).sort()).toEqual(['Key 50%', 'Shaft']);
    expect((await list('?search=50%25')).models.map((m) => m.name)).toEqual(['Key 50%']);
    expect((await list('?search=Ke_')).models).toEqual([]); // _ is no wildcard
    const ids = models.map((m) => m.id).join(',');
    const byState = await list(`?filter=id(in(${ids}))&order=-state,name`);
    expect(byState.models.map((m) => m.state)).toEqual([
      'incomplete-upload',
      'incomplete-upload',
      'incomplete-upload',
      'finished-incomplete',
      'failed',
    ]);
    expect(byState.models.slice(0, 3).map((m) => m.name)).toEqual(['Helical gear', 'Key 50%', 'Spur gear']);
    const page2 = await list(`?filter=id(in(${ids}))&order=createdAt&perPage=2&page=2`);
    expect(page2.pageData).toEqual({ total: 5, perPage: 2, currentPage: 2, lastPage: 3, startIndex: 2, endIndex: 4 });
    // same createdAt order across pages: no model twice, none lost
    const pages = await Promise.all([1, 2, 3].map((p) => list(`?filter=id(in(${ids}))&order=state&perPage=2&page=${p}`)));
    expect(new Set(pages.flatMap((p) => p.models.map((m) => m.id))).size).toBe(5);
  });

  it('answers the polling request for many ids in one go', async () => {
    const polled = await list(
      `?filter=id(in(${models.map((m) => m.id).join(',')},00000000-0000-4000-8000-000000000000,nonsense))&perPage=100`,
    );
    expect(polled.models.map((m) => m.id).sort()).toEqual(models.map((m) => m.id).sort());
    const foreign = await list(`?filter=id(in(${models.map((m) => m.id).join(',')}))&perPage=100`, other);
    expect(foreign).toMatchObject({ models: [], pageData: { total: 0 } });
  });

  it('filters exactly as the contract evaluator does', async () => {
    const all = (await list(`?filter=id(in(${models.map((m) => m.id).join(',')}))&perPage=100`)).models;
    const f = models[0]?.folderId ?? 0;
    const created = models[2]?.createdAt ?? '';
    const filters = [
      `folderId(eq(${f}))`,
      `folderId(ne(${f}))`,
      `folderId(in(${f},abc))`,
      `folderId(between(0,${f}))`,
      'folderId(gt(abc))',
      "name(like('*GEAR'))",
      "name(not(like('*gear*')))",
      'name(gte(Key)),name(lt(Spur))',
      "name(eq('Key 50%'))",
      'state(in(finished,finished-incomplete))',
      'state(ne(failed))',
      'fileType(eq(step))',
      'fileType(not(in(step,stl)))',
      'isAssembly(eq(true))',
      'isAssembly(ne(true))',
      'isAssembly(eq(maybe))',
      'isAssembly(ne(maybe))',
      `createdAt(lte('${created}'))`,
      `createdAt(gt('${created}'))`,
      'createdAt(gt(2000-01-01))',
      `createdAt(eq('${created}'))`,
      `metadata.${keyId}(eq(Anodised))`,
      `metadata.${keyId}(ne(Anodised))`,
      `metadata.${keyId}(not(eq(Anodised)))`,
      `metadata.${keyId}(eq('O''Brien'))`,
      `metadata.${keyId}(like('*i*'))`,
      `metadata.${keyId}(in(Anodised,x))`,
      `metadata.999999(ne(x))`,
      `metadata.${keyId}(not(not(like('a*'))))`,
      `id(eq(${models[1]?.id}))`,
      `id(ne(${models[1]?.id}))`,
      'id(eq(garbage))',
    ];
    for (const filter of filters) {
      const clauses = parseFilter(filter, { fields: modelFilterFields, allowMetadata: true });
      const expected = all
        .filter((m) => evaluateFilter(clauses, m))
        .map((m) => m.id)
        .sort();
      const got = await list(`?filter=${encodeURIComponent(`${filter},id(in(${models.map((m) => m.id).join(',')}))`)}&perPage=100`);
      expect(got.models.map((m) => m.id).sort(), filter).toEqual(expected);
    }
  });

  it('points at the offending character of a malformed filter or order', async () => {
    const bad = await error(await t.api(`/v2/models?filter=${encodeURIComponent("name(eq('x)")}`, { token: viewer }), 400);
    expect(bad).toMatchObject({ parameter: 'filter', position: 8 });
    expect(bad.message).toMatch(/unterminated string at character 8/);
    expect(await error(await t.api('/v2/models?filter=state(eq(a)', { token: viewer }), 400)).toMatchObject({ position: 11 });
    expect(await error(await t.api('/v2/models?order=name,-size', { token: viewer }), 400)).toMatchObject({
      parameter: 'order',
      position: 6,
    });
    expect(await error(await t.api('/v2/models?perPage=0', { token: viewer }), 400)).toMatchObject({ code: 'invalid_input' });
  });
});

describe('model lifecycle', () => {
  it('reprocesses only models with a file, and queues them', async () => {
    const [entry] = await createModels([{ filePath: 'Life/part.stl', name: 'part' }]);
    const id = entry?.model.id ?? '';
    expect((await error(await t.api(`/v2/models/${id}/reprocess`, { method: 'POST', token: editor }), 409)).message).toMatch(/no file/);
    await upload(entry!, 'solid x\nendsolid x\n');
    expect(enqueued).toContainEqual({ modelId: id, reason: 'uploaded' });
    const before = await t.db.selectFrom('models').select('version').where('id', '=', id).executeTakeFirstOrThrow();
    const response = await t.api(`/v2/models/${id}/reprocess`, { method: 'POST', token: editor });
    expect(response.status).toBe(200);
    expect(modelResponseSchema.parse(await response.json()).model.state).toBe('processing');
    expect(enqueued).toContainEqual({ modelId: id, reason: 'reprocess' });
    const after = await t.db.selectFrom('models').select('version').where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.version).toBe(before.version + 1);
    // a worker result for the old version is dropped
    expect(await new ModelLifecycle(t.db, undefined).complete(id, before.version, { state: 'finished' })).toBe(false);
    await error(await t.api(`/v2/models/${id}/reprocess`, { method: 'POST', token: other }), 404);
  });

  it('serves viewer file and thumbnail through short-lived signed addresses once processed', async () => {
    const [entry] = await createModels([{ filePath: 'Life/viewed.stl', name: 'viewed' }]);
    const id = entry?.model.id ?? '';
    await upload(entry!, 'solid y\nendsolid y\n');
    await error(await t.api(`/v2/models/${id}/viewer-file`, { token: viewer }), 404);

    const row = await t.db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const prefix = `t/${row.tenant_id}/models/${id}/`;
    await t.service.blobStore.put(`${prefix}derived-v1/viewer.glb`, new TextEncoder().encode('glTF-bytes'));
    await t.service.blobStore.put(`${prefix}derived-v1/thumbnail.png`, new TextEncoder().encode('png-bytes'));
    expect(
      await new ModelLifecycle(t.db, undefined).complete(id, row.version, {
        state: 'finished',
        viewerKey: `${prefix}derived-v1/viewer.glb`,
        thumbnailKey: `${prefix}derived-v1/thumbnail.png`,
      }),
    ).toBe(true);

    const viewerFile = viewerFileResponseSchema.parse(
      await (await t.api(`/v2/models/${id}/viewer-file`, { token: viewer })).json(),
    ).viewerFile;
    expect(viewerFile).toMatch(new RegExp(`^${t.baseUrl}/files/models/${id}/viewer\\.glb\\?v=\\d+&expires=\\d+&sig=`));
    const glb = await fetch(viewerFile);
    expect(glb.status).toBe(200);
    expect(glb.headers.get('content-type')).toBe('model/gltf-binary');
    expect(glb.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(await glb.text()).toBe('glTF-bytes');
    // the same address again (cacheable), and no bearer token needed
    expect(viewerFileResponseSchema.parse(await (await t.api(`/v2/models/${id}/viewer-file`, { token: viewer })).json()).viewerFile).toBe(
      viewerFile,
    );

    const model = modelResponseSchema.parse(await (await t.api(`/v2/models/${id}`, { token: viewer })).json()).model;
    expect(model.thumbnail).toMatch(/\/thumbnail\.png\?/);
    // the model carries the same viewer address, so lists of previews need no request per model
    expect(model.viewerFile).toBe(viewerFile);
    expect(await (await fetch(model.thumbnail ?? '')).text()).toBe('png-bytes');

    const forged = viewerFile.replace(/sig=./, (s) => (s.endsWith('A') ? 'sig=B' : 'sig=A'));
    await error(await fetch(forged), 403);
    await error(await fetch(viewerFile.replace('viewer.glb', 'thumbnail.png')), 403);
    await error(await fetch(viewerFile.replace(/expires=\d+/, 'expires=99999999999')), 403);
    await error(await t.api(`/v2/models/${id}/viewer-file`, { token: other }), 404);
  });

  it('answers an assembly tree, empty for models without one', async () => {
    const [asm, part] = await createModels([
      { filePath: 'Tree/asm.step', name: 'asm' },
      { filePath: 'Tree/bolt.step', name: 'bolt' },
    ]);
    const asmId = asm?.model.id ?? '';
    const partId = part?.model.id ?? '';
    const empty = assemblyTreeResponseSchema.parse(await (await t.api(`/v2/models/${partId}/assembly-tree`, { token: viewer })).json());
    expect(empty).toEqual({ type: 'assemblyTree', modelId: partId, children: [] });

    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    await new ModelLifecycle(t.db, undefined).complete(asmId, 0, {
      state: 'finished-incomplete',
      isAssembly: true,
      assemblyTree: {
        type: 'assemblyTree',
        modelId: asmId,
        children: [
          { type: 'part', modelId: null, name: 'BOLT.step', transform: identity },
          {
            type: 'subAssembly',
            modelId: null,
            name: 'sub',
            transform: identity,
            children: [{ type: 'part', modelId: null, name: 'nut.step', transform: identity, missing: true }],
          },
        ],
      },
    });
    await setAssemblyLinks(t.db, asmId, [
      { refName: 'bolt.step', partId },
      { refName: 'nut.step', partId: null },
    ]);
    const tree = assemblyTreeResponseSchema.parse(await (await t.api(`/v2/models/${asmId}/assembly-tree`, { token: viewer })).json());
    expect(tree.children[0]).toMatchObject({ type: 'assemblyPart', modelId: partId, name: 'BOLT.step', occurrences: 1 });
    // A missing part file: an empty model id (the published schema wants a string).
    expect(tree.children[1]?.children?.[0]).toMatchObject({ type: 'assemblyPart', modelId: '', name: 'nut.step' });
    await error(await t.api(`/v2/models/${asmId}/assembly-tree`, { token: other }), 404);
  });

  it('deletes a model with its files; other tenants cannot', async () => {
    const [entry] = await createModels([{ filePath: 'Life/doomed.stl', name: 'doomed' }]);
    const id = entry?.model.id ?? '';
    await upload(entry!, 'solid z\nendsolid z\n');
    const row = await t.db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const dir = path.join(t.dataDir, 'blobs', 't', String(row.tenant_id), 'models', id);
    expect(await fs.readdir(dir)).toEqual(['source']);

    await error(await t.api(`/v2/models/${id}`, { method: 'DELETE', token: other }), 404);
    expect((await t.api(`/v2/models/${id}`, { method: 'DELETE', token: editor })).status).toBe(204);
    await expect(fs.stat(dir)).rejects.toThrow();
    await error(await t.api(`/v2/models/${id}`, { token: editor }), 404);
    await error(await t.api(`/v2/models/${id}`, { method: 'DELETE', token: editor }), 404);
    expect(await t.db.selectFrom('uploads').select('model_id').where('model_id', '=', id).execute()).toEqual([]);
    // the upload address dies with the model
    await error(await fetch(entry!.uploadUrl, { method: 'PUT', headers: entry!.headers, body: 'again' }), 404);
  });

  it('stands a model on its format’s axis (z for STEP and STL, y for glTF and OBJ) unless an editor chooses another, which draws it again', async () => {
    const [step, obj, stl] = await createModels([
      { filePath: 'Axes/bracket.step', name: 'bracket' },
      { filePath: 'Axes/figure.obj', name: 'figure' },
      { filePath: 'Axes/part.stl', name: 'part' },
    ]);
    expect([step!.model.upAxis, obj!.model.upAxis, stl!.model.upAxis]).toEqual(['z', 'y', 'z']);
    await upload(stl!, 'solid p\nendsolid p\n');
    const stand = (upAxis: unknown, token = editor, id = stl!.model.id) =>
      t.api(`/v2/models/${id}`, { method: 'PATCH', token, json: { upAxis } });
    const before = enqueued.filter((e) => e.modelId === stl!.model.id).length;
    const turned = await stand('y');
    expect(turned.status, await turned.clone().text()).toBe(200);
    expect(((await turned.json()) as { model: unknown }).model).toMatchObject({ id: stl!.model.id, upAxis: 'y', state: 'processing' });
    // Processed again, for its thumbnail; choosing the same axis again changes nothing.
    expect(enqueued.filter((e) => e.modelId === stl!.model.id).length).toBe(before + 1);
    expect((await stand('y')).status).toBe(200);
    expect(enqueued.filter((e) => e.modelId === stl!.model.id).length).toBe(before + 1);
    expect(
      ((await (await t.api(`/v2/models/${stl!.model.id}`, { token: editor })).json()) as { model: { upAxis: string } }).model.upAxis,
    ).toBe('y');
    await error(await stand('x'), 400);
    await error(await t.api(`/v2/models/${stl!.model.id}`, { method: 'PATCH', token: editor, json: {} }), 400);
    await error(await stand('z', viewer), 403);
    await error(await stand('z', other), 404);
  });

  it('moves a model to another folder, keeping its file name; refuses taken paths, unknown folders, viewers and other tenants', async () => {
    const [mover, blocker] = await createModels([
      { filePath: 'Moves/From/bracket.stl', name: 'bracket' },
      { filePath: 'Moves/Taken/bracket.stl', name: 'other bracket' },
    ]);
    await createModels([{ filePath: 'Moves/To/x.stl', name: 'x' }]);
    const folders = folderListResponseSchema.parse(await (await t.api('/v2/folders?perPage=100', { token: editor })).json()).folders;
    const to = folders.find((f) => f.path === 'Moves/To')!;
    const taken = folders.find((f) => f.path === 'Moves/Taken')!;
    const move = (folderId: unknown, token = editor, id = mover!.model.id) =>
      t.api(`/v2/models/${id}`, { method: 'PATCH', token, json: { folderId } });

    const moved = await move(to.id);
    expect(moved.status, await moved.clone().text()).toBe(200);
    expect(((await moved.json()) as { model: unknown }).model).toMatchObject({
      id: mover!.model.id,
      folderId: to.id,
      filePath: 'Moves/To/bracket.stl',
    });
    expect((await error(await move(taken.id), 409)).message).toContain('Moves/Taken/bracket.stl');
    await error(await move(999999), 400);
    await error(await move('x'), 400);
    await error(await move(to.id, viewer), 403);
    await error(await move(to.id, other), 404);
    expect(blocker?.model.filePath).toBe('Moves/Taken/bracket.stl');
  });
});
