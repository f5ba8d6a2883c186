// Test support (not a test file): the real service with real ingestion, and the client steps of
// the interface (create record → PUT the file → poll the state).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'vitest';
import type { Model } from '../../contract/models';
import { startTestService, type StartTestServiceOptions, type TestService } from '../testing/start-test-service';
import { serviceIngestion, type Ingestion, type IngestionConfig } from './start-ingestion';

export const CAXIF = path.join(path.dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json')), 'test', 'testfiles');
export const readTestFile = (...p: string[]) => new Uint8Array(readFileSync(path.join(CAXIF, ...p)));

export interface IngestTestService extends TestService {
  ingestion: Ingestion;
  token: string;
  /** Creates the record (folders created as needed) and uploads `bytes`; returns the model id. */
  upload(filePath: string, bytes: Uint8Array): Promise<string>;
  /** Creates records only (no upload). */
  create(filePaths: string[]): Promise<{ id: string; uploadUrl: string; headers: Record<string, string> }[]>;
  put(target: { uploadUrl: string; headers: Record<string, string> }, bytes: Uint8Array): Promise<void>;
  model(id: string): Promise<Model>;
  /** Polls until the model leaves `processing`; fails after `timeoutMs`. */
  settled(id: string, timeoutMs?: number): Promise<Model>;
}

export async function startIngestTestService(
  config: IngestionConfig = {},
  options: StartTestServiceOptions = {},
): Promise<IngestTestService> {
  let ingestion: Ingestion | undefined;
  const start = serviceIngestion({ pollIntervalMs: 500, upgradeDelaySeconds: 0, log: quietLog, ...config });
  const svc = await startTestService({ ...options, ingestion: async (deps) => (ingestion = await start(deps)) });
  if (!ingestion) throw new Error('ingestion did not start');
  const token = await svc.editorToken();

  const create: IngestTestService['create'] = async (filePaths) => {
    const res = await svc.api('/v2/models?createMissingFolders=true', {
      method: 'POST',
      token,
      json: { models: filePaths.map((filePath) => ({ filePath, name: path.basename(filePath) })) },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    // Either shape a service may write: ours, or the published `uploadInfo`.
    type Upload = { uploadUrl: string; headers: Record<string, string> };
    const body = (await res.json()) as { models: ({ model: Model; uploadInfo?: Upload } & Partial<Upload>)[] };
    return body.models.map((m) => ({
      id: m.model.id,
      uploadUrl: m.uploadInfo?.uploadUrl ?? m.uploadUrl!,
      headers: m.uploadInfo?.headers ?? m.headers!,
    }));
  };
  const put: IngestTestService['put'] = async (target, bytes) => {
    const res = await fetch(target.uploadUrl, { method: 'PUT', headers: target.headers, body: new Uint8Array(bytes) });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const model = async (id: string) => {
    const res = await svc.api(`/v2/models/${id}`, { token });
    expect(res.status).toBe(200);
    return ((await res.json()) as { model: Model }).model;
  };

  return Object.assign(svc, {
    ingestion: ingestion as Ingestion,
    token,
    create,
    put,
    model,
    async upload(filePath: string, bytes: Uint8Array) {
      const [target] = await create([filePath]);
      await put(target!, bytes);
      return target!.id;
    },
    async settled(id: string, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = await model(id);
        if (m.state !== 'processing' && m.state !== 'incomplete-upload') return m;
        if (Date.now() > deadline) throw new Error(`model ${id} still ${m.state} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  });
}

export const quietLog: Pick<Console, 'info' | 'warn' | 'error'> = { info() {}, warn() {}, error: (...a: unknown[]) => console.error(...a) };

/** Downloads a model's viewer GLB and thumbnail through the API's signed addresses. */
export async function derivedFiles(svc: IngestTestService, m: Model) {
  const res = await svc.api(`/v2/models/${m.id}/viewer-file`, { token: svc.token });
  expect(res.status).toBe(200);
  const { viewerFile } = (await res.json()) as { viewerFile: string };
  const glb = new Uint8Array(await (await fetch(viewerFile)).arrayBuffer());
  expect(m.thumbnail, 'thumbnail url').toEqual(expect.any(String));
  const png = new Uint8Array(await (await fetch(m.thumbnail!)).arrayBuffer());
  return { glb, png };
}
