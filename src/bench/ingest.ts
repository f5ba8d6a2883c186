/**
 * Budgets (src/bench/README.md): a 50k-triangle STL from stored file to `finished` in ≤ 0.5 s of CPU;
 * a ~5 MB STEP part in ≤ 3 s. Also throughput (models/minute) of 200 generated parts.
 * Runs the real ingestion (pg-boss on PGlite, worker threads) on a throwaway data directory.
 * CPU = process.cpuUsage() of the whole process (main thread + worker threads) over one job
 * running alone, so it includes the database and blob work around the geometry.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { extensionOf } from '../contract/file-types';
import { bracket, flange, plateWithHoles, sphere, toStlBinary } from '../geometry/testing/fixtures';
import { modelBlobKeys } from '../service/files/blob-store';
import { LocalBlobStore } from '../service/files/local-blob-store';
import type { IngestResult } from '../service/ingest/ingest-job';
import { startIngestion } from '../service/ingest/start-ingestion';
import { openStore } from '../service/store/database';
import { createFolder } from '../service/store/folders';
import { ensureTenant } from '../service/store/users';
import { bigStep, caxif } from '../service/testing/step-files';

/**
 * CPU (ms) of every thread of this process, from /proc/self/task/<tid>/schedstat (Linux; its
 * first field is the thread's time on CPU in ns). process.cpuUsage() only gives the sum, and Node
 * 20 has no per-thread clock; this splits a job's CPU into the main thread (the queue's polling,
 * PGlite), the worker that ran the job, and the rest (V8's GC and compiler threads, libuv, idle
 * workers). Undefined where /proc is not there.
 */
function threadCpu(): Map<string, number> | undefined {
  try {
    const out = new Map<string, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        out.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
      } catch {
        // The thread ended between listing and reading.
      }
    }
    return out;
  } catch {
    return undefined;
  }
}
const mainTid = (() => {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop();
  } catch {
    return undefined;
  }
})();

interface ThreadSplit {
  main: number;
  worker: number;
  others: number;
}

function splitThreads(before: Map<string, number> | undefined, after: Map<string, number> | undefined): ThreadSplit | undefined {
  if (!before || !after || !mainTid) return undefined;
  const deltas = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
  const main = deltas.find((d) => d.tid === mainTid)?.ms ?? 0;
  // The job runs on one worker thread: the busiest thread other than the main one.
  const rest = deltas.filter((d) => d.tid !== mainTid).sort((a, b) => b.ms - a.ms);
  const worker = rest[0]?.ms ?? 0;
  return { main, worker, others: rest.slice(1).reduce((sum, d) => sum + d.ms, 0) };
}

const runs = Number(process.env.BENCH_RUNS ?? 5);
const stepRuns = Number(process.env.BENCH_STEP_RUNS ?? Math.min(runs, 3));
const throughputParts = Number(process.env.BENCH_PARTS ?? 200);

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-bench-ingest-'));
  const store = await openStore({ dataDir });
  const blobs = new LocalBlobStore(path.join(dataDir, 'blobs'));
  const waiting = new Map<string, (r: IngestResult) => void>();
  const ingestion = await startIngestion({
    store,
    blobs,
    config: {
      exclusiveDatabase: true,
      pollIntervalMs: 500,
      upgradeDelaySeconds: 0,
      log: { info() {}, warn: console.warn, error: console.error },
      onResult: (id, r) => waiting.get(id)?.(r),
    },
  });
  const { db } = store;
  const tenant = await ensureTenant(db, 'bench', 'Bench');
  const folder = await createFolder(db, { tenantId: tenant.id, name: `bench-${Date.now()}` });
  let n = 0;
  const insert = async (fileName: string, bytes: Uint8Array) => {
    const id = crypto.randomUUID();
    const key = modelBlobKeys(tenant.id, id).source;
    await blobs.put(key, bytes);
    const unique = `${n++}-${fileName}`;
    await db
      .insertInto('models')
      .values({
        id,
        tenant_id: tenant.id,
        folder_id: folder.id,
        name: unique,
        file_path: `${folder.name}/${unique}`,
        file_path_lower: `${folder.name}/${unique}`.toLowerCase(),
        file_name: unique,
        file_name_lower: unique.toLowerCase(),
        file_type: extensionOf(fileName),
        state: 'processing',
        blob_key: key,
        size_bytes: bytes.byteLength,
      })
      .execute();
    return id;
  };
  const ingestOne = async (fileName: string, bytes: Uint8Array) => {
    const id = await insert(fileName, bytes);
    const done = new Promise<IngestResult>((resolve) => waiting.set(id, resolve));
    const cpu = process.cpuUsage();
    const threads = threadCpu();
    const t0 = performance.now();
    await ingestion.lifecycle.reprocess(id, { reason: 'uploaded' });
    const result = await done;
    const used = process.cpuUsage(cpu);
    const split = splitThreads(threads, threadCpu());
    if (result.kind !== 'done' || result.state !== 'finished') throw new Error(`${fileName}: ${JSON.stringify(result)}`);
    return {
      cpuMs: (used.user + used.system) / 1000,
      wallMs: performance.now() - t0,
      workerCpuMs: result.cpuMs ?? NaN,
      timings: result.timings ?? {},
      split,
    };
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  // Later issues add their own stages to the same job, each with its own budget: report them
  // apart from the base pipeline (import → facts → viewer GLB → thumbnail → database).
  const extraStages: { label: string; prefix: string; budgetMs: number }[] = [
    { label: 'search descriptors', prefix: 'search', budgetMs: 300 },
    { label: 'image views', prefix: 'views', budgetMs: 500 },
  ];
  const stageCpu = (timings: Record<string, number>, prefix: string) =>
    Object.entries(timings)
      .filter(([k]) => k.startsWith(`cpu:${prefix}`))
      .reduce((sum, [, v]) => sum + v, 0);
  const report = (label: string, budgetMs: number, samples: Awaited<ReturnType<typeof ingestOne>>[]) => {
    const base = samples.map((s) => s.cpuMs - extraStages.reduce((sum, e) => sum + stageCpu(s.timings, e.prefix), 0));
    const cpu = median(base);
    const wall = median(samples.map((s) => s.wallMs));
    const mid = [...samples].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(samples.length / 2)]!;
    const stages = (kind: 'cpu' | 'wall', of = mid) =>
      Object.entries(of.timings)
        .filter(([k]) => (kind === 'cpu') === k.startsWith('cpu:'))
        .map(([k, v]) => `${k.replace(/^cpu:/, '')} ${v.toFixed(0)}`)
        .join(', ');
    const spread = `runs ${base.map((b) => b.toFixed(0)).join(', ')}`;
    console.log(
      `${label}: base pipeline CPU ${cpu.toFixed(0)} ms median of ${samples.length} (${spread}) — budget ${budgetMs} ms, ${cpu <= budgetMs ? 'within' : 'OVER'} (ratio ${(cpu / budgetMs).toFixed(2)}); wall ${wall.toFixed(0)} ms; load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(`  worker stages, CPU ms (process-wide while the job runs alone): ${stages('cpu')}`);
    console.log(`  worker stages, wall ms: ${stages('wall')}`);
    const worst = samples[base.indexOf(Math.max(...base))]!;
    if (Math.max(...base) > 1.5 * cpu) {
      // Outliers are shown, not hidden: the machine is shared, and GC or JIT work lands somewhere.
      console.log(
        `  slowest run (${Math.max(...base).toFixed(0)} ms; worker task ${worst.workerCpuMs.toFixed(0)} ms), worker stages CPU ms: ${stages('cpu', worst)}`,
      );
    }
    const splits = samples.map((s) => s.split).filter((x) => x !== undefined);
    // What the process-wide figures count besides the job's own thread: the main thread's work
    // during the job (queue polling every pollIntervalMs, PGlite, the blob and database writes)
    // grows with the job's wall time, so a loaded machine inflates every stage's figure.
    let mainPerWallMs = 0;
    if (splits.length === samples.length) {
      const pick = (k: keyof ThreadSplit) => median(splits.map((x) => x[k])).toFixed(0);
      mainPerWallMs = median(samples.map((s) => s.split!.main / Math.max(1, s.wallMs)));
      console.log(
        `  whole job by thread (median, ms): job's worker thread ${pick('worker')}, main thread ${pick('main')} (${(100 * mainPerWallMs).toFixed(1)} % of wall time), GC/compiler/other threads ${pick('others')}`,
      );
    }
    for (const e of extraStages) {
      const own = samples.map((s) => stageCpu(s.timings, e.prefix));
      if (!own.some((v) => v > 0)) continue;
      const m = median(own);
      const wall = median(
        samples.map((s) =>
          Object.entries(s.timings)
            .filter(([k]) => k.startsWith(e.prefix))
            .reduce((sum, [, v]) => sum + v, 0),
        ),
      );
      const mainShare = mainPerWallMs * wall;
      console.log(
        `  ${e.label} (stages ${e.prefix}*): CPU ${m.toFixed(0)} ms median, process-wide — budget ${e.budgetMs} ms, ${m <= e.budgetMs ? 'within' : 'OVER'}` +
          (mainPerWallMs
            ? `; over its ${wall.toFixed(0)} ms of wall time the main thread's work (queue polling, database) at its rate over the job ≈ ${mainShare.toFixed(0)} ms of that, not the stage's own`
            : ''),
      );
    }
  };

  try {
    // Warm-up: every worker thread loads the geometry code and OpenCascade once, and its JIT
    // settles; so each thread gets a few models at once (piscina hands concurrent tasks to
    // different idle threads). A service pays this once per thread after start, not per model.
    const warmStl = toStlBinary((await sphere({ triangles: 20_000 })).mesh);
    const warmStep = readFileSync(path.join(caxif, 'io1-cm-214.stp'));
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: ingestion.pool.size }, () => ingestOne('warm.stl', warmStl)));
    }
    await Promise.all(Array.from({ length: ingestion.pool.size }, () => ingestOne('warm.stp', warmStep)));

    const ball = await sphere({ triangles: 50_000 });
    const stl = toStlBinary(ball.mesh);
    const stlSamples = [];
    for (let i = 0; i < runs; i++) stlSamples.push(await ingestOne('sphere-50k.stl', stl));
    report(
      `STL ${(ball.mesh.indices.length / 3).toLocaleString('en-US')} triangles (${(stl.byteLength / 1e6).toFixed(1)} MB)`,
      500,
      stlSamples,
    );

    const step = bigStep();
    const stepSamples = [];
    for (let i = 0; i < stepRuns; i++) stepSamples.push(await ingestOne('big.stp', step.bytes));
    if (stepSamples.length)
      report(`STEP ${(step.bytes.byteLength / 1e6).toFixed(1)} MB (${step.copies} copies of CAx-IF as1-oc-214.stp)`, 3000, stepSamples);

    const makers = [
      (i: number) => plateWithHoles({ holes: [1 + (i % 4), 1 + (i % 3)], length: 80 + i }),
      (i: number) => bracket({ size: 40 + (i % 20) }),
      (i: number) => flange({ bolts: 4 + (i % 6) }),
    ];
    const ids: string[] = [];
    let triangles = 0;
    for (let i = 0; i < throughputParts; i++) {
      const part = await makers[i % makers.length]!(i);
      triangles += part.mesh.indices.length / 3;
      ids.push(await insert(`part-${i}.stl`, toStlBinary(part.mesh)));
    }
    if (!ids.length) return;
    const t0 = performance.now();
    await Promise.all(ids.map((id) => ingestion.lifecycle.reprocess(id, { reason: 'uploaded' })));
    await ingestion.idle();
    const minutes = (performance.now() - t0) / 60_000;
    const states = await db.selectFrom('models').select(['state']).where('id', 'in', ids).execute();
    const finished = states.filter((s) => s.state === 'finished').length;
    console.log(
      `throughput: ${finished}/${ids.length} parts (avg ${Math.round(triangles / ids.length).toLocaleString('en-US')} triangles) in ${(minutes * 60).toFixed(1)} s = ${(finished / minutes).toFixed(0)} models/minute on ${os.availableParallelism()} cores (${ingestion.pool.size} worker threads)`,
    );
  } finally {
    await ingestion.stop();
    await store.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
