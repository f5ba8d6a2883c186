// What the reliability suite needs of the API, over plain HTTP as any client would use it.
import { createModelsResponseSchema, isSettled, modelListResponseSchema, type Model } from '../contract/models';

export interface CreatedModel {
  model: Model;
  uploadUrl: string;
  headers: Record<string, string>;
}

export function client(baseUrl: string) {
  const api = (token: string, pathname: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${baseUrl}${pathname}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });

  async function createModels(token: string, files: { filePath: string; name?: string }[]): Promise<CreatedModel[]> {
    const created: CreatedModel[] = [];
    for (let i = 0; i < files.length; i += 100) {
      const batch = files.slice(i, i + 100).map((f) => ({ filePath: f.filePath, name: f.name ?? f.filePath.split('/').pop() }));
      const response = await api(token, '/v2/models?createMissingFolders=true', { method: 'POST', json: { models: batch } });
      if (response.status !== 201) throw new Error(`create models: ${response.status} ${await response.text()}`);
      created.push(...createModelsResponseSchema.parse(await response.json()).models);
    }
    return created;
  }

  const put = (entry: CreatedModel, body: Uint8Array) =>
    fetch(entry.uploadUrl, { method: 'PUT', headers: entry.headers, body: new Uint8Array(body) });

  async function models(token: string, ids: string[]): Promise<Model[]> {
    const out: Model[] = [];
    for (let i = 0; i < ids.length; i += 100) {
      const filter = `id(in(${ids
        .slice(i, i + 100)
        .map((id) => `'${id}'`)
        .join(',')}))`;
      const response = await api(token, `/v2/models?perPage=100&filter=${encodeURIComponent(filter)}`);
      if (response.status !== 200) throw new Error(`list models: ${response.status} ${await response.text()}`);
      out.push(...modelListResponseSchema.parse(await response.json()).models);
    }
    return out;
  }

  /** Polls (once a second, as the app does) until every model has settled. */
  async function waitSettled(token: string, ids: string[], timeoutMs = 180_000): Promise<Model[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await models(token, ids);
      if (found.length === ids.length && found.every((m) => isSettled(m.state))) return found;
      if (Date.now() > deadline) {
        const waiting = found.filter((m) => !isSettled(m.state)).map((m) => `${m.name}=${m.state}`);
        throw new Error(`not settled after ${timeoutMs / 1000} s: ${waiting.join(', ')}; ${ids.length - found.length} missing`);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  return { api, createModels, put, models, waitSettled };
}
