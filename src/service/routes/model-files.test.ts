import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelsResponseSchema, modelResponseSchema } from '../../contract/models';
import { expectApiError as expectError, recordingQueue } from '../testing/api-expect';
import { startTestService, type TestService } from '../testing/start-test-service';
import { claimUpload, releaseAbandonedClaims, renewUploadClaim, UPLOAD_CLAIM_LEASE_MS } from '../store/uploads';
import { createUrlSigner } from '../files/signed-urls';

const LIMIT = 64 * 1024;
let t: TestService;
let editor: string;
const { queue, ids: enqueued } = recordingQueue();

beforeAll(async () => {
  t = await startTestService({ uploadMaxBytes: LIMIT, ingestQueue: queue });
  editor = await t.editorToken();
});
afterAll(() => t?.stop());

let counter = 0;
async function newModel() {
  counter += 1;
  const response = await t.api('/v2/models?createMissingFolders=true', {
    method: 'POST',
    token: editor,
    json: { models: [{ filePath: `Uploads/part-${counter}.stl`, name: `part ${counter}` }] },
  });
  expect(response.status).toBe(201);
  const [entry] = createModelsResponseSchema.parse(await response.json()).models;
  if (!entry) throw new Error('no model');
  return entry;
}

async function stateOf(id: string) {
  return modelResponseSchema.parse(await (await t.api(`/v2/models/${id}`, { token: editor })).json()).model.state;
}

async function storedFiles(id: string): Promise<string[]> {
  const row = await t.db.selectFrom('models').select('tenant_id').where('id', '=', id).executeTakeFirstOrThrow();
  try {
    return await fs.readdir(path.join(t.dataDir, 'blobs', 't', String(row.tenant_id), 'models', id));
  } catch {
    return [];
  }
}

/** Nothing stored, model still waiting for its file. */
async function expectNothingStored(id: string) {
  expect(await storedFiles(id)).toEqual([]);
  expect(await stateOf(id)).toBe('incomplete-upload');
  expect(enqueued()).not.toContain(id);
}

const put = (url: string, headers: Record<string, string>, body: BodyInit) => fetch(url, { method: 'PUT', headers, body });

describe('signed upload addresses', () => {
  it('stores the file atomically, marks the model processing and queues it; no bearer token needed', async () => {
    const entry = await newModel();
    const content = 'solid cube\n'.repeat(1000);
    const response = await put(entry.uploadUrl, entry.headers, content);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ modelId: entry.model.id, bytes: content.length, state: 'processing' });
    expect(await storedFiles(entry.model.id)).toEqual(['source']);
    const row = await t.db.selectFrom('models').selectAll().where('id', '=', entry.model.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'processing', size_bytes: String(content.length), version: 1 });
    expect(await t.service.blobStore.get(row.blob_key ?? '')).toEqual(new TextEncoder().encode(content));
    expect(enqueued()).toContain(entry.model.id);

    // single use
    await expectError(await put(entry.uploadUrl, entry.headers, 'again'), 409, /used already/);
    expect(await t.service.blobStore.get(row.blob_key ?? '')).toEqual(new TextEncoder().encode(content));
  });

  it('creating a path again while its model waits for its file gives the same record a fresh address; the old one stops working', async () => {
    const first = await newModel();
    const again = await t.api('/v2/models?createMissingFolders=true', {
      method: 'POST',
      token: editor,
      json: {
        models: [
          { filePath: first.model.filePath, name: 'dropped again' },
          { filePath: `Uploads/new-${counter}.stl`, name: 'new' },
        ],
      },
    });
    expect(again.status, await again.clone().text()).toBe(201);
    const [reused, added] = createModelsResponseSchema.parse(await again.json()).models;
    expect(reused?.model.id).toBe(first.model.id);
    expect(added?.model.filePath).toBe(`Uploads/new-${counter}.stl`);
    expect(reused?.uploadUrl).not.toBe(first.uploadUrl);
    await expectError(await put(first.uploadUrl, first.headers, 'solid old\n'), 403);
    await expectNothingStored(first.model.id);
    expect((await put(reused!.uploadUrl, reused!.headers, 'solid cube\n')).status).toBe(200);
    expect(await stateOf(first.model.id)).toBe('processing');

    // Once it has its file, the path is taken.
    const taken = await t.api('/v2/models?createMissingFolders=true', {
      method: 'POST',
      token: editor,
      json: { models: [{ filePath: first.model.filePath, name: 'x' }] },
    });
    await expectError(taken, 409, /already exists/);
  });

  it('refuses missing or changed headers with 403 and stores nothing', async () => {
    const entry = await newModel();
    const token = entry.headers['X-Upload-Token'] ?? '';
    await expectError(await put(entry.uploadUrl, { 'Content-Type': 'application/octet-stream' }, 'x'), 403, /headers/);
    await expectError(await put(entry.uploadUrl, { 'X-Upload-Token': token }, 'x'), 403); // fetch sends text/plain
    await expectError(await put(entry.uploadUrl, { 'X-Upload-Token': token }, new Uint8Array([1, 2])), 403); // no Content-Type at all
    await expectError(await put(entry.uploadUrl, { ...entry.headers, 'Content-Type': 'text/plain' }, 'x'), 403);
    // A changed first character (every bit of it counts; the last one of base64url carries padding,
    // and replacing it with "x" left the token as it was when it already ended in "x").
    await expectError(
      await put(entry.uploadUrl, { ...entry.headers, 'X-Upload-Token': `${token[0] === 'A' ? 'B' : 'A'}${token.slice(1)}` }, 'x'),
      403,
    );
    // another model's token with this model's address
    const second = await newModel();
    await expectError(await put(entry.uploadUrl, second.headers, 'x'), 403);
    await expectNothingStored(entry.model.id);
    // the address is still good afterwards
    expect((await put(entry.uploadUrl, entry.headers, 'fine')).status).toBe(200);
  });

  it('refuses a changed address (model id, expiry, signature, method) with 403', async () => {
    const entry = await newModel();
    const other = await newModel();
    const url = new URL(entry.uploadUrl);
    const swapped = entry.uploadUrl.replace(entry.model.id, other.model.id);
    await expectError(await put(swapped, entry.headers, 'x'), 403);
    await expectError(await put(swapped, other.headers, 'x'), 403);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    await expectError(await put(later.toString(), entry.headers, 'x'), 403);
    const noSig = new URL(url);
    noSig.searchParams.delete('sig');
    await expectError(await put(noSig.toString(), entry.headers, 'x'), 403);
    const badSig = new URL(url);
    badSig.searchParams.set('sig', 'A'.repeat(43));
    await expectError(await put(badSig.toString(), entry.headers, 'x'), 403);
    expect((await fetch(entry.uploadUrl, { method: 'POST', headers: entry.headers, body: 'x' })).status).toBe(404);
    await expectNothingStored(entry.model.id);
    await expectNothingStored(other.model.id);
  });

  it('refuses an expired address with 403', async () => {
    const entry = await newModel();
    const signer = createUrlSigner({ publicUrl: t.baseUrl, keys: t.service.keys.urlSigningKeys });
    const token = entry.headers['X-Upload-Token'] ?? '';
    const expired = signer.uploadAddress(entry.model.id, token, new Date(Date.now() - 1000));
    await expectError(await put(expired.url, expired.headers, 'x'), 403, /expired/);
    // the same signer with the clock before the expiry accepts it: only time made the difference
    const fresh = signer.uploadAddress(entry.model.id, token, new Date(Date.now() + 60_000));
    const pastSigner = createUrlSigner({ publicUrl: t.baseUrl, keys: t.service.keys.urlSigningKeys, now: () => Date.now() - 120_000 });
    const q = new URL(expired.url).searchParams;
    expect(
      pastSigner.verifyUpload({
        modelId: entry.model.id,
        expires: q.get('expires') ?? '',
        sig: q.get('sig') ?? '',
        contentType: 'application/octet-stream',
        uploadToken: token,
      }),
    ).toEqual({ ok: true });
    await expectNothingStored(entry.model.id);
    expect((await put(fresh.url, fresh.headers, 'x')).status).toBe(200);
  });

  it('refuses files over the limit with 413, by Content-Length and while streaming, storing nothing', async () => {
    const entry = await newModel();
    const big = new Uint8Array(LIMIT + 1).fill(65);
    await expectError(await put(entry.uploadUrl, entry.headers, big), 413, /limit/);
    await expectNothingStored(entry.model.id);

    // no Content-Length: a chunked body is counted as it arrives
    const chunks = [new Uint8Array(LIMIT / 2), new Uint8Array(LIMIT / 2), new Uint8Array(1024)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const chunked = await fetch(entry.uploadUrl, { method: 'PUT', headers: entry.headers, body: stream, duplex: 'half' } as RequestInit);
    await expectError(chunked, 413);
    await expectNothingStored(entry.model.id);
    const dir = await fs.readdir(path.join(t.dataDir, 'blobs'), { recursive: true });
    expect(dir.filter((f) => f.includes('.tmp-'))).toEqual([]);

    // exactly at the limit is fine, and the address was not used up by the failures
    expect((await put(entry.uploadUrl, entry.headers, new Uint8Array(LIMIT))).status).toBe(200);
    expect(await stateOf(entry.model.id)).toBe('processing');
  });

  it('answers a body declared far over the limit with 413 before reading it, and the client always reads that answer', async () => {
    const entry = await newModel();
    const declared = 6 * 1024 * 1024;
    const body = Buffer.alloc(declared, 65);
    /** A PUT with a real HTTP client: the status and body it read, or the error it got instead. */
    const putOnce = () =>
      new Promise<{ status?: number; body?: string; error?: string }>((resolve) => {
        const request = http.request(entry.uploadUrl, {
          method: 'PUT',
          headers: { ...entry.headers, 'content-length': String(declared) },
          agent: false,
        });
        let answered = false;
        request.on('response', (response) => {
          answered = true;
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
          response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: `answer cut: ${error.code ?? error.message}` }));
        });
        request.on('error', (error: NodeJS.ErrnoException) => {
          if (!answered) resolve({ error: error.code ?? error.message });
        });
        request.end(body);
      });
    // The connection used to be cut while the client was still writing, about one run in two.
    for (let run = 0; run < 20; run += 1) {
      const result = await putOnce();
      expect(result.error, `run ${run}`).toBeUndefined();
      expect(result.status, `run ${run}`).toBe(413);
      expect(JSON.parse(result.body ?? '')).toEqual({
        error: { code: 'too_large', message: `The file is larger than the ${LIMIT}-byte limit.` },
      });
    }
    await expectNothingStored(entry.model.id);
  });

  it('keeps what arrived of a dropped upload: HEAD says how far, the rest comes with Content-Range, and the file is whole', async () => {
    const entry = await newModel();
    const content = new Uint8Array(48 * 1024).map((_, i) => (i * 7) % 251);
    const half = 20 * 1024;
    const offset = async () => {
      const head = await fetch(entry.uploadUrl, { method: 'HEAD', headers: entry.headers });
      expect(head.status).toBe(200);
      return Number(head.headers.get('upload-offset'));
    };
    expect(await offset()).toBe(0);

    // The first part arrives, then the connection drops.
    const request = http.request(entry.uploadUrl, {
      method: 'PUT',
      headers: { ...entry.headers, 'content-length': String(content.length) },
    });
    request.on('error', () => {});
    request.write(content.subarray(0, half));
    for (let i = 0; i < 100 && (await offset()) < half; i++) await new Promise((r) => setTimeout(r, 50));
    request.destroy();
    expect(await offset()).toBe(half);
    expect(await stateOf(entry.model.id)).toBe('incomplete-upload');
    expect(enqueued()).not.toContain(entry.model.id);

    const rest = (from: number) =>
      put(
        entry.uploadUrl,
        { ...entry.headers, 'content-range': `bytes ${from}-${content.length - 1}/${content.length}` },
        content.subarray(from),
      );
    // The claim of the dropped request is given back as it ends; until then the address is busy.
    let wrong = await rest(half + 10);
    for (let i = 0; i < 40 && wrong.status === 409; i++) {
      await new Promise((r) => setTimeout(r, 50));
      wrong = await rest(half + 10);
    }
    await expectError(wrong, 416, /20480 bytes of this upload have arrived/);
    expect(wrong.headers.get('upload-offset')).toBe(String(half));
    await expectError(
      await put(
        entry.uploadUrl,
        { ...entry.headers, 'content-range': `bytes ${half}-${content.length - 2}/${content.length}` },
        content.subarray(half, -1),
      ),
      400,
      /running to the last byte/,
    );

    const done = await rest(half);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ modelId: entry.model.id, bytes: content.length, state: 'processing' });
    expect(await storedFiles(entry.model.id)).toEqual(['source']);
    const row = await t.db.selectFrom('models').selectAll().where('id', '=', entry.model.id).executeTakeFirstOrThrow();
    expect(Buffer.from(await t.service.blobStore.get(row.blob_key ?? '')).equals(Buffer.from(content))).toBe(true);
    expect(enqueued()).toContain(entry.model.id);
    await expectError(await rest(half), 409, /used already/);
  });

  it('streams bodies larger than the JSON body limit without buffering them in Fastify', async () => {
    const service = await startTestService({ uploadMaxBytes: 8 * 1024 * 1024 });
    try {
      const token = await service.editorToken();
      const response = await service.api('/v2/models?createMissingFolders=true', {
        method: 'POST',
        token,
        json: { models: [{ filePath: 'Big/big.stl', name: 'big' }] },
      });
      const [entry] = createModelsResponseSchema.parse(await response.json()).models;
      const body = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
      const upload = await fetch(entry?.uploadUrl ?? '', { method: 'PUT', headers: entry?.headers, body });
      expect(upload.status).toBe(200);
      const row = await service.db
        .selectFrom('models')
        .selectAll()
        .where('id', '=', entry?.model.id ?? '')
        .executeTakeFirstOrThrow();
      expect(Buffer.from(await service.service.blobStore.get(row.blob_key ?? '')).equals(Buffer.from(body))).toBe(true);
      // without an ingest queue nothing pretends to process it
      expect(row.state).toBe('processing');
    } finally {
      await service.stop();
    }
  });
});

describe('upload claims after a crash', () => {
  it('gives back a claim whose lease ran out while the model waits for its file; never a live or completed one', async () => {
    const [abandoned, live, done] = [await newModel(), await newModel(), await newModel()];
    expect((await put(done.uploadUrl, done.headers, 'solid done\n')).status).toBe(200);
    const longAgo = new Date(Date.now() - 2 * UPLOAD_CLAIM_LEASE_MS);
    // As a process that died mid-upload leaves it: claimed, renewed no more, nothing stored.
    expect(await claimUpload(t.db, abandoned.model.id, longAgo)).toBe(true);
    expect(await claimUpload(t.db, live.model.id, longAgo)).toBe(true);
    await renewUploadClaim(t.db, live.model.id);
    await t.db.updateTable('uploads').set({ used_at: longAgo }).where('model_id', '=', done.model.id).execute();
    await expectError(await put(abandoned.uploadUrl, abandoned.headers, 'solid x\n'), 409, /used already/);

    expect(await releaseAbandonedClaims(t.db, new Date(Date.now() - UPLOAD_CLAIM_LEASE_MS))).toBe(1);
    const content = 'solid again\n';
    expect((await put(abandoned.uploadUrl, abandoned.headers, content)).status).toBe(200);
    expect(await stateOf(abandoned.model.id)).toBe('processing');
    await expectError(await put(live.uploadUrl, live.headers, 'solid y\n'), 409, /used already/);
    await expectError(await put(done.uploadUrl, done.headers, 'solid z\n'), 409, /used already/);
  });
});
