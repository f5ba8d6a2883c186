import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { box, toStlBinary } from '../../geometry/testing/fixtures';
import { LocalBlobStore } from '../files/local-blob-store';
import { startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';
import { startTestService } from '../testing/start-test-service';

describe('operations endpoints', () => {
  let svc: IngestTestService;
  beforeAll(async () => {
    svc = await startIngestTestService();
  });
  afterAll(() => svc?.stop());

  it('healthz answers while the process is up; readyz checks database, storage and queue', async () => {
    expect(await (await fetch(`${svc.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${svc.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', storage: 'ok', queue: 'ok' } });
  });

  it('metrics in Prometheus text: requests by route and status, models by state, jobs by outcome and format, queue depth', async () => {
    const id = await svc.upload('Ops/box.stl', toStlBinary((await box()).mesh));
    await svc.settled(id);
    await svc.api('/v2/models/not-a-model', { token: svc.token });
    // The job's counters move when its handler returns, a moment after it wrote the model's state
    // (a scrape can fall between the two).
    await expect
      .poll(async () => (await fetch(`${svc.baseUrl}/metrics`)).text(), { timeout: 10_000 })
      .toMatch(/^ingest_jobs_total\{outcome="finished"\} [1-9]/m);
    const response = await fetch(`${svc.baseUrl}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/v2\/models\/:id",status_code="404"\} [1-9]/);
    expect(text).toMatch(/^models\{state="finished"\} [1-9]/m);
    expect(text).toMatch(/^ingest_jobs_total\{outcome="finished"\} [1-9]/m);
    expect(text).toMatch(/^ingest_duration_seconds_count\{format="stl",reader="none"\} [1-9]/m);
    for (const stage of ['import', 'facts', 'search', 'viewer', 'views'])
      expect(text).toMatch(new RegExp(`^ingest_stage_seconds_count\\{stage="${stage}"\\} [1-9]`, 'm'));
    expect(text).toMatch(/^ingest_queue_depth \d+/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });
});

describe('readiness when a part is unreachable', () => {
  it('answers 503 naming the storage that cannot be read', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-ready-'));
    const notADirectory = path.join(dir, 'file');
    await fs.writeFile(notADirectory, 'x');
    const t = await startTestService({ blobStore: new LocalBlobStore(path.join(notADirectory, 'blobs')) });
    try {
      const response = await fetch(`${t.baseUrl}/readyz`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe('unready');
      expect(body.checks.database).toBe('ok');
      expect(body.checks.storage).toMatch(/^failed: .*ENOTDIR/);
    } finally {
      await t.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
