import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobNotFoundError, BlobTooLargeError, isDirectUploadStore, modelBlobKeys } from './blob-store';
import { LocalBlobStore } from './local-blob-store';
import { S3BlobStore } from './s3-blob-store';
import { createUrlSigner } from './signed-urls';

describe('LocalBlobStore', () => {
  let root: string;
  let store: LocalBlobStore;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-blobs-'));
    store = new LocalBlobStore(root);
  });
  afterAll(() => fs.rm(root, { recursive: true, force: true }));

  it('writes, reads, streams, replaces and deletes', async () => {
    const keys = modelBlobKeys(1, '1b4e28ba-2fa1-41d2-883f-0016d3cca427');
    expect(await store.put(keys.source, new TextEncoder().encode('hello'))).toEqual({ bytes: 5 });
    expect(new TextDecoder().decode(await store.get(keys.source))).toBe('hello');
    expect(await store.put(keys.source, Readable.from([Buffer.from('new '), Buffer.from('content')]))).toEqual({ bytes: 11 });
    const chunks: Buffer[] = [];
    for await (const chunk of await store.stream(keys.source)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('new content');
    expect(await store.exists(keys.source)).toBe(true);
    await store.put(keys.viewer, new Uint8Array([1, 2, 3]));
    await store.deletePrefix(keys.prefix);
    expect(await store.exists(keys.source)).toBe(false);
    expect(await store.exists(keys.viewer)).toBe(false);
    await expect(store.get(keys.source)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.stream(keys.source)).rejects.toBeInstanceOf(BlobNotFoundError);
    await store.delete(keys.source); // deleting nothing is fine
  });

  it('keeps the old file when a write fails over the size limit, and leaves no temp file', async () => {
    await store.put('t/1/models/x/source', new TextEncoder().encode('old'));
    const big = Readable.from([Buffer.alloc(600), Buffer.alloc(600)]);
    await expect(store.put('t/1/models/x/source', big, { maxBytes: 1000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(new TextDecoder().decode(await store.get('t/1/models/x/source'))).toBe('old');
    expect(await fs.readdir(path.join(root, 't/1/models/x'))).toEqual(['source']);
  });

  it('refuses keys that could leave its directory', async () => {
    for (const key of ['../etc/passwd', 't/../../x', '/abs/path', 't//x', 't/./x', '.hidden', 't/x\\..\\y', '', 't/x y']) {
      await expect(store.put(key, new Uint8Array([1])), key).rejects.toThrow(/Invalid blob key/);
      await expect(store.get(key), key).rejects.toThrow(/Invalid blob key/);
    }
    await expect(store.deletePrefix('../')).rejects.toThrow(/Invalid blob key/);
    expect(isDirectUploadStore(store)).toBe(false);
  });
});

// No S3 server here: only what can be checked offline, the presigned address and its headers.
describe('S3BlobStore (offline: presigned address generation only)', () => {
  const store = new S3BlobStore({
    bucket: 'models',
    region: 'eu-west-1',
    endpoint: 'http://127.0.0.1:9000',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-example' },
  });

  it('presigns a 15-minute PUT that binds the Content-Type header', async () => {
    expect(isDirectUploadStore(store)).toBe(true);
    const { url, headers } = await store.presignPut('t/1/models/abc/source', {
      expiresInSeconds: 900,
      contentType: 'application/octet-stream',
    });
    const u = new URL(url);
    expect(`${u.origin}${u.pathname}`).toBe('http://127.0.0.1:9000/models/t/1/models/abc/source');
    expect(u.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(u.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(u.searchParams.get('X-Amz-Credential')).toMatch(/^AKIAEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(u.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['content-type', 'host']));
    expect(u.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(headers).toEqual({ 'Content-Type': 'application/octet-stream' });
    await expect(store.presignPut('../x', { expiresInSeconds: 900, contentType: 'x' })).rejects.toThrow(/Invalid blob key/);
  });
});

describe('signed service addresses', () => {
  const signer = createUrlSigner({ publicUrl: 'http://localhost:8080/', keys: ['k2', 'k1'], now: () => 1_700_000_000_000 });
  const id = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';

  it('binds model, expiry and both headers; accepts older keys', () => {
    const { url, headers } = signer.uploadAddress(id, 'nonce', new Date(1_700_000_900_000));
    expect(url).toMatch(
      /^http:\/\/localhost:8080\/uploads\/models\/1b4e28ba-2fa1-41d2-883f-0016d3cca427\?expires=1700000900&sig=[\w-]{43}$/,
    );
    expect(headers).toEqual({ 'Content-Type': 'application/octet-stream', 'X-Upload-Token': 'nonce' });
    const q = new URL(url).searchParams;
    const good = {
      modelId: id,
      expires: q.get('expires') ?? '',
      sig: q.get('sig') ?? '',
      contentType: 'Application/Octet-Stream',
      uploadToken: 'nonce',
    };
    expect(signer.verifyUpload(good)).toEqual({ ok: true });
    expect(signer.verifyUpload({ ...good, uploadToken: 'other' })).toEqual({ ok: false, reason: 'signature' });
    expect(signer.verifyUpload({ ...good, contentType: undefined })).toEqual({ ok: false, reason: 'signature' });
    expect(signer.verifyUpload({ ...good, modelId: id.replace('1b4e', '2b4e') })).toEqual({ ok: false, reason: 'signature' });
    expect(signer.verifyUpload({ ...good, expires: '1700000901' })).toEqual({ ok: false, reason: 'signature' });
    const rotated = createUrlSigner({ publicUrl: 'http://localhost:8080', keys: ['k3', 'k2'], now: () => 1_700_000_000_000 });
    expect(rotated.verifyUpload(good)).toEqual({ ok: true });
    const later = createUrlSigner({ publicUrl: 'http://localhost:8080', keys: ['k2'], now: () => 1_700_000_901_000 });
    expect(later.verifyUpload(good)).toEqual({ ok: false, reason: 'expired' });
  });

  it('hands out the same file address for a while (cacheable), valid 10 to 15 minutes', () => {
    const a = signer.fileUrl(id, 'viewer.glb', '7');
    const b = createUrlSigner({ publicUrl: 'http://localhost:8080', keys: ['k2'], now: () => 1_700_000_030_000 }).fileUrl(
      id,
      'viewer.glb',
      '7',
    );
    expect(a).toBe(b);
    const q = new URL(a).searchParams;
    const left = signer.secondsLeft(q.get('expires') ?? '');
    expect(left).toBeGreaterThanOrEqual(600);
    expect(left).toBeLessThanOrEqual(900);
    expect(
      signer.verifyFile({ modelId: id, file: 'viewer.glb', rev: '7', expires: q.get('expires') ?? '', sig: q.get('sig') ?? '' }),
    ).toEqual({ ok: true });
    expect(
      signer.verifyFile({ modelId: id, file: 'viewer.glb', rev: '8', expires: q.get('expires') ?? '', sig: q.get('sig') ?? '' }).ok,
    ).toBe(false);
    expect(
      signer.verifyFile({ modelId: id, file: 'thumbnail.png', rev: '7', expires: q.get('expires') ?? '', sig: q.get('sig') ?? '' }).ok,
    ).toBe(false);
  });
});
