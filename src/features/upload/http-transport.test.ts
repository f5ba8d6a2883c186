import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubFetch } from '../../api/testing/test-fetch';
import { createHttpTransport, putWithXhr } from './http-transport';
import { TransportError } from './engine/transport';

const model = (id: string, state = 'incomplete-upload') => ({
  id,
  name: `${id}.stl`,
  filePath: `Projects/${id}.stl`,
  fileName: `${id}.stl`,
  fileType: 'stl',
  folderId: 1,
  isAssembly: false,
  state,
  metadata: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** A scriptable XMLHttpRequest: each instance is kept so the test can answer it. */
class FakeXhr {
  static all: FakeXhr[] = [];
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  aborted = false;
  responseHeaders: Record<string, string> = {};
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.all.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  getResponseHeader(name: string) {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  respond(status: number, headers: Record<string, string> = {}) {
    this.status = status;
    this.responseHeaders = headers;
    this.onload?.();
  }
}

beforeEach(() => {
  FakeXhr.all = [];
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});
afterEach(() => vi.unstubAllGlobals());

describe('http transport: JSON calls', () => {
  it('creates models with createMissingFolders and accepts both answer shapes', async () => {
    const fetchMock = stubFetch(() =>
      json(
        {
          models: [
            { model: model('a'), uploadUrl: 'http://s/a', headers: { 'x-amz-a': '1' } },
            { model: model('b'), uploadInfo: { uploadUrl: 'http://s/b', headers: { 'x-amz-b': '2' } } },
          ],
        },
        201,
      ),
    );
    const created = await createHttpTransport().createModels(
      [
        { filePath: 'Projects/a.stl', name: 'a.stl' },
        { filePath: 'Projects/b.stl', name: 'b.stl' },
      ],
      { createMissingFolders: true },
    );
    const [url, init] = fetchMock.mock.calls[0]!;
    const u = new URL(String(url));
    expect(init?.method).toBe('POST');
    expect(u.pathname).toBe('/v2/models');
    expect(u.searchParams.get('createMissingFolders')).toBe('true');
    expect(JSON.parse(String(init?.body))).toEqual({
      models: [
        { filePath: 'Projects/a.stl', name: 'a.stl' },
        { filePath: 'Projects/b.stl', name: 'b.stl' },
      ],
    });
    expect(created).toEqual([
      { model: expect.objectContaining({ id: 'a', state: 'incomplete-upload' }), uploadUrl: 'http://s/a', headers: { 'x-amz-a': '1' } },
      { model: expect.objectContaining({ id: 'b' }), uploadUrl: 'http://s/b', headers: { 'x-amz-b': '2' } },
    ]);
  });

  it('rejects a batch error with the service status and message', async () => {
    stubFetch(() => json({ error: { message: 'models[1].filePath: bad', code: 'invalid_input' } }, 400));
    await expect(createHttpTransport().createModels([{ filePath: 'x', name: 'x' }], { createMissingFolders: true })).rejects.toMatchObject({
      status: 400,
      message: 'models[1].filePath: bad',
    });
  });

  it('lists models by id with one filter and perPage=100, and deletes', async () => {
    const fetchMock = stubFetch((url, init) => {
      if (init?.method === 'DELETE') return new Response(null, { status: 204 });
      return json({
        models: [model('a', 'processing')],
        pageData: { total: 1, perPage: 100, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 1 },
      });
    });
    const transport = createHttpTransport();
    const records = await transport.listModelsById(['a', "o'b"]);
    const u = new URL(String(fetchMock.mock.calls[0]![0]));
    expect(u.searchParams.get('filter')).toBe("id(in('a','o''b'))");
    expect(u.searchParams.get('perPage')).toBe('100');
    expect(records).toEqual([expect.objectContaining({ id: 'a', state: 'processing', filePath: 'Projects/a.stl' })]);
    await transport.deleteModel('a');
    expect(fetchMock.mock.calls[1]![1]?.method).toBe('DELETE');
    expect(String(fetchMock.mock.calls[1]![0])).toBe('http://localhost:8080/v2/models/a');
  });
});

describe('http transport: PUT with XMLHttpRequest', () => {
  const body = new Blob([new Uint8Array(100)]);

  it('sends every header, reports progress and resolves on 2xx', async () => {
    const progress: [number, number][] = [];
    const done = putWithXhr('http://s/a', { 'x-amz-a': '1', 'content-type': 'application/octet-stream' }, body, {
      signal: new AbortController().signal,
      onProgress: (l, t) => progress.push([l, t]),
    });
    const xhr = FakeXhr.all[0]!;
    expect(xhr.method).toBe('PUT');
    expect(xhr.url).toBe('http://s/a');
    expect(xhr.headers).toEqual({ 'x-amz-a': '1', 'content-type': 'application/octet-stream' });
    expect(xhr.body).toBe(body);
    xhr.upload.onprogress?.({ loaded: 40, total: 100, lengthComputable: true });
    xhr.respond(200);
    await expect(done).resolves.toBeUndefined();
    expect(progress).toEqual([
      [40, 100],
      [100, 100],
    ]);
  });

  it('rejects with TransportError: 403 (expired), 503 with Retry-After, network error as status 0', async () => {
    const signal = new AbortController().signal;
    const p403 = putWithXhr('http://s/a', {}, body, { signal });
    FakeXhr.all[0]!.respond(403);
    await expect(p403).rejects.toMatchObject({ status: 403, code: 'forbidden' });

    const p503 = putWithXhr('http://s/a', {}, body, { signal });
    FakeXhr.all[1]!.respond(503, { 'retry-after': '2' });
    const e503 = await p503.catch((e: unknown) => e);
    expect(e503).toBeInstanceOf(TransportError);
    expect(e503).toMatchObject({ status: 503, retryAfterMs: 2000 });

    const pNet = putWithXhr('http://s/dropped', {}, body, { signal });
    FakeXhr.all[2]!.onerror?.();
    await expect(pNet).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });

  it('after a dropped connection, asks how much arrived and sends only the rest, counting progress from there', async () => {
    const signal = new AbortController().signal;
    const headers = { 'content-type': 'application/octet-stream', 'x-upload-token': 't' };
    const first = putWithXhr('http://s/resume', headers, body, { signal });
    FakeXhr.all[0]!.onerror?.();
    await expect(first).rejects.toMatchObject({ status: 0 });

    // The storage kept 40 of the 100 bytes.
    const fetchMock = stubFetch(() => new Response(null, { status: 200, headers: { 'upload-offset': '40' } }));
    const progress: [number, number][] = [];
    const again = putWithXhr('http://s/resume', headers, body, { signal, onProgress: (l, t) => progress.push([l, t]) });
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(String(url)).toBe('http://s/resume');
    expect(init).toMatchObject({ method: 'HEAD', headers });
    const xhr = FakeXhr.all[1]!;
    expect(xhr.headers).toEqual({ ...headers, 'content-range': 'bytes 40-99/100' });
    expect((xhr.body as Blob).size).toBe(60);
    xhr.upload.onprogress?.({ loaded: 30, total: 60, lengthComputable: true });
    xhr.respond(200);
    await again;
    expect(progress).toEqual([
      [70, 100],
      [100, 100],
    ]);

    // Once through, the address is sent whole again (it is single use: the service answers 409).
    const third = putWithXhr('http://s/resume', headers, body, { signal });
    expect(FakeXhr.all).toHaveLength(3);
    expect(FakeXhr.all[2]!.headers).toEqual(headers);
    FakeXhr.all[2]!.respond(409);
    await expect(third).rejects.toMatchObject({ status: 409 });
  });

  it('sends the whole file again where the storage keeps nothing (an S3 address answers HEAD with 403)', async () => {
    const signal = new AbortController().signal;
    const first = putWithXhr('http://bucket/key', {}, body, { signal });
    FakeXhr.all[0]!.onerror?.();
    await expect(first).rejects.toMatchObject({ status: 0 });
    stubFetch(() => new Response(null, { status: 403 }));
    const again = putWithXhr('http://bucket/key', {}, body, { signal });
    await vi.waitFor(() => expect(FakeXhr.all).toHaveLength(2));
    expect(FakeXhr.all[1]!.headers).toEqual({});
    expect((FakeXhr.all[1]!.body as Blob).size).toBe(100);
    FakeXhr.all[1]!.respond(200);
    await again;
  });

  it('aborts the request when the signal fires', async () => {
    const controller = new AbortController();
    const p = putWithXhr('http://s/a', {}, body, { signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(FakeXhr.all[0]!.aborted).toBe(true);
    const already = putWithXhr('http://s/a', {}, body, { signal: controller.signal });
    await expect(already).rejects.toMatchObject({ name: 'AbortError' });
    expect(FakeXhr.all).toHaveLength(1);
  });
});
