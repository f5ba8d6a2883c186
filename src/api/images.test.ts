import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './client';
import { fetchImageMatches, imageQueries, putError, uploadImage } from './images';
import { json, stubFetch } from './testing/test-fetch';

const pageData = { total: 0, perPage: 24, currentPage: 2, lastPage: 1, startIndex: 0, endIndex: 0 };

/** Stands in for the browser's XMLHttpRequest: records the PUT and answers as told. */
function stubXhr(answer: { status: number; body?: string }) {
  const sent: { method: string; url: string; headers: Record<string, string>; body: unknown }[] = [];
  class FakeXhr {
    status = 0;
    responseText = '';
    upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    private request = { method: '', url: '', headers: {} as Record<string, string>, body: undefined as unknown };
    open(method: string, url: string) {
      this.request.method = method;
      this.request.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.request.headers[name] = value;
    }
    getResponseHeader() {
      return null;
    }
    abort() {
      this.onabort?.();
    }
    send(body: unknown) {
      this.request.body = body;
      sent.push(this.request);
      queueMicrotask(() => {
        this.upload.onprogress?.({ loaded: 2, total: 4, lengthComputable: true });
        this.status = answer.status;
        this.responseText = answer.body ?? '';
        this.onload?.();
      });
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return sent;
}

afterEach(() => vi.unstubAllGlobals());

describe('image upload', () => {
  it('creates the image, then PUTs the file with every returned header, reporting progress', async () => {
    const fetchMock = stubFetch((url, init) => {
      expect(url.pathname).toBe('/v2/images');
      expect(init?.method).toBe('POST');
      expect(JSON.parse(String(init?.body))).toEqual({ filename: 'photo.png' });
      return json(
        {
          image: {
            id: 'img-1',
            uploadUrl: 'http://localhost:8080/files/img-1?sig=s',
            headers: { 'content-type': 'image/png', 'x-upload-token': 't' },
          },
        },
        201,
      );
    });
    const sent = stubXhr({ status: 200 });
    const file = new Blob(['abcd'], { type: 'image/png' });
    const progress: number[][] = [];
    const id = await uploadImage({ file, filename: 'photo.png', onProgress: (l, t) => progress.push([l, t]) });
    expect(id).toBe('img-1');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(sent).toEqual([
      {
        method: 'PUT',
        url: 'http://localhost:8080/files/img-1?sig=s',
        headers: { 'content-type': 'image/png', 'x-upload-token': 't' },
        body: file,
      },
    ]);
    expect(progress).toEqual([
      [2, 4],
      [4, 4],
    ]);
  });

  it("ends with the service's own reason when it refuses the image", async () => {
    stubFetch(() => json({ image: { id: 'img-2', uploadUrl: 'http://localhost:8080/files/img-2', headers: {} } }, 201));
    stubXhr({
      status: 415,
      body: JSON.stringify({ error: { message: 'The file is not a PNG, JPEG or WebP image.', code: 'unsupported_media_type' } }),
    });
    const failure = uploadImage({ file: new Blob(['not an image']), filename: 'fake.png' });
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      message: 'The file is not a PNG, JPEG or WebP image.',
    });
  });

  it('words a refusal without a JSON body by its status', () => {
    expect(putError(413, 'too big')).toMatchObject({
      status: 413,
      code: 'too_large',
      message: 'The image is larger than the service takes (10 MiB).',
    });
    expect(putError(0, '')).toMatchObject({ status: 0, code: 'network_error' });
    expect(putError(502, '<html>')).toMatchObject({
      code: 'internal_error',
      message: 'The service had a problem storing the image (HTTP 502).',
    });
  });
});

describe('image matches', () => {
  it('sends every id as its own parameter with paging and filter', async () => {
    const fetchMock = stubFetch(() => json({ matches: [], pageData, matchCount: 0 }));
    const data = await fetchImageMatches({ ids: ['a', 'b'], page: 2, perPage: 24, filter: 'folderId(eq(3))' });
    expect(data.matchCount).toBe(0);
    const url = new URL(String(fetchMock.mock.calls[0]![0]));
    expect(url.pathname).toBe('/v2/images/model-matches');
    expect(url.searchParams.getAll('id')).toEqual(['a', 'b']);
    expect(Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'id'))).toEqual({
      page: '2',
      perPage: '24',
      filter: 'folderId(eq(3))',
    });
  });

  it('keys a search by its ids (in any order), page and filter', () => {
    const key = (ids: string[], page = 1, filter?: string) =>
      JSON.stringify(imageQueries.modelMatches({ ids, page, perPage: 24, filter }).queryKey);
    expect(key(['b', 'a'])).toBe(key(['a', 'b']));
    expect(key(['a'])).not.toBe(key(['a', 'b']));
    expect(key(['a'], 2)).not.toBe(key(['a'], 1));
    expect(key(['a'], 1, 'folderId(eq(1))')).not.toBe(key(['a']));
    expect(imageQueries.modelMatches({ ids: ['a'] }).queryKey.slice(0, 2)).toEqual(imageQueries.matches());
  });
});
