/**
 * npm run bench:scale — the same 200 files through 1 worker process and through 2 (WORKER_THREADS=1
 * each), on PostgreSQL + an S3-compatible server + one API process (src/scale/cluster.ts). This
 * machine has 2 cores, so wall time cannot show how far workers scale; what must hold is models
 * per CPU-second (API, workers and PostgreSQL together) within 10 % from 1 to 2 workers: nothing
 * shared (queue polling, locks, the database) eats the added capacity. Also: the API's p95 for
 * GET /v2/models and for part-to-part matches while the workers are saturated (budget 150 ms).
 *
 * Knobs: BENCH_SCALE_FILES (default 200).
 */
import { isSettled } from '../contract/models';
import { box, toStlBinary } from '../geometry/testing/fixtures';
import { scaleParts, startCluster, type Cluster } from '../scale/cluster';

const FILES = Number(process.env.BENCH_SCALE_FILES ?? 200);

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? NaN;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function run(workers: number, set: { name: string; bytes: Uint8Array }[]) {
  const cluster: Cluster = await startCluster({ workers, threads: 1 });
  try {
    const { http, token } = cluster;
    // One model first, finished, so that matches can be asked for while the rest is ingested.
    const [probe] = await http.createModels(token, [{ filePath: 'Probe/probe.stl' }]);
    await http.put(probe!, toStlBinary((await box([12, 34, 56])).mesh));
    await http.api(token, `/v2/models/${probe!.model.id}/upload-complete`, { method: 'POST' });
    await http.waitSettled(token, [probe!.model.id]);

    const entries = await http.createModels(
      token,
      set.map((f) => ({ filePath: `Bench/${f.name}` })),
    );
    const before = cluster.cpuSeconds();
    const t0 = performance.now();
    await Promise.all(
      entries.map(async (entry, i) => {
        await http.put(entry, set[i]!.bytes);
        await http.api(token, `/v2/models/${entry.model.id}/upload-complete`, { method: 'POST' });
      }),
    );
    const ids = entries.map((e) => e.model.id);
    const list: number[] = [];
    const matches: number[] = [];
    let settled = false;
    const timeList = async () => {
      const s = performance.now();
      await (await http.api(token, '/v2/models?perPage=50')).arrayBuffer();
      list.push(performance.now() - s);
    };
    const timeMatches = async () => {
      const s = performance.now();
      await (await http.api(token, `/v2/models/${probe!.model.id}/part-to-part-matches?threshold=80`)).arrayBuffer();
      matches.push(performance.now() - s);
    };
    // The app's own load while designers wait: lists and match pages, a few a second.
    const load = (async () => {
      while (!settled) {
        await timeList();
        await timeMatches();
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    for (;;) {
      const models = await http.models(token, ids);
      if (models.every((m) => isSettled(m.state))) {
        const failed = models.filter((m) => m.state !== 'finished');
        if (failed.length)
          console.warn(
            `  ${failed.length} model(s) did not finish: ${failed
              .slice(0, 3)
              .map((m) => `${m.name} ${m.state}`)
              .join(', ')}`,
          );
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const wall = (performance.now() - t0) / 1000;
    settled = true;
    await load;
    const after = cluster.cpuSeconds();
    const cpu = {
      api: after.api - before.api,
      workers: after.workers.map((w, i) => w - (before.workers[i] ?? 0)),
      postgres: after.postgres - before.postgres,
    };
    const total = cpu.api + sum(cpu.workers) + cpu.postgres;
    return {
      workers,
      wall,
      cpu,
      total,
      perCpuSecond: set.length / total,
      perMinute: (set.length / wall) * 60,
      listP95: p95(list),
      matchesP95: p95(matches),
      samples: list.length,
    };
  } finally {
    await cluster.stop();
  }
}

async function main() {
  const set = await scaleParts(FILES);
  console.log(`bench:scale — ${FILES} STL parts, PostgreSQL + s3rver + 1 API process, worker processes with WORKER_THREADS=1 each`);
  const results = [];
  for (const workers of [1, 2]) {
    const r = await run(workers, set);
    results.push(r);
    console.log(
      `  ${workers} worker(s): ${r.wall.toFixed(1)} s wall (${r.perMinute.toFixed(0)} models/min); CPU s: api ${r.cpu.api.toFixed(1)}, workers ${r.cpu.workers.map((w) => w.toFixed(1)).join(' + ')}, postgres ${r.cpu.postgres.toFixed(1)} = ${r.total.toFixed(1)} → ${r.perCpuSecond.toFixed(2)} models per CPU-second; API p95 while saturated: GET /v2/models ${r.listP95.toFixed(0)} ms, part-to-part ${r.matchesP95.toFixed(0)} ms (${r.samples} samples each; budget 150 ms)`,
    );
  }
  const [one, two] = results as [(typeof results)[0], (typeof results)[0]];
  const efficiency = two.perCpuSecond / one.perCpuSecond;
  console.log(
    `  2 vs 1 worker: wall-time ratio ${(one.wall / two.wall).toFixed(2)}× (2 cores, so not a measure of scaling); models per CPU-second ratio ${efficiency.toFixed(2)} (target 0.90–1.10)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
