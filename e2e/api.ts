import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { isSettled, type Model } from '../src/contract/models';

/** The signed-in user's access token, as oidc-client-ts keeps it in session storage. */
export async function accessTokenOf(page: Page): Promise<string> {
  const token = await page.evaluate(() => {
    for (let i = 0; i < sessionStorage.length; i++) {
      const key = sessionStorage.key(i) ?? '';
      if (key.startsWith('oidc.user:')) return (JSON.parse(sessionStorage.getItem(key) ?? '{}') as { access_token?: string }).access_token;
    }
    return undefined;
  });
  if (!token) throw new Error('no signed-in user in session storage');
  return token;
}

type Upload = { uploadUrl: string; headers: Record<string, string> };
/** A created record's upload address, in either shape a deployment may answer: ours, or the published `uploadInfo`. */
export function uploadAddressOf(entry: { uploadInfo?: Upload } & Partial<Upload>): Upload {
  return entry.uploadInfo ?? (entry as Upload);
}

/** Creates models through the interface's two steps: records, then a PUT of each file. */
export async function uploadModels(
  request: APIRequestContext,
  token: string,
  files: { filePath: string; name: string; bytes: Uint8Array }[],
): Promise<Model[]> {
  const created = await request.post('/v2/models?createMissingFolders=true', {
    headers: { authorization: `Bearer ${token}` },
    data: { models: files.map(({ filePath, name }) => ({ filePath, name })) },
  });
  expect(created.status(), await created.text()).toBe(201);
  const entries = (await created.json()).models as ({ model: Model; uploadInfo?: Upload } & Partial<Upload>)[];
  for (const [i, entry] of entries.entries()) {
    const upload = uploadAddressOf(entry);
    const put = await request.put(upload.uploadUrl, { headers: upload.headers, data: Buffer.from(files[i]!.bytes) });
    expect(put.status(), await put.text()).toBeLessThan(300);
  }
  return entries.map((e) => e.model);
}

/** Polls until every model has settled; returns the settled records. */
export async function waitSettled(request: APIRequestContext, token: string, ids: string[], timeoutMs = 90_000): Promise<Model[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const filter = `id(in(${ids.map((id) => `'${id}'`).join(',')}))`;
    const res = await request.get(`/v2/models?perPage=100&filter=${encodeURIComponent(filter)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status()).toBe(200);
    const models = (await res.json()).models as Model[];
    if (models.length === ids.length && models.every((m) => isSettled(m.state))) return models;
    if (Date.now() > deadline) throw new Error(`models not settled: ${models.map((m) => `${m.name}=${m.state}`).join(', ')}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
