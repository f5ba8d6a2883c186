// Direct uploads against a real S3-compatible server (s3rver from the npm registry, on loopback):
// presigned PUTs with the returned headers, the size limit, completion, deletion of every object.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelsResponseSchema, modelListResponseSchema, modelResponseSchema } from '../../contract/models';
import { recordingQueue } from '../testing/api-expect';
import { startTestService, type TestService } from '../testing/start-test-service';
import { S3BlobStore } from './s3-blob-store';

let t: TestService;
let root: string;
let server: S3rver;
let store: S3BlobStore;
let editor: string;
const { queue, ids: enqueued } = recordingQueue();

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-s3-'));
  server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: root,
    configureBuckets: [{ name: 'models', configs: [] }],
  });
  const { port } = (await server.run()) as unknown as { port: number };
  store = new S3BlobStore({
    bucket: 'models',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  t = await startTestService({ blobStore: store, ingestQueue: queue, uploadMaxBytes: 100 });
  editor = await t.editorToken();
});
afterAll(async () => {
  await t?.stop();
  await server?.close();
  await fs.rm(root, { recursive: true, force: true });
});

async function create(names: string[]) {
  const response = await t.api('/v2/models?createMissingFolders=true', {
    method: 'POST',
    token: editor,
    json: { models: names.map((n) => ({ filePath: `Direct/${n}`, name: n })) },
  });
  expect(response.status).toBe(201);
  return createModelsResponseSchema.parse(await response.json()).models;
}

/** The client's upload, as the interface says: PUT the file to the address with every header given. */
const put = (entry: { uploadUrl: string; headers: Record<string, string> }, body: Uint8Array) =>
  fetch(entry.uploadUrl, { method: 'PUT', headers: entry.headers, body: new Uint8Array(body) });

async function sourceKey(id: string) {
  const row = await t.db.selectFrom('models').select('tenant_id').where('id', '=', id).executeTakeFirstOrThrow();
  return `t/${row.tenant_id}/models/${id}/source`;
}

describe('direct uploads to an S3-compatible server', () => {
  it('hands out a presigned PUT (no checksum of an empty body in it) and notices the file on the next read', async () => {
    const [a, b] = await create(['a.stl', 'b.stl']);
    const aId = a?.model.id ?? '';
    const bId = b?.model.id ?? '';
    expect(a?.uploadUrl).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/models/${(await sourceKey(aId)).replace(/\//g, '\\/')}\\?X-Amz-Algorithm=AWS4-HMAC-SHA256`),
    );
    expect(a?.uploadUrl).not.toMatch(/checksum/i);
    expect(a?.headers).toEqual({ 'Content-Type': 'application/octet-stream' });

    // not there yet: the client's completion call is a 409, the state stays
    expect((await t.api(`/v2/models/${aId}/upload-complete`, { method: 'POST', token: editor })).status).toBe(409);

    expect((await put(a!, new TextEncoder().encode('solid a\nendsolid a\n'))).status).toBe(200);
    expect((await put(b!, new TextEncoder().encode('solid b\nendsolid b\n'))).status).toBe(200);
    // the polling list sees both
    const polled = modelListResponseSchema.parse(
      await (await t.api(`/v2/models?filter=id(in(${aId},${bId}))&perPage=100`, { token: editor })).json(),
    );
    expect(polled.models.map((m) => m.state)).toEqual(['processing', 'processing']);
    expect(enqueued().filter((id) => id === aId || id === bId)).toHaveLength(2);
    const row = await t.db.selectFrom('models').selectAll().where('id', '=', aId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ blob_key: await sourceKey(aId), size_bytes: '19', version: 1 });
    expect(new TextDecoder().decode(await store.get(await sourceKey(aId)))).toBe('solid a\nendsolid a\n');
    // noticed once only
    await t.api(`/v2/models/${aId}`, { token: editor });
    expect(enqueued().filter((id) => id === aId)).toHaveLength(1);
  });

  it('takes an explicit completion call, fails files over the limit (and deletes them), deletes every object with the model', async () => {
    const [c, big] = await create(['c.stl', 'big.stl']);
    expect((await put(c!, new TextEncoder().encode('solid c'))).status).toBe(200);
    const done = await t.api(`/v2/models/${c?.model.id}/upload-complete`, { method: 'POST', token: editor });
    expect(done.status).toBe(200);
    expect(modelResponseSchema.parse(await done.json()).model.state).toBe('processing');

    expect((await put(big!, new Uint8Array(101))).status).toBe(200);
    const got = modelResponseSchema.parse(await (await t.api(`/v2/models/${big?.model.id}`, { token: editor })).json()).model;
    expect(got).toMatchObject({ state: 'failed', stateReason: expect.stringMatching(/limit/) });
    expect(await store.exists(await sourceKey(big?.model.id ?? ''))).toBe(false);

    // The source file of a download address comes from the bucket.
    const source = (await (await t.api(`/v2/models/${c?.model.id}/source-file`, { token: editor })).json()) as { sourceFile: string };
    expect(await (await fetch(source.sourceFile)).text()).toBe('solid c');

    const cKey = await sourceKey(c?.model.id ?? '');
    expect((await t.api(`/v2/models/${c?.model.id}`, { method: 'DELETE', token: editor })).status).toBe(204);
    expect(await store.exists(cKey)).toBe(false);
  });
});
