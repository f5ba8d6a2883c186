import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelsResponseSchema, modelListResponseSchema, modelResponseSchema } from '../../contract/models';
import { recordingQueue } from '../testing/api-expect';
import { startTestService, type TestService } from '../testing/start-test-service';
import type { DirectUploadStore } from './blob-store';
import { LocalBlobStore } from './local-blob-store';

/**
 * The S3 flow without S3: a store that takes uploads directly (as a bucket does with presigned
 * PUTs), so the service only learns of a file by looking (HEAD). The "client upload" is a write
 * straight into the store, bypassing the service, as a PUT to S3 would.
 */
class DirectStore extends LocalBlobStore implements DirectUploadStore {
  async presignPut(key: string, { expiresInSeconds, contentType }: { expiresInSeconds: number; contentType: string }) {
    return { url: `https://bucket.example/${key}?X-Amz-Expires=${expiresInSeconds}`, headers: { 'Content-Type': contentType } };
  }

  async head(key: string) {
    const bytes = await this.size(key);
    return bytes === null ? null : { bytes };
  }
}

let t: TestService;
let root: string;
let store: DirectStore;
let editor: string;
const { queue, ids: enqueued } = recordingQueue();

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-direct-'));
  store = new DirectStore(root);
  t = await startTestService({ blobStore: store, ingestQueue: queue, uploadMaxBytes: 100 });
  editor = await t.editorToken();
});
afterAll(async () => {
  await t?.stop();
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

async function sourceKey(id: string) {
  const row = await t.db.selectFrom('models').select('tenant_id').where('id', '=', id).executeTakeFirstOrThrow();
  return `t/${row.tenant_id}/models/${id}/source`;
}

describe('direct (S3-style) uploads', () => {
  it('hands out the store’s presigned address and notices the file on the next read', async () => {
    const [a, b] = await create(['a.stl', 'b.stl']);
    const aId = a?.model.id ?? '';
    const bId = b?.model.id ?? '';
    expect(a?.uploadUrl).toBe(`https://bucket.example/${await sourceKey(aId)}?X-Amz-Expires=900`);
    expect(a?.headers).toEqual({ 'Content-Type': 'application/octet-stream' });

    // not there yet: the client's completion call is a 409, the state stays
    expect((await t.api(`/v2/models/${aId}/upload-complete`, { method: 'POST', token: editor })).status).toBe(409);

    await store.put(await sourceKey(aId), new TextEncoder().encode('solid a\nendsolid a\n'));
    await store.put(await sourceKey(bId), new TextEncoder().encode('solid b\nendsolid b\n'));
    // the polling list sees both
    const polled = modelListResponseSchema.parse(await (await t.api(`/v2/models?filter=id(in(${aId},${bId}))&perPage=100`, { token: editor })).json());
    expect(polled.models.map((m) => m.state)).toEqual(['processing', 'processing']);
    expect(enqueued().filter((id) => id === aId || id === bId)).toHaveLength(2);
    const row = await t.db.selectFrom('models').selectAll().where('id', '=', aId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ blob_key: await sourceKey(aId), size_bytes: '19', version: 1 });
    // noticed once only
    await t.api(`/v2/models/${aId}`, { token: editor });
    expect(enqueued().filter((id) => id === aId)).toHaveLength(1);
  });

  it('takes an explicit completion call, and fails files over the limit', async () => {
    const [c, big] = await create(['c.stl', 'big.stl']);
    await store.put(await sourceKey(c?.model.id ?? ''), new TextEncoder().encode('solid c'));
    const done = await t.api(`/v2/models/${c?.model.id}/upload-complete`, { method: 'POST', token: editor });
    expect(done.status).toBe(200);
    expect(modelResponseSchema.parse(await done.json()).model.state).toBe('processing');

    await store.put(await sourceKey(big?.model.id ?? ''), new Uint8Array(101));
    const got = modelResponseSchema.parse(await (await t.api(`/v2/models/${big?.model.id}`, { token: editor })).json()).model;
    expect(got).toMatchObject({ state: 'failed', stateReason: expect.stringMatching(/limit/) });
    expect(await store.exists(await sourceKey(big?.model.id ?? ''))).toBe(false);
  });
});
