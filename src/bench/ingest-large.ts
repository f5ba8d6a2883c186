/**
 * npm run bench:ingest-large — binary STL files of 0.1, 0.5 and 1 GiB, and text STL, OBJ and binary
 * PLY of 0.3 GiB (a ring tessellated as finely as the size asks, service/testing/big-stl.ts) through the built service as `npm start`
 * runs it (one process: API, worker threads, PGlite, files on disk): the streamed upload, ingestion
 * (read from disk a piece at a time, simplified for features and pictures:
 * service/ingest/large-mesh.ts), a part-to-part query and the viewer file a preview loads.
 *
 * Budgets (issue 34): 1 GiB ingested ≤ 4 min with the worker's peak resident set ≤ 2 GiB; a
 * 100 MB upload adds ≤ 50 MB to the API process's resident set. In this one process the API and
 * the workers share the resident set, so both figures are upper bounds of each.
 *
 * Knobs: BENCH_LARGE (format:GiB list, default "stl:0.1,stl:0.5,stl:1,stl-ascii:0.3,obj:0.3,ply:0.3"), BENCH_LARGE_SETTLE_S (seconds of quiet after the
 * warm-up model, default 30: earlier, its background work shows in the first upload's figure),
 * BENCH_LARGE_DIR (where the files are written;
 * default the system's temporary folder — it needs the largest file's size free twice, once for
 * the file and once for the service's copy).
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { isSettled, modelSchema } from '../contract/models';
import { similarityMatchesResponseSchema } from '../contract/matches';
import { addUser, startServiceProcess, type ServiceProcess } from '../reliability/service-process';
import { client } from '../reliability/workbench-client';
import { writeBigIndexed, writeBigStl } from '../service/testing/big-stl';
import { freePort } from '../service/testing/free-port';
import { signInWithPkce } from '../service/testing/oidc-flows';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
/** What each format takes per triangle, roughly (the ring's numbers as written): to aim at a size. */
const BYTES_PER_TRIANGLE = { stl: 50, 'stl-ascii': 260, obj: 53, ply: 19 } as const;
type Format = keyof typeof BYTES_PER_TRIANGLE;
const cases = (process.env.BENCH_LARGE ?? 'stl:0.1,stl:0.5,stl:1,stl-ascii:0.3,obj:0.3,ply:0.3').split(',').map((c) => {
  const [format, gib] = c.split(':') as [Format, string];
  if (!(format in BYTES_PER_TRIANGLE)) throw new Error(`BENCH_LARGE: unknown format ${format}`);
  return { format, gib: Number(gib) };
});
const ann = { email: 'ann@acme.example.com', password: 'ann-password-1', tenant: 'acme', roles: 'viewer,editor' };

/** Seconds spent so far in each processing stage, from the service's own metrics (ingest_stage_seconds). */
async function stageSeconds(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^ingest_stage_seconds_sum\{stage="([^"]+)"\} ([0-9.e+-]+)$/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

/** The process's resident set sampled every 100 ms: the highest since `reset`. */
function watchRss(svc: ServiceProcess) {
  let peak = svc.rss();
  const timer = setInterval(() => (peak = Math.max(peak, svc.rss())), 100);
  return {
    reset: () => (peak = svc.rss()),
    peak: () => Math.max(peak, svc.rss()),
    stop: () => clearInterval(timer),
  };
}

async function main() {
  const root = process.env.BENCH_LARGE_DIR ?? os.tmpdir();
  const files = await fs.mkdtemp(path.join(root, 'gsw-large-files-'));
  const dataDir = await fs.mkdtemp(path.join(root, 'gsw-large-data-'));
  const env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  let svc: ServiceProcess | undefined;
  try {
    await addUser(env, ann);
    svc = await startServiceProcess(env);
    const http = client(svc.baseUrl);
    const token = (await signInWithPkce(svc.baseUrl, ann)).tokens.access_token;
    // One small model through first, so that the figures below are of the sizes, not of the
    // service's first upload and first model.
    const warm = path.join(files, 'warm-up.stl');
    await writeBigStl(warm, 20_000);
    const [first] = await http.createModels(token, [{ filePath: 'Large/warm-up.stl' }]);
    await http.put(first!, await fs.readFile(warm));
    await http.waitSettled(token, [first!.model.id]);
    // …and its background work (pairs, the look for outdated models 10 s after start) over.
    await new Promise((r) => setTimeout(r, Number(process.env.BENCH_LARGE_SETTLE_S ?? 30) * 1000));
    const rss = watchRss(svc);
    const rows: string[] = [];
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ${os.availableParallelism()} cores`,
    );

    for (const { format, gib } of cases) {
      const name = `ring-${gib}GiB-${format}.${format === 'stl-ascii' ? 'stl' : format}`;
      const label = `${{ stl: 'binary STL', 'stl-ascii': 'text STL', obj: 'OBJ', ply: 'binary PLY' }[format]} ${gib} GiB`;
      const file = path.join(files, name);
      const wanted = Math.floor((gib * GiB) / BYTES_PER_TRIANGLE[format]);
      const t0 = performance.now();
      const written =
        format === 'obj' || format === 'ply'
          ? await writeBigIndexed(file, wanted, format)
          : await writeBigStl(file, wanted, { ascii: format === 'stl-ascii' });
      console.log(
        `${label}: wrote ${written.triangles.toLocaleString('en')} triangles (${(written.bytes / GiB).toFixed(3)} GiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );

      const [entry] = await http.createModels(token, [{ filePath: `Large/${name}` }]);
      const before = svc.rss();
      rss.reset();
      console.log(`  resident set before the upload: ${(before / MiB).toFixed(0)} MiB`);
      const u0 = performance.now();
      const put = await fetch(entry!.uploadUrl, {
        method: 'PUT',
        headers: { ...entry!.headers, 'content-length': String(written.bytes) },
        body: Readable.toWeb(createReadStream(file)) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      if (put.status !== 200) throw new Error(`upload: ${put.status} ${await put.text()}`);
      const uploadS = (performance.now() - u0) / 1000;
      const uploadAdded = rss.peak() - before;

      rss.reset();
      const stagesBefore = await stageSeconds(svc.baseUrl);
      const i0 = performance.now();
      const [model] = await http.waitSettled(token, [entry!.model.id], 15 * 60_000);
      const ingestS = (performance.now() - i0) / 1000;
      const ingestPeak = rss.peak();
      const stagesAfter = await stageSeconds(svc.baseUrl);
      const stages = [...stagesAfter]
        .map(([stage, total]) => [stage, total - (stagesBefore.get(stage) ?? 0)] as const)
        .filter(([, seconds]) => seconds >= 0.05);
      const inStages = stages.reduce((sum, [, seconds]) => sum + seconds, 0);
      console.log(
        `  stages (s): ${stages.map(([stage, seconds]) => `${stage} ${seconds.toFixed(1)}`).join(', ')}; outside them (queue, storing, pairs) ${(ingestS - inStages).toFixed(1)}`,
      );
      if (!model || !isSettled(model.state) || model.state !== 'finished')
        throw new Error(`${label}: ${model?.state} ${model?.stateReason ?? ''}`);

      const q0 = performance.now();
      const matches = await http.api(token, `/v2/models/${model.id}/part-to-part-matches?threshold=0`);
      const found = similarityMatchesResponseSchema.parse(await matches.json()).matches.length;
      const queryMs = performance.now() - q0;
      const viewer = await http.api(token, `/v2/models/${model.id}/viewer-file`);
      const { viewerFile } = (await viewer.json()) as { viewerFile: string };
      const glb = (await (await fetch(viewerFile)).arrayBuffer()).byteLength;
      const detail = modelSchema.parse(model).facts?.simplified;

      rows.push(
        `| ${label} (${(written.bytes / MiB).toFixed(0)} MiB) | ${written.triangles.toLocaleString('en')} | ${detail?.triangles.toLocaleString('en') ?? '—'} | ${uploadS.toFixed(1)} | ${(uploadAdded / MiB).toFixed(0)} | ${ingestS.toFixed(1)} | ${(ingestPeak / MiB).toFixed(0)} | ${queryMs.toFixed(0)} (${found}) | ${(glb / MiB).toFixed(1)} |`,
      );
      console.log(rows.at(-1));
      await fs.rm(file, { force: true });
      // The stored copy goes too, so that the next size has the disk.
      await http.api(token, `/v2/models/${model.id}`, { method: 'DELETE' });
    }
    rss.stop();
    console.log(
      '\n| file | triangles | simplified to | upload s | RSS added by the upload, MiB | PUT end → finished, s | peak RSS while ingesting, MiB | part-to-part query ms (matches) | viewer file MiB |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log('\nbudgets: 1 GiB ≤ 240 s and peak RSS ≤ 2048 MiB; a 100 MB upload adds ≤ 50 MB (ratios: divide by those)');
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await svc?.stop();
    await fs.rm(files, { recursive: true, force: true });
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
