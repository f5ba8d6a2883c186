// The service beyond one machine (npm run test:scale): Debian's PostgreSQL, an S3-compatible server
// (s3rver from the npm registry), one API process and worker processes, all real and started as
// an operator would (`main.ts api`, `main.ts worker`). 150 uploads; one worker is killed with
// SIGKILL in the middle of a job and another started; every model must end finished, with its
// files in the bucket only; a worker stopped with SIGTERM drains and exits 0.
import fs from 'node:fs/promises';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateReportResponseSchema, reportGroupsResponseSchema } from '../contract/duplicate-review';
import { similarityMatchesResponseSchema } from '../contract/matches';
import { sphere, toStlBinary } from '../geometry/testing/fixtures';
import { BUCKET, scaleParts, startCluster, type Cluster } from './cluster';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ workers: 2, threads: 1 });
}, 400_000);

afterAll(async () => {
  await cluster?.stop();
});

async function bucketKeys(): Promise<string[]> {
  const s3Client = new S3Client({
    region: 'us-east-1',
    endpoint: cluster.env.S3_ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3Client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key ?? ''));
    token = page.NextContinuationToken;
  } while (token);
  s3Client.destroy();
  return keys;
}

describe('API and worker processes on PostgreSQL and S3', () => {
  it('150 uploads; a worker killed mid-job is replaced; every model ends finished, files only in the bucket, matches from the API', async () => {
    const { http, token, db, env, workers, workerRow, dataDir } = cluster;
    const files = await scaleParts(150);
    files.push({ name: 'copy-of-part-000.stl', bytes: files[0]!.bytes });
    const entries = await http.createModels(
      token,
      files.map((f) => ({ filePath: `Scale/${f.name}` })),
    );
    expect(entries[0]?.uploadUrl).toMatch(new RegExp(`^${env.S3_ENDPOINT}/${BUCKET}/`));
    for (const [i, entry] of entries.entries()) {
      const res = await http.put(entry, files[i]!.bytes);
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const ids = entries.map((e) => e.model.id);
    // The API learns of a direct upload when the client says so.
    for (const id of ids) expect((await http.api(token, `/v2/models/${id}/upload-complete`, { method: 'POST' })).status).toBe(200);

    // kill -9 the first worker while it holds a job, then start another.
    const victim = workers[0]!;
    const victimId = await workerRow(victim.pid);
    let held: string[] = [];
    for (let i = 0; held.length === 0; i++) {
      held = (await db.query<{ job_id: string }>('select job_id from queue_leases where worker_id = $1', [victimId])).rows.map(
        (r) => r.job_id,
      );
      if (i > 600) throw new Error('the worker never took a job');
      if (held.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    await victim.kill9();
    const killedAt = Date.now();
    await cluster.startWorker();

    // The killed worker's job is handed to another worker (lease released and job retried).
    let takenOverSeconds: number;
    for (;;) {
      const { rows } = await db.query<{ n: number }>(
        'select count(*)::int as n from queue_leases where job_id = any($1) and worker_id <> $2',
        [held, victimId],
      );
      const released = (await db.query('select 1 from queue_workers where id = $1', [victimId])).rowCount === 0;
      if (released && (rows[0]?.n ?? 0) > 0) {
        takenOverSeconds = (Date.now() - killedAt) / 1000;
        break;
      }
      if (released && (await http.models(token, ids)).every((m) => m.state !== 'processing')) {
        takenOverSeconds = (Date.now() - killedAt) / 1000;
        break;
      }
      if (Date.now() - killedAt > 180_000) throw new Error('the killed worker’s job was never taken over');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(
      `scale: the job of the killed worker was taken by another worker ${takenOverSeconds.toFixed(1)} s after kill -9 (budget 60 s)`,
    );

    const settled = await http.waitSettled(token, ids, 600_000);
    expect(settled.filter((m) => m.state !== 'finished').map((m) => `${m.name}: ${m.state} ${m.stateReason ?? ''}`)).toEqual([]);

    // Files only in the bucket: each model's source, viewer GLB and thumbnail; nothing under DATA_DIR.
    const keys = await bucketKeys();
    for (const id of ids) {
      const own = keys.filter((k) => k.includes(`/models/${id}/`));
      expect(own.some((k) => k.endsWith('/source'))).toBe(true);
      expect(own.some((k) => k.endsWith('/viewer.glb'))).toBe(true);
      expect(own.some((k) => k.endsWith('/thumbnail.png'))).toBe(true);
    }
    expect(await fs.readdir(dataDir)).not.toContain('blobs');
    // Handed out as presigned GETs of the bucket: the API's signed address redirects there.
    const { viewerFile } = (await (await http.api(token, `/v2/models/${ids[0]}/viewer-file`)).json()) as { viewerFile: string };
    const glb = await fetch(viewerFile);
    expect(glb.redirected && glb.url.startsWith(`${env.S3_ENDPOINT}/${BUCKET}/`)).toBe(true);
    expect(new TextDecoder().decode((await glb.arrayBuffer()).slice(0, 4))).toBe('glTF');

    // Matches answered by the API process from what the workers stored.
    const res = await http.api(token, `/v2/models/${ids[0]}/part-to-part-matches?threshold=98`);
    expect(res.status).toBe(200);
    const matches = similarityMatchesResponseSchema.parse(await res.json()).matches;
    expect(matches.map((m) => m.matchedModel.id)).toContain(ids[ids.length - 1]);

    // A duplicates report started on the API process is run by a worker process; its groups hold the copy.
    const started = await http.api(token, '/v2/duplicate-reports', { method: 'POST', json: {} });
    expect(started.status, await started.clone().text()).toBe(202);
    const reportId = duplicateReportResponseSchema.parse(await started.json()).report.id;
    let report = duplicateReportResponseSchema.parse(await (await http.api(token, `/v2/duplicate-reports/${reportId}`)).json()).report;
    for (const deadline = Date.now() + 60_000; report.status !== 'ready' && report.status !== 'failed' && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 250));
      report = duplicateReportResponseSchema.parse(await (await http.api(token, `/v2/duplicate-reports/${reportId}`)).json()).report;
    }
    expect(report).toMatchObject({ status: 'ready', modelCount: ids.length, stale: false });
    const groups = reportGroupsResponseSchema.parse(
      await (await http.api(token, `/v2/duplicate-reports/${reportId}/groups?perPage=100`)).json(),
    ).groups;
    expect(groups.some((g) => [ids[0], ids[ids.length - 1]].every((id) => g.members.some((m) => m.model.id === id)))).toBe(true);

    // Each worker answers for itself: alive, its dependencies reachable, and the jobs it ran counted where they ran.
    const finishedByWorkers = await Promise.all(
      cluster.workers
        .filter((w) => w.alive())
        .map(async (w) => {
          expect((await fetch(`${w.baseUrl}/healthz`)).status).toBe(200);
          const ready = await fetch(`${w.baseUrl}/readyz`);
          expect(ready.status, await ready.clone().text()).toBe(200);
          const text = await (await fetch(`${w.baseUrl}/metrics`)).text();
          return Number(/^ingest_jobs_total\{outcome="finished"\} (\d+)/m.exec(text)?.[1] ?? 0);
        }),
    );
    expect(finishedByWorkers.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(await (await fetch(`${cluster.api.baseUrl}/metrics`)).text()).not.toMatch(/^ingest_jobs_total\{/m);
  });

  it('SIGTERM: a worker stops taking jobs, finishes or hands back what it runs, and exits 0 within 30 s', async () => {
    const { http, token, db, workers, workerRow } = cluster;
    const big = toStlBinary((await sphere({ triangles: 150_000 })).mesh);
    const entries = await http.createModels(
      token,
      [0, 1, 2, 3].map((i) => ({ filePath: `Drain/sphere-${i}.stl` })),
    );
    for (const entry of entries) expect((await http.put(entry, big)).status).toBe(200);
    const ids = entries.map((e) => e.model.id);
    for (const id of ids) await http.api(token, `/v2/models/${id}/upload-complete`, { method: 'POST' });
    const alive = workers.filter((w) => w.alive());
    const target = alive[0]!;
    const targetId = await workerRow(target.pid);
    for (let i = 0; ; i++) {
      const { rowCount } = await db.query('select 1 from queue_leases where worker_id = $1', [targetId]);
      if (rowCount) break;
      if (i > 1200) throw new Error('the worker never took a job');
      await new Promise((r) => setTimeout(r, 50));
    }
    const t0 = Date.now();
    await target.stop();
    const seconds = (Date.now() - t0) / 1000;
    console.log(`scale: SIGTERM → worker exited with code ${target.exitCode()} after ${seconds.toFixed(1)} s`);
    expect(target.exitCode()).toBe(0);
    expect((await db.query('select 1 from queue_workers where id = $1', [targetId])).rowCount).toBe(0);
    const settled = await http.waitSettled(token, ids, 300_000);
    expect(settled.map((m) => m.state)).toEqual(['finished', 'finished', 'finished', 'finished']);
  });
});
