/**
 * Budgets of the matches page (issue 6):
 *  - 24 results with 3D previews: all drawn within 3 s of the match response, in headless
 *    Chromium (Debian /usr/bin/chromium, the e2e launch arguments), with one WebGL context;
 *  - the page's own JavaScript beyond the shell ≤ 250 KB gzip (three and R3F included).
 * Builds the app, starts the real service (`npm start`) on a throwaway data directory, uploads 25
 * generated parts, then opens the query's part-to-part matches at threshold 0 in fresh browser
 * contexts (no cached files) and times from the answer's arrival to the last preview drawn,
 * with where that time went: the phases on the page's clock, main-thread long tasks and WebGL
 * frames, and the CPU time of the browser's processes and the service (Linux /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { isSettled, type Model } from '../contract/models';
import { bracket, flange, plateWithHoles, toStlBinary } from '../geometry/testing/fixtures';
import { countContexts } from '../../e2e/webgl-contexts';
import { buildAndReadManifest } from './vite-manifest';

const drawBudgetMs = 3000;
const chunkBudgetKb = 250;
const reviewChunkBudgetKb = 60;
const results = 24;
const runs = Number(process.env.BENCH_RUNS ?? 3);
const port = Number(process.env.BENCH_PORT ?? 8431);
const origin = `http://localhost:${port}`;
const user = {
  email: process.env.DEMO_USER ?? 'demo@example.com',
  password: process.env.DEMO_PASSWORD ?? 'demo-password',
  name: 'Demo Designer',
};

// --- bundle ---------------------------------------------------------------------------------
const { manifest, entryKey, closure, gz, jsFiles } = await buildAndReadManifest();
// The shell: what every signed-in page has loaded already (entry + app instance).
const shell = closure([entryKey, 'src/app/app-instance.tsx']);
const pageKey = 'src/features/matches/matches-page.tsx';
if (!manifest[pageKey]) throw new Error(`${pageKey} is not in the Vite manifest`);
const own = jsFiles([...closure([pageKey])].filter((k) => !shell.has(k)));
const ownBytes = own.reduce((s, f) => s + gz(f), 0);
console.log('Matches page JavaScript beyond the shell (gzip, level 9):');
for (const f of own) console.log(`  ${(gz(f) / 1024).toFixed(1).padStart(7)} KB  ${f}`);
console.log(
  `  ${(ownBytes / 1024).toFixed(1).padStart(7)} KB  total — budget ${chunkBudgetKb} KB, ratio ${(ownBytes / 1024 / chunkBudgetKb).toFixed(2)}`,
);
// The duplicate review's report page (issue 17): what it loads beyond the matches page.
const reviewKey = 'src/features/review/report-page.tsx';
if (!manifest[reviewKey]) throw new Error(`${reviewKey} is not in the Vite manifest`);
const loaded = new Set([...shell, ...closure([pageKey])]);
const reviewOwn = jsFiles([...closure([reviewKey])].filter((k) => !loaded.has(k)));
const reviewBytes = reviewOwn.reduce((sum, f) => sum + gz(f), 0);
console.log('Duplicate review page JavaScript beyond the shell and the matches page (gzip, level 9):');
for (const f of reviewOwn) console.log(`  ${(gz(f) / 1024).toFixed(1).padStart(7)} KB  ${f}`);
console.log(
  `  ${(reviewBytes / 1024).toFixed(1).padStart(7)} KB  total — budget ${reviewChunkBudgetKb} KB, ratio ${(reviewBytes / 1024 / reviewChunkBudgetKb).toFixed(2)}`,
);

// --- service ----------------------------------------------------------------------------------
const dataDir = mkdtempSync(join(tmpdir(), 'workbench-bench-matches-'));
const service: ChildProcess = spawn('npm', ['start', '--silent'], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: origin, DATA_DIR: dataDir },
  stdio: 'ignore',
  detached: true,
});
let stopped = false;
function stopService() {
  // Called from `finally` and again on exit: the process group may be gone by then.
  if (stopped || service.exitCode !== null || !service.pid) return;
  stopped = true;
  try {
    process.kill(-service.pid, 'SIGTERM');
  } catch {
    // already exited
  }
}
process.on('exit', stopService);

async function waitForService() {
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      if ((await fetch(`${origin}/oauth2/default/.well-known/openid-configuration`)).ok) return;
    } catch {
      // not up yet
    }
    if (service.exitCode !== null) throw new Error(`service exited with ${service.exitCode}`);
    if (Date.now() > deadline) throw new Error('service did not start within 240 s');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function signIn(page: Page, path: string) {
  await page.goto(`${origin}${path}`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: new RegExp(user.name) }).waitFor();
}

async function tokenOf(page: Page): Promise<string> {
  return page.evaluate(() => {
    for (let i = 0; i < sessionStorage.length; i++) {
      const key = sessionStorage.key(i) ?? '';
      if (key.startsWith('oidc.user:')) return (JSON.parse(sessionStorage.getItem(key) ?? '{}') as { access_token: string }).access_token;
    }
    throw new Error('not signed in');
  });
}

/** 25 plausible parts: plates, brackets and flanges of different sizes; the first plate is the query. */
async function parts(): Promise<{ name: string; bytes: Uint8Array }[]> {
  const out: { name: string; bytes: Uint8Array }[] = [];
  for (let i = 0; i < 9; i++)
    out.push({
      name: `plate-${i}`,
      bytes: toStlBinary((await plateWithHoles({ length: 80 + i * 6, width: 50 + i * 2, holes: [2 + (i % 2), 2] })).mesh),
    });
  for (let i = 0; i < 8; i++)
    out.push({ name: `bracket-${i}`, bytes: toStlBinary((await bracket({ size: 30 + i * 4, thickness: 4 + (i % 3) })).mesh) });
  for (let i = 0; i < 8; i++)
    out.push({ name: `flange-${i}`, bytes: toStlBinary((await flange({ diameter: 60 + i * 8, bolts: 4 + (i % 4) })).mesh) });
  return out;
}

async function upload(page: Page, token: string, files: { name: string; bytes: Uint8Array }[], folder: string): Promise<Model[]> {
  const headers = { authorization: `Bearer ${token}` };
  const created = await page.request.post(`${origin}/v2/models?createMissingFolders=true`, {
    headers,
    data: { models: files.map((f) => ({ filePath: `${folder}/${f.name}.stl`, name: f.name })) },
  });
  if (created.status() !== 201) throw new Error(`create: ${created.status()} ${await created.text()}`);
  const entries = (await created.json()).models as { model: Model; uploadUrl: string; headers: Record<string, string> }[];
  for (const [i, e] of entries.entries()) {
    const put = await page.request.put(e.uploadUrl, { headers: e.headers, data: Buffer.from(files[i]!.bytes) });
    if (put.status() >= 300) throw new Error(`upload: ${put.status()}`);
  }
  const ids = entries.map((e) => e.model.id);
  const deadline = Date.now() + 300_000;
  for (;;) {
    const filter = encodeURIComponent(`id(in(${ids.map((id) => `'${id}'`).join(',')}))`);
    const res = await page.request.get(`${origin}/v2/models?perPage=100&filter=${filter}`, { headers });
    const models = (await res.json()).models as Model[];
    if (models.length === ids.length && models.every((m) => isSettled(m.state))) return ids.map((id) => models.find((m) => m.id === id)!);
    if (Date.now() > deadline) throw new Error('models did not settle within 300 s');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Page init script: when each preview became ready, main-thread long tasks, slow animation frames. */
const recordPhases = () => {
  const w = window as unknown as { __phases: { ready: number[]; longTasks: [number, number][]; frames: [number, number][] } };
  const phases: typeof w.__phases = { ready: [], longTasks: [], frames: [] };
  w.__phases = phases;
  new MutationObserver((records) => {
    for (const r of records) if ((r.target as HTMLElement).dataset.viewerReady === 'true') phases.ready.push(performance.now());
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-viewer-ready'] });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) phases.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  const raf = window.requestAnimationFrame.bind(window);
  // Frames that did work (the canvas draws in animation frames): start and duration.
  window.requestAnimationFrame = (callback) =>
    raf((time) => {
      const start = performance.now();
      callback(time);
      const took = performance.now() - start;
      if (took > 4) phases.frames.push([start, took]);
    });
};

interface Figures {
  ms: number;
  /** The previews of the first window drawn (all of them when the page fits the window). */
  firstScreen: { ms: number; n: number };
  contexts: number;
  drawn: number;
  /** Milliseconds after the match response (page clock). */
  cardsShown: number;
  addresses: { n: number; first: number; last: number };
  files: { n: number; first: number; last: number; kb: number };
  firstReady: number;
  longTasks: { n: number; ms: number; max: number };
  frames: { n: number; ms: number; max: number };
  /** CPU milliseconds from navigation to the last preview drawn, by process. */
  cpu: Record<string, number>;
}

/** CPU time (ms) of this bench's browser processes by type, and of the service; empty off Linux. */
function cpuByProcess(servicePid: number | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  const statOf = (pid: string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const descends = (pid: string, root: number) => {
    for (let p = pid, i = 0; p !== '0' && p !== '1' && i < 30; i++, p = statOf(p)[1]!) if (Number(p) === root) return true;
    return false;
  };
  try {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const type =
          servicePid && descends(pid, servicePid)
            ? 'service'
            : /chrom/.test(cmd) && descends(pid, process.pid)
              ? (/--type=([a-z-]+)/.exec(cmd)?.[1] ?? 'browser')
              : null;
        if (!type) continue;
        const stat = statOf(pid);
        out[type] = (out[type] ?? 0) + (Number(stat[11]) + Number(stat[12])) * 10; // clock ticks of 10 ms
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return out;
}

/**
 * The steady state a designer meets: models settled and the service's background work after
 * ingestion (exact search pairs, search/background-pairs.ts) done — under 5 % of a core for 2 s.
 */
async function serviceQuiet(limitMs = 180_000): Promise<void> {
  const t0 = Date.now();
  for (let last = cpuByProcess(service.pid).service ?? 0; Date.now() - t0 < limitMs;) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = cpuByProcess(service.pid).service ?? 0;
    if (now - last < 100) return console.log(`service quiet after ${((Date.now() - t0) / 1000).toFixed(0)} s of background work`);
    last = now;
  }
  console.log(`service still busy after ${limitMs / 1000} s; measuring anyway`);
}

/** A page of previews to time: where, which cards, the answer they wait for, how many. */
interface Target {
  path: string;
  card: string;
  /** Pattern (source) of the request whose answer starts the clock. */
  response: string;
  n: number;
}

async function measure(browser: Browser, target: Target): Promise<Figures> {
  // Tall enough that all 24 match cards are on screen at once: "all drawn" means all visible. A
  // longer page (the review's 24 groups) is scrolled a screen at a time once the screen's previews are drawn.
  const context = await browser.newContext({ viewport: { width: 1920, height: 3200 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(countContexts);
    await page.addInitScript(recordPhases);
    await signIn(page, '/folders');
    const cpuBefore = cpuByProcess(service.pid);
    await page.goto(`${origin}${target.path}`);
    const handle = await page.waitForFunction(
      ({ n, card, response }) => {
        const cards = [...document.querySelectorAll(card)];
        const ready = cards.filter((c) => c.querySelector('[data-viewer-ready="true"]')).length;
        if (ready < n) {
          const onScreen = cards.filter((c) => {
            const r = c.getBoundingClientRect();
            return r.bottom > 0 && r.top < innerHeight;
          });
          if (cards.length >= n && onScreen.length && onScreen.every((c) => c.querySelector('[data-viewer-ready="true"]'))) {
            const w = window as unknown as { __firstScreen?: [number, number] };
            w.__firstScreen ??= [performance.now(), onScreen.length];
            scrollBy(0, innerHeight);
          }
          return null;
        }
        const now = performance.now();
        const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
        const entry = resources.filter((e) => new RegExp(response).test(e.name)).pop();
        const t0 = entry ? entry.responseEnd : Number.NaN;
        const w = window as unknown as {
          __webgl: WebGLRenderingContext[];
          __phases: { ready: number[]; longTasks: [number, number][]; frames: [number, number][] };
        };
        // No named functions in here: tsx would wrap them in a helper the page does not have.
        const [thumbnails, addresses, files] = [/thumbnail/, /viewer-file/, /viewer\.glb/].map((pattern) => {
          const list = resources.filter((e) => pattern.test(e.name));
          return {
            n: list.length,
            first: Math.min(...list.map((e) => e.startTime)) - t0,
            last: Math.max(...list.map((e) => e.responseEnd)) - t0,
            kb: list.reduce((sum, e) => sum + e.encodedBodySize, 0) / 1024,
          };
        });
        const [longTasks, frames] = [w.__phases.longTasks, w.__phases.frames].map((list) => {
          const after = list.filter(([start]) => start >= t0).map(([, took]) => took);
          return { n: after.length, ms: after.reduce((a, b) => a + b, 0), max: Math.max(0, ...after) };
        });
        const first = (window as unknown as { __firstScreen?: [number, number] }).__firstScreen;
        return {
          ms: now - t0,
          firstScreen: first ? { ms: first[0] - t0, n: first[1] } : { ms: now - t0, n: ready },
          contexts: w.__webgl.filter((c) => !c.isContextLost()).length,
          drawn: ready,
          cardsShown: thumbnails!.first,
          addresses: addresses!,
          files: files!,
          firstReady: Math.min(...w.__phases.ready) - t0,
          longTasks: longTasks!,
          frames: frames!,
          cpu: {},
        };
      },
      { n: target.n, card: target.card, response: target.response },
      { polling: 'raf', timeout: 60_000 },
    );
    const figures = (await handle.jsonValue())!;
    const cpuAfter = cpuByProcess(service.pid);
    figures.cpu = Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, cpuAfter[k]! - (cpuBefore[k] ?? 0)]));
    return figures;
  } finally {
    await context.close();
  }
}

/** One run's phases on one line (ms after the match response). */
function phaseLine(f: Figures): string {
  const r = (x: number) => x.toFixed(0);
  return [
    `cards ${r(f.cardsShown)}`,
    f.addresses.n
      ? `viewer-file addresses ${f.addresses.n}× ${r(f.addresses.first)}–${r(f.addresses.last)}`
      : 'viewer-file addresses: none asked (carried by the models)',
    `GLBs ${f.files.n}× ${r(f.files.first)}–${r(f.files.last)} (${f.files.kb.toFixed(0)} KB)`,
    `first/last drawn ${r(f.firstReady)}/${r(f.ms)}`,
    `long tasks ${f.longTasks.n} = ${r(f.longTasks.ms)} ms (max ${r(f.longTasks.max)})`,
    `frames ${f.frames.n} = ${r(f.frames.ms)} ms (max ${r(f.frames.max)})`,
    `CPU ms ${Object.entries(f.cpu)
      .filter(([, ms]) => ms > 0)
      .map(([k, ms]) => `${k} ${ms}`)
      .join(', ')}`,
  ].join(' | ');
}

try {
  await waitForService();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const setup = await browser.newPage();
    await signIn(setup, '/folders');
    const files = await parts();
    const models = await upload(setup, await tokenOf(setup), files, 'Bench matches');
    const query = models[0]!;
    const headers = { authorization: `Bearer ${await tokenOf(setup)}` };
    const check = await setup.request.get(`${origin}/v2/models/${query.id}/part-to-part-matches?threshold=0&perPage=24`, { headers });
    const count = ((await check.json()) as { matches: unknown[] }).matches.length;
    if (count < results) throw new Error(`only ${count} part-to-part matches at threshold 0; need ${results}`);
    // The review: a second file of 24 of the parts in another folder, so a report finds 24 groups of two.
    await upload(
      setup,
      await tokenOf(setup),
      files.slice(1).map((f) => ({ name: `${f.name}-copy`, bytes: f.bytes })),
      'Bench review copies',
    );
    const started = await setup.request.post(`${origin}/v2/duplicate-reports`, {
      headers: { authorization: `Bearer ${await tokenOf(setup)}` },
      data: {},
    });
    const reportId = ((await started.json()) as { report: { id: string } }).report.id;
    for (let status = ''; status !== 'ready'; await new Promise((r) => setTimeout(r, 250))) {
      status = (
        (await (
          await setup.request.get(`${origin}/v2/duplicate-reports/${reportId}`, {
            headers: { authorization: `Bearer ${await tokenOf(setup)}` },
          })
        ).json()) as { report: { status: string } }
      ).report.status;
      if (status === 'failed') throw new Error('the duplicates report failed');
    }
    const groups = (
      (await (
        await setup.request.get(`${origin}/v2/duplicate-reports/${reportId}/groups?perPage=24`, {
          headers: { authorization: `Bearer ${await tokenOf(setup)}` },
        })
      ).json()) as { groups: { members: unknown[] }[] }
    ).groups;
    const members = groups.reduce((n, g) => n + g.members.length, 0);
    if (groups.length < results) throw new Error(`the report found ${groups.length} groups; need ${results}`);
    await setup.close();
    await serviceQuiet();

    const pages: [string, Target][] = [
      [
        'match results',
        {
          path: `/models/${query.id}/matches/part-to-part?threshold=0`,
          card: '[data-testid=match-card]',
          response: 'part-to-part-matches\\?threshold=0&page=1&perPage=24',
          n: results,
        },
      ],
      [
        `review groups (${members} previews, scrolled a screen at a time)`,
        { path: `/review/${reportId}`, card: '[data-testid=review-member]', response: `duplicate-reports/${reportId}/groups`, n: members },
      ],
    ];
    for (const [label, target] of pages) {
      const figures: Figures[] = [];
      for (let i = 0; i < runs; i++) figures.push(await measure(browser, target));
      const times = figures.map((f) => f.ms).sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      console.log(`${label}: ${target.n} previews drawn after the answer (median of ${runs}, fresh contexts), budget ${drawBudgetMs} ms:`);
      console.log(
        `  ${median.toFixed(0)} ms  ratio ${(median / drawBudgetMs).toFixed(2)}  [${figures.map((f) => f.ms.toFixed(0)).join(', ')} ms]`,
      );
      console.log(`  WebGL contexts alive: ${figures.map((f) => f.contexts).join(', ')} (budget 1)`);
      if (figures.some((f) => f.firstScreen.n < target.n))
        console.log(
          `  first window drawn: ${figures.map((f) => `${f.firstScreen.n} previews in ${f.firstScreen.ms.toFixed(0)} ms`).join(', ')}`,
        );
      console.log('  phases (ms after the answer):');
      for (const f of figures) console.log(`    ${phaseLine(f)}`);
      if (median > drawBudgetMs || figures.some((f) => f.contexts !== 1)) process.exitCode = 1;
    }
    console.log(
      `  load average (1, 5, 15 min): ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} — wall-clock figures are distorted by other work on this machine`,
    );
  } finally {
    await browser.close();
  }
} finally {
  stopService();
  rmSync(dataDir, { recursive: true, force: true });
}
if (ownBytes / 1024 > chunkBudgetKb || reviewBytes / 1024 > reviewChunkBudgetKb) process.exitCode = 1;
