/**
 * Budget (issue 17): a duplicates report over 5,000 models ready in ≤ 30 s, and its first page of
 * 24 groups answered.
 *
 * Starts the real service with its workers (the report queue), bulk-loads 5,000 generated models
 * spread over ten folders (search-latency.ts bulkLoad: designs at every score level, 30 % stored as
 * 2–6 near-copies), and settles their exact pairs once in process, as ingestion does before a model
 * turns finished. Then, over HTTP as the app does: start a report over the whole tenant, poll it
 * until ready (the timed figure: from the POST to the poll that sees it ready), and ask for its
 * first page of groups. Repeated BENCH_REPEATS times (default 3); a report over three of the
 * folders is timed too.
 *
 * `npm run bench:review` (BENCH_REPORT_MODELS, BENCH_REPEATS).
 */
import os from 'node:os';
import { serviceIngestion } from '../service/ingest/start-ingestion';
import { scopeDuplicates } from '../service/search/duplicates';
import { createFolder } from '../service/store/folders';
import { startTestService } from '../service/testing/start-test-service';
import { baseFeatures, bulkLoad } from './search-latency';

const budgetMs = 30_000;
const modelCount = Number(process.env.BENCH_REPORT_MODELS ?? 5_000);
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const log = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const quiet = { info() {}, warn() {}, error: (...a: unknown[]) => console.error(...a) };

const bases = await baseFeatures(512);
const t = await startTestService({ ingestion: serviceIngestion({ pollIntervalMs: 500, upgradeDelaySeconds: 3600, log: quiet }) });
try {
  const user = await t.createUser({ tenantKey: 'bench-review', roles: ['viewer', 'editor'] });
  const token = await t.tokenFor(user);
  const folders = [];
  for (let i = 0; i <= 10; i++) folders.push(await createFolder(t.db, { tenantId: user.tenantId, name: `bench-review-${i}` }));
  // folderModels 0: every model goes to folders 1–10, none to folder 0.
  const { loadMs } = await bulkLoad(t.db, { tenantId: user.tenantId, modelCount, folderModels: 0, folders, bases });
  log(`loaded ${modelCount} models in ${(loadMs / 1000).toFixed(1)} s; load ${load()}`);
  const s0 = performance.now();
  await scopeDuplicates(t.db, user.tenantId, null, 98);
  log(`exact pairs settled in ${((performance.now() - s0) / 1000).toFixed(0)} s (ingestion's work, not timed); load ${load()}`);

  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(`${t.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      ...(init.json ? { body: JSON.stringify(init.json) } : {}),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  type Report = { id: string; status: string; modelCount: number | null; groupCount: number | null; error: string | null };
  const runReport = async (json: unknown) => {
    const s = performance.now();
    let report = (await api('/v2/duplicate-reports', { method: 'POST', json })).report as Report;
    while (report.status !== 'ready') {
      if (report.status === 'failed') throw new Error(`report failed: ${report.error}`);
      await new Promise((r) => setTimeout(r, 100));
      report = (await api(`/v2/duplicate-reports/${report.id}`)).report as Report;
    }
    const readyMs = performance.now() - s;
    const g = performance.now();
    const page = (await api(`/v2/duplicate-reports/${report.id}/groups?perPage=24`)) as { groups: { members: unknown[] }[] };
    return { readyMs, groupsMs: performance.now() - g, report, members: page.groups.reduce((n, x) => n + x.members.length, 0) };
  };

  for (const [label, json] of [
    ['whole tenant', {}],
    ['three folders', { folderIds: folders.slice(1, 4).map((f) => f.id) }],
  ] as const) {
    const runs = [];
    for (let i = 0; i < repeats; i++) {
      runs.push(await runReport(json));
      log(
        `${label} run ${i + 1}: ready in ${runs.at(-1)!.readyMs.toFixed(0)} ms, first page ${runs.at(-1)!.groupsMs.toFixed(0)} ms; load ${load()}`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ready = median(runs.map((r) => r.readyMs));
    const { report, members } = runs[0]!;
    console.log(
      `duplicates report, ${label}: ${report.modelCount} models, ${report.groupCount} groups at 98 — ready in ${ready.toFixed(0)} ms median of [${runs.map((r) => r.readyMs.toFixed(0)).join(', ')}] ` +
        `${ready <= budgetMs ? '✓' : '✗'} (budget ${budgetMs / 1000} s, ratio ${(ready / budgetMs).toFixed(3)}); first page of 24 groups (${members} members) ${median(runs.map((r) => r.groupsMs)).toFixed(0)} ms median; load ${load()}`,
    );
    if (ready > budgetMs) process.exitCode = 1;
  }
} finally {
  await t.stop();
}
