// Image search over HTTP against the really started service (real ingestion for the match).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { apiErrorBodySchema } from '../../../contract/errors';
import { createImageResponseSchema, imageMatchesResponseSchema, IMAGE_MAX_BYTES, type CreateImageResponse } from '../../../contract/images';
import { buildPart } from '../../../geometry/testing/benchmark-dataset';
import { toStlBinary } from '../../../geometry/testing/fixtures';
import { startIngestTestService, type IngestTestService } from '../../ingest/ingest-test-helpers';
import { imageDb } from '../../images/image-store';
import { createImageUrlSigner } from '../../images/image-urls';
import { benchPhoto } from '../../testing/test-photos';
import { prng } from '../../../geometry/search/descriptors/sampling';
import { lookFrom } from '../../../geometry/output/render/view';
import { randomFaults, syntheticSketch } from '../../../geometry/testing/synthetic-sketch';

let t: IngestTestService;
/** Models of tenant acme: a gear, a bracket and a pipe, each in its own folder. */
const parts: Record<string, string> = {};

async function createImage(token: string, filename = 'photo.png'): Promise<CreateImageResponse['image']> {
  const res = await t.api('/v2/images', { method: 'POST', token, json: { filename } });
  expect(res.status, await res.clone().text()).toBe(201);
  return createImageResponseSchema.parse(await res.json()).image;
}

function put(
  image: { uploadUrl: string; headers: Record<string, string> },
  bytes: Uint8Array,
  extra: { url?: string; headers?: Record<string, string> } = {},
) {
  return fetch(extra.url ?? image.uploadUrl, {
    method: 'PUT',
    headers: { ...image.headers, ...extra.headers },
    body: new Uint8Array(bytes),
  });
}

async function errorOf(res: Response) {
  return apiErrorBodySchema.parse(await res.json()).error;
}

let pngBytes: Uint8Array;

beforeAll(async () => {
  t = await startIngestTestService();
  const meshes = { gear: await buildPart('gear', 0), bracket: await buildPart('bracket', 1), pipe: await buildPart('pipe', 0) };
  for (const [name, mesh] of Object.entries(meshes)) parts[name] = await t.upload(`${name}/${name}.stl`, toStlBinary(mesh));
  for (const id of Object.values(parts)) expect((await t.settled(id, 120_000)).state).toBe('finished');
  pngBytes = (await benchPhoto(meshes.gear, 11)).bytes;
}, 240_000);

afterAll(async () => {
  await t?.stop();
});

describe('POST /v2/images and the signed PUT', () => {
  it('hands out an upload address for PNG, JPEG and WebP names only', async () => {
    for (const name of ['a.png', 'b.JPG', 'c.jpeg', 'd.webp']) await createImage(t.token, name);
    const res = await t.api('/v2/images', { method: 'POST', token: t.token, json: { filename: 'notes.txt' } });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('unsupported_media_type');
    expect((await t.api('/v2/images', { method: 'POST', json: { filename: 'a.png' } })).status).toBe(401);
  });

  it('refuses a tampered signature, changed headers and an expired address; takes the file once', async () => {
    const image = await createImage(t.token);
    const tampered = image.uploadUrl.replace(/sig=([^&])/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
    expect((await put(image, pngBytes, { url: tampered })).status).toBe(403);
    expect((await put(image, pngBytes, { headers: { 'X-Upload-Token': 'made-up' } })).status).toBe(403);
    expect((await put(image, pngBytes, { headers: { 'Content-Type': 'image/png' } })).status).toBe(403);

    // The same key and nonce with an expiry in the past: only time makes the difference.
    const row = await imageDb(t.db).selectFrom('images').select('nonce').where('id', '=', image.id).executeTakeFirstOrThrow();
    const signer = createImageUrlSigner({ publicUrl: t.baseUrl, keys: t.service.keys.urlSigningKeys });
    const expired = signer.uploadAddress(image.id, row.nonce, new Date(Date.now() - 1000));
    const res = await put(image, pngBytes, { url: expired.url });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).message).toMatch(/expired/);

    expect((await put(image, pngBytes)).status).toBe(200);
    const replay = await put(image, pngBytes);
    expect(replay.status).toBe(409);
  });

  it('refuses a file over 10 MiB with 413 and keeps the address usable', async () => {
    const image = await createImage(t.token);
    const res = await put(image, new Uint8Array(IMAGE_MAX_BYTES + 1));
    expect(res.status).toBe(413);
    expect((await put(image, pngBytes)).status).toBe(200);
  });

  it('refuses text renamed .png and a truncated JPEG with a clear 415, keeping nothing', async () => {
    const image = await createImage(t.token, 'fake.png');
    const text = await put(image, new TextEncoder().encode('this is not an image\n'.repeat(50)));
    expect(text.status).toBe(415);
    expect((await errorOf(text)).message).toMatch(/PNG, JPEG or WebP/);
    const stored = await imageDb(t.db)
      .selectFrom('images')
      .select(['descriptor', 'uploaded_at'])
      .where('id', '=', image.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ descriptor: null, uploaded_at: null });
    // Not uploaded: searching with it is a 400.
    expect((await t.api(`/v2/images/model-matches?id=${image.id}`, { token: t.token })).status).toBe(400);

    const jpeg = new Uint8Array(await sharp(Buffer.from(pngBytes)).jpeg().toBuffer());
    const truncated = await put(image, jpeg.subarray(0, Math.floor(jpeg.length / 2)));
    expect(truncated.status).toBe(415);
    expect((await errorOf(truncated)).message).toMatch(/damaged|incomplete|readable/);
  });

  it('refuses an image that shows no object (a plain colour)', async () => {
    const image = await createImage(t.token);
    const plain = new Uint8Array(
      await sharp({ create: { width: 200, height: 150, channels: 3, background: { r: 230, g: 230, b: 235 } } })
        .png()
        .toBuffer(),
    );
    const res = await put(image, plain);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/object/i);
  });
});

describe('GET /v2/images/model-matches', () => {
  async function uploadPhoto(token: string, bytes: Uint8Array, name = 'photo.png') {
    const image = await createImage(token, name);
    const res = await put(image, bytes);
    expect(res.status, await res.clone().text()).toBe(200);
    return image.id;
  }

  it('finds the photographed part first, with matchPercentage, and combines several images', async () => {
    const gearPhoto = await uploadPhoto(t.token, pngBytes);
    const res = await t.api(`/v2/images/model-matches?id=${gearPhoto}`, { token: t.token });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = imageMatchesResponseSchema.parse(await res.json());
    expect(body.matchCount).toBe(3);
    expect(body.matches[0]?.matchedModel.id).toBe(parts.gear);
    const pct = body.matches.map((m) => m.matchPercentage ?? NaN);
    expect([...pct].sort((a, b) => b - a)).toEqual(pct);

    const mesh = await buildPart('bracket', 1);
    const ids = [];
    for (const seed of [21, 22, 23]) ids.push(await uploadPhoto(t.token, (await benchPhoto(mesh, seed)).bytes, 'b.jpg'));
    const several = imageMatchesResponseSchema.parse(
      await (await t.api(`/v2/images/model-matches?${ids.map((i) => `id=${i}`).join('&')}`, { token: t.token })).json(),
    );
    expect(several.matches[0]?.matchedModel.id).toBe(parts.bracket);
  });

  it('pages and filters like the model list', async () => {
    const photo = await uploadPhoto(t.token, pngBytes);
    const all = imageMatchesResponseSchema.parse(await (await t.api(`/v2/images/model-matches?id=${photo}`, { token: t.token })).json());
    const page2 = imageMatchesResponseSchema.parse(
      await (await t.api(`/v2/images/model-matches?id=${photo}&perPage=1&page=2`, { token: t.token })).json(),
    );
    expect(page2.matches.map((m) => m.matchedModel.id)).toEqual([all.matches[1]?.matchedModel.id]);
    expect(page2.pageData).toMatchObject({ total: 3, perPage: 1, currentPage: 2, lastPage: 3 });

    const folderId = all.matches.find((m) => m.matchedModel.id === parts.pipe)?.matchedModel.folderId;
    const filtered = imageMatchesResponseSchema.parse(
      await (
        await t.api(`/v2/images/model-matches?id=${photo}&filter=${encodeURIComponent(`folderId(eq(${folderId}))`)}`, { token: t.token })
      ).json(),
    );
    expect(filtered.matches.map((m) => m.matchedModel.id)).toEqual([parts.pipe]);
    expect(
      (await t.api(`/v2/images/model-matches?id=${photo}&filter=${encodeURIComponent('nope(eq(1))')}`, { token: t.token })).status,
    ).toBe(400);
  });

  it('lists and counts only the models at or above a threshold', async () => {
    const photo = await uploadPhoto(t.token, pngBytes);
    const all = imageMatchesResponseSchema.parse(await (await t.api(`/v2/images/model-matches?id=${photo}`, { token: t.token })).json());
    const scores = all.matches.map((m) => m.matchPercentage ?? NaN);
    // Between the best and the second best: exactly one model passes.
    const cut = Math.floor(((scores[0]! + scores[1]!) / 2) * 1000) / 1000;
    expect(scores[0]!).toBeGreaterThan(cut);
    const passed = imageMatchesResponseSchema.parse(
      await (await t.api(`/v2/images/model-matches?id=${photo}&threshold=${cut}`, { token: t.token })).json(),
    );
    expect(passed.matches.map((m) => m.matchedModel.id)).toEqual([all.matches[0]?.matchedModel.id]);
    expect(passed.matchCount).toBe(1);
    expect(passed.pageData.total).toBe(1);
    const none = imageMatchesResponseSchema.parse(
      await (await t.api(`/v2/images/model-matches?id=${photo}&threshold=100`, { token: t.token })).json(),
    );
    expect(none.matches.every((m) => (m.matchPercentage ?? 0) >= 100)).toBe(true);
    expect(none.matchCount).toBe(none.matches.length);
    expect((await t.api(`/v2/images/model-matches?id=${photo}&threshold=101`, { token: t.token })).status).toBe(400);
  });

  it('answers 400 without ids or with more than 10, 404 for unknown ids', async () => {
    expect((await t.api('/v2/images/model-matches', { token: t.token })).status).toBe(400);
    const eleven = Array.from({ length: 11 }, () => `id=${crypto.randomUUID()}`).join('&');
    expect((await t.api(`/v2/images/model-matches?${eleven}`, { token: t.token })).status).toBe(400);
    expect((await t.api(`/v2/images/model-matches?id=${crypto.randomUUID()}`, { token: t.token })).status).toBe(404);
    expect((await t.api('/v2/images/model-matches?id=not-a-uuid', { token: t.token })).status).toBe(404);
  });

  it('keeps tenants apart: images and models of one tenant are invisible to another', async () => {
    const mine = await uploadPhoto(t.token, pngBytes);
    const other = await t.editorToken('globex');
    expect((await t.api(`/v2/images/model-matches?id=${mine}`, { token: other })).status).toBe(404);
    const theirs = await uploadPhoto(other, pngBytes);
    const body = imageMatchesResponseSchema.parse(await (await t.api(`/v2/images/model-matches?id=${theirs}`, { token: other })).json());
    expect(body.matchCount).toBe(0);
    expect(body.matches).toEqual([]);
  });
});

describe('POST /v2/sketches/model-matches', () => {
  /** A hand-sketch-like drawing of a part as PNG bytes, base64. */
  async function sketchOf(family: 'bracket' | 'gear' | 'pipe', variant: number, seed: number): Promise<string> {
    const rand = prng(seed);
    const sketch = syntheticSketch(await buildPart(family, variant), {
      size: 400,
      rotation: lookFrom([0.5, 0.7, 0.5]),
      distance: 5,
      faults: randomFaults(rand),
      rand,
    });
    const png = await sharp(Buffer.from(sketch.grey), { raw: { width: sketch.width, height: sketch.height, channels: 1 } })
      .png()
      .toBuffer();
    return png.toString('base64');
  }
  const search = (json: unknown, token = t.token, query = '') =>
    t.api(`/v2/sketches/model-matches${query}`, { method: 'POST', token, json });

  it('finds the sketched part first and echoes the drawing; another tenant finds none of these models', async () => {
    const image = await sketchOf('bracket', 1, 3);
    const res = await search({ image, filename: 'bracket sketch.png' });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = imageMatchesResponseSchema.parse(await res.json());
    expect(body.matches[0]?.matchedModel.id).toBe(parts.bracket);
    expect(body.matchCount).toBe(3);
    expect(body.image?.filename).toBe('bracket sketch.png');
    expect(body.image?.url).toMatch(/^data:image\/jpeg;base64,/);
    // A data: address is taken as well as bare base64.
    const viaDataUrl = imageMatchesResponseSchema.parse(await (await search({ image: `data:image/png;base64,${image}` })).json());
    expect(viaDataUrl.matches[0]?.matchedModel.id).toBe(parts.bracket);

    const other = await t.editorToken('globex');
    const theirs = imageMatchesResponseSchema.parse(await (await search({ image }, other)).json());
    expect(theirs.matchCount).toBe(0);
    expect((await t.api('/v2/sketches/model-matches', { method: 'POST', json: { image } })).status).toBe(401);
  });

  it('answers a blank page, an open line, a dark photo, text and bad base64 with a clear 400', async () => {
    const png = async (draw: (grey: Uint8Array, size: number) => void) => {
      const size = 200;
      const grey = new Uint8Array(size * size).fill(255);
      draw(grey, size);
      return (
        await sharp(Buffer.from(grey), { raw: { width: size, height: size, channels: 1 } })
          .png()
          .toBuffer()
      ).toString('base64');
    };
    const cases: [unknown, RegExp][] = [
      [{ image: await png(() => {}) }, /empty/],
      [{ image: await png((g, s) => g.fill(0, 100 * s + 20, 100 * s + 180)) }, /do not enclose/],
      [{ image: await png((g) => g.fill(30)) }, /dark lines on a light ground/],
      [{ image: Buffer.from('not a picture at all').toString('base64') }, /not a readable PNG, JPEG or WebP/],
      [{ image: '%%%' }, /not base64/],
      [{}, /image/],
    ];
    for (const [json, message] of cases) {
      const res = await search(json);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      expect((await errorOf(res)).message).toMatch(message);
    }
  });
});
