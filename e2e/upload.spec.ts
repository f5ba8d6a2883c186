import { rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { accessTokenOf } from './api';
import { servesOurFields, signIn } from './support';
import {
  assemblyFolder,
  CAXIF_DIR,
  leafParts,
  partsFolder,
  stepFiles,
  stlFolder,
  SUBS,
  tempDir,
  TOP,
  UploadTraffic,
} from './upload-support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');
const SETTLED = ['finished', 'finished-incomplete', 'failed', 'failed-incomplete', 'unsupported'];

let root = '';
test.beforeAll(() => {
  root = tempDir('e2e');
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

const rows = (page: Page) => page.getByTestId('upload-row');
/** A batch row by its path inside the target folder (as the page shows it). */
const row = (page: Page, shownPath: string) => rows(page).filter({ has: page.getByText(shownPath, { exact: true }) });

async function chooseTarget(page: Page, folder: string): Promise<void> {
  await page.getByLabel('Target folder').fill(folder);
}

/** Share of a screenshot's pixels in the highlight's orange. */
async function orangeShare(locator: Locator): Promise<number> {
  const { data, info } = await sharp(await locator.screenshot())
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let orange = 0;
  for (let i = 0; i < data.length; i += 3) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (r > g + 30 && g > b + 30 && r > b + 90) orange++;
  }
  return orange / (info.width * info.height);
}

/** Waits until every row of the batch shows a settled state. */
async function waitAllSettled(page: Page, count: number, timeout: number): Promise<void> {
  await expect(async () => {
    const statuses = await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status') ?? ''));
    expect(statuses).toHaveLength(count);
    expect(statuses.filter((s) => !SETTLED.includes(s))).toEqual([]);
  }).toPass({ timeout, intervals: [1000] });
}

test('a dropped folder: parts before the assembly, every file ends in its state, polled in one request a second', async ({ page }) => {
  test.setTimeout(360_000);
  const dir = await assemblyFolder(root, 'Plane');
  const target = `E2E Upload ${Date.now()}`;
  const traffic = new UploadTraffic(page);

  await signIn(page, '/upload');
  await chooseTarget(page, target);
  // The folder picker (<input webkitdirectory>) gets the folder as it is on disk, subfolder included.
  await page.getByTestId('upload-input').setInputFiles(dir);

  const review = page.getByTestId('upload-review-row');
  await expect(review).toHaveCount(stepFiles.length + 3);
  const reviewRow = (p: string) => review.filter({ has: page.getByText(p, { exact: true }) });
  await expect(reviewRow(`Plane/${TOP}`)).toContainText('Assembly');
  for (const s of SUBS) await expect(reviewRow(`Plane/parts/${s}`)).toContainText('Sub-assembly');
  await expect(reviewRow(`Plane/parts/${leafParts[0]}`)).toContainText('Part');
  await expect(reviewRow('Plane/housing.sldprt')).toContainText(/native CAD/i);
  await expect(page.getByRole('status').filter({ hasText: /files into/ })).toContainText('11 parts, 4 sub-assemblies, 1 assembly');
  await page.evaluate(() => window.scrollTo(0, 0));
  if (servesOurFields()) await page.screenshot({ path: path.join(SCREENSHOTS, 'upload-review.png'), fullPage: true });

  const started = Date.now();
  await page.getByRole('button', { name: 'Start upload' }).click();
  await expect(rows(page)).toHaveCount(stepFiles.length + 3);
  await expect(page.getByTestId('upload-indicator')).toBeVisible();
  await expect(row(page, `Plane/${TOP}`)).toHaveAttribute('data-status', /processing|uploading|waiting/);
  // Mid-way: some files finished while others are still sent or processed.
  await expect(page.locator('[data-testid=upload-row][data-status=finished]').first()).toBeVisible({ timeout: 120_000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  if (servesOurFields()) await page.screenshot({ path: path.join(SCREENSHOTS, 'upload-progress.png'), fullPage: true });

  await waitAllSettled(page, stepFiles.length + 3, 300_000);
  const elapsedMs = Date.now() - started;

  await expect(row(page, `Plane/${TOP}`)).toHaveAttribute('data-status', 'finished');
  for (const f of [...SUBS, ...leafParts]) await expect(row(page, `Plane/parts/${f}`)).toHaveAttribute('data-status', 'finished');
  await expect(row(page, `Plane/plate.stl`)).toHaveAttribute('data-status', 'finished');
  const broken = row(page, `Plane/broken.stl`);
  await expect(broken).toHaveAttribute('data-status', 'failed');
  // The service's reason, shown on the row (the published API sends no reasons).
  if (servesOurFields()) await expect(broken).toContainText(/cut off/i);
  await expect(broken.getByRole('button', { name: /Reprocess/ })).toBeVisible();
  const native = row(page, `Plane/housing.sldprt`);
  await expect(native).toHaveAttribute('data-status', 'unsupported');
  if (servesOurFields()) await expect(native).toContainText(/SolidWorks/);
  await expect(page.getByTestId('upload-summary')).toHaveText(/14 ready, 1 failed, 1 unsupported/);
  // Finished rows link to their model page.
  await expect(row(page, `Plane/${TOP}`).getByRole('link')).toHaveAttribute('href', /^\/models\//);

  // Sending: one creation request for the 17 records, every PUT of a part or sub-assembly started
  // before the top assembly's, sub-assemblies after their leaf parts.
  expect(traffic.creates.length).toBeLessThanOrEqual(2);
  expect(traffic.creates.flatMap((c) => c.filePaths)).toHaveLength(stepFiles.length + 3);
  const putOrder = await traffic.putPaths();
  expect(putOrder).toHaveLength(stepFiles.length + 3);
  const at = (p: string) => putOrder.indexOf(`${target}/Plane/${p}`);
  expect(at(TOP)).toBe(putOrder.length - 1);
  for (const s of SUBS) for (const l of leafParts) expect(at(`parts/${s}`)).toBeGreaterThan(at(`parts/${l}`));

  // Polling: the whole batch in one request (ids in one chunk), never more than one a second.
  const polls = traffic.polls;
  expect(polls.length).toBeGreaterThan(0);
  expect(Math.max(...polls.map((p) => p.ids.length))).toBeGreaterThanOrEqual(10);
  expect(polls.every((p) => p.ids.length <= 100)).toBe(true);
  // ≤ 1 a second, with 100 ms of slack per gap for the runner's timing (see maxPollsWithin):
  // never two within 0.9 s, never more than ten within 9.9 s.
  expect(traffic.maxPollsWithin(900)).toBe(1);
  expect(traffic.maxPollsWithin(9900)).toBeLessThanOrEqual(10);
  expect(polls.length).toBeLessThanOrEqual(Math.ceil(elapsedMs / 1000) + 1);
  test.info().annotations.push({
    type: 'polling',
    description: `${polls.length} poll requests in ${(elapsedMs / 1000).toFixed(1)} s for ${putOrder.length} files; largest ${Math.max(...polls.map((p) => p.ids.length))} ids; gaps ${polls
      .slice(1)
      .map((p, i) => p.at - polls[i]!.at)
      .join(' ')} ms`,
  });
  console.log(test.info().annotations.at(-1)?.description);

  // Settled: polling stops.
  const before = traffic.polls.length;
  await page.waitForTimeout(4000);
  expect(traffic.polls.length).toBe(before);

  // The file that was cut off is replaced by a whole one: the same record takes it and is
  // processed again (this service's replaceFailed; the published API answers such a path 409).
  if (servesOurFields()) {
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      broken.getByRole('button', { name: 'Replace the file of', exact: false }).click(),
    ]);
    await chooser.setFiles(path.join(dir, 'plate.stl'));
    await expect(broken).toHaveAttribute('data-status', 'finished', { timeout: 120_000 });
    await expect(page.getByTestId('upload-summary')).toHaveText(/15 ready, 1 unsupported/);
  }
});

test('assembly first, parts later: it ends with parts missing, then finished once they land', async ({ page, request }) => {
  test.setTimeout(360_000);
  const target = `E2E Upload late parts ${Date.now()}`;
  const partsDir = partsFolder(root, 'parts');
  const traffic = new UploadTraffic(page);

  await signIn(page, '/upload');
  await chooseTarget(page, target);
  // The assembly on its own first (file picker): processed with nothing to place, parts missing.
  await page.getByTestId('upload-file-input').setInputFiles(path.join(CAXIF_DIR, TOP));
  await expect(page.getByTestId('upload-review-row')).toHaveCount(1);
  await page.getByRole('button', { name: 'Start upload' }).click();
  const top = row(page, TOP);
  await expect(top).toHaveAttribute('data-status', 'failed-incomplete', { timeout: 120_000 });
  // The missing files, listed (the published API sends no list).
  if (servesOurFields()) await expect(top).toContainText(/Missing parts: TAIL\.stp, HEAD\.stp, MAINBODY\.stp, FOOT\.stp/);

  // Then its sub-assemblies and parts, in a subfolder of the assembly's folder, as a second batch.
  await page.getByRole('button', { name: 'Upload more files' }).click();
  await chooseTarget(page, target);
  await page.getByTestId('upload-input').setInputFiles(partsDir);
  await expect(page.getByTestId('upload-review-row')).toHaveCount(stepFiles.length - 1);
  await page.getByRole('button', { name: 'Start upload' }).click();
  await waitAllSettled(page, stepFiles.length - 1, 300_000);
  await expect(page.locator('[data-testid=upload-row][data-status=finished]')).toHaveCount(stepFiles.length - 1);

  // The service linked the parts to the assembly and reprocessed it: finished, nothing missing.
  const token = await accessTokenOf(page);
  const topId = await traffic.modelIdOf(`${target}/${TOP}`);
  expect(topId).toBeTruthy();
  await expect(async () => {
    const res = await request.get(`/v2/models/${topId}`, { headers: { authorization: `Bearer ${token}` } });
    const { model: m } = (await res.json()) as { model: { state: string; missingParts?: string[] | null } };
    expect(m?.state).toBe('finished');
    expect(m?.missingParts ?? []).toEqual([]);
  }).toPass({ timeout: 180_000, intervals: [2000] });

  // The assembly dropped again: the review says it is already there, and sends nothing unless asked.
  await page.getByRole('button', { name: 'Upload more files' }).click();
  await chooseTarget(page, target);
  await page.getByTestId('upload-file-input').setInputFiles(path.join(CAXIF_DIR, TOP));
  const stored = page.getByTestId('upload-stored');
  await expect(stored).toContainText('One file is already on the service at the same path');
  await expect(stored.getByRole('listitem')).toHaveText([TOP]);
  await expect(page.getByRole('radio', { name: /Skip them/ })).toBeChecked();
  await expect(page.getByTestId('upload-review-row')).toHaveCount(0);
  await page.getByRole('button', { name: 'Start upload' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Every file is already on the service' })).toBeVisible();
  await page.getByRole('radio', { name: /Keep both/ }).check();
  const renamed = TOP.replace('.stp', ' (2).stp');
  await expect(page.getByTestId('upload-review-row')).toHaveCount(1);
  await expect(page.getByTestId('upload-review-row')).toContainText(renamed);
  await expect(page.getByTestId('upload-review-row')).toContainText(`kept beside it as ${renamed}`);
  await page.getByRole('button', { name: 'Cancel' }).click();

  // Its page: a sub-assembly of the tree, shown in the 3D view, is drawn highlighted where it sits.
  await page.goto(`/models/${topId}`);
  const viewer = page.locator('.viewer[data-viewer-ready="true"]');
  await expect(viewer).toBeVisible({ timeout: 30_000 });
  expect(await orangeShare(viewer)).toBeLessThan(0.001);
  // The published tree names no node and places none: names come from the models, and nothing can be shown in place.
  await expect(page.locator('.assembly__name').filter({ hasText: /^TAIL\.stp$/ })).toBeVisible();
  if (!servesOurFields()) {
    await expect(page.getByRole('button', { name: 'Show TAIL.stp in the 3D view' })).toHaveCount(0);
    return;
  }
  await page.getByRole('button', { name: 'Show TAIL.stp in the 3D view' }).click();
  await expect(page.getByRole('button', { name: 'Show TAIL.stp in the 3D view' })).toHaveAttribute('aria-pressed', 'true');
  await expect(async () => expect(await orangeShare(viewer)).toBeGreaterThan(0.002)).toPass({ timeout: 15_000 });
  await page.getByLabel('Show it alone').check();
  await expect(async () => expect(await orangeShare(viewer)).toBeGreaterThan(0.002)).toPass({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Show the whole assembly' }).click();
  await expect(async () => expect(await orangeShare(viewer)).toBeLessThan(0.001)).toPass({ timeout: 15_000 });
});

test('reload mid-upload: the page asks first, the batch comes back, and the same folder again sends only what was not sent', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const count = 12;
  const dir = await stlFolder(root, 'Plates', count);
  const target = `E2E Upload resume ${Date.now()}`;

  await signIn(page, '/upload');
  await chooseTarget(page, target);
  await page.getByTestId('upload-input').setInputFiles(dir);
  await expect(page.getByTestId('upload-review-row')).toHaveCount(count);

  // The first 4 uploads go through; the others are held at the network until the reload
  // (released then, they are dead requests of the old page). After the reload, PUTs pass.
  let putsBefore = 0;
  let reloaded = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/uploads/models/**', async (route) => {
    if (route.request().method() !== 'PUT' || reloaded) return route.fallback();
    putsBefore++;
    if (putsBefore <= 4) return route.fallback();
    await released;
    await route.abort().catch(() => undefined);
  });
  await page.getByRole('button', { name: 'Start upload' }).click();
  await expect(async () => {
    const stored = await rows(page).evaluateAll(
      (trs) => trs.filter((tr) => ['processing', 'finished'].includes(tr.getAttribute('data-status') ?? '')).length,
    );
    expect(stored).toBe(4);
  }).toPass({ timeout: 60_000 });
  // Let the throttled save (once a second) write the batch with the 4 stored files.
  await page.waitForTimeout(2500);
  expect(putsBefore).toBe(4 + 3); // 4 through, 3 held: never more than 3 in flight to the app's own origin

  // Leaving mid-upload asks first (beforeunload); accepting reloads.
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void dialog.accept();
  });
  await page.reload();
  reloaded = true;
  release();
  expect(dialogs).toEqual(['beforeunload']);
  const putsAfter: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PUT' && r.url().includes('/uploads/models/')) putsAfter.push(r.url());
  });

  // After the reload the batch is back: the 4 stored files go on being followed, the other 8 wait for their files.
  await expect(rows(page)).toHaveCount(count);
  await expect(page.locator('[data-testid=upload-row][data-status=needs-file]')).toHaveCount(count - 4);
  await expect(page.getByTestId('upload-indicator')).toBeVisible();
  expect(putsAfter).toHaveLength(0);

  // The same folder again: only the files not sent yet go out.
  await page.getByTestId('upload-input').setInputFiles(dir);
  await waitAllSettled(page, count, 180_000);
  await expect(page.locator('[data-testid=upload-row][data-status=finished]')).toHaveCount(count);
  expect(putsAfter).toHaveLength(count - 4);
  await expect(page.getByTestId('upload-summary')).toHaveText(`${count} ready`);
});

test('uploads on a slow link leave the app connections: the Folders page opens while they run', async ({ page }) => {
  test.setTimeout(240_000);
  const dir = await stlFolder(root, 'Slow link', 8);
  await signIn(page, '/upload');
  await chooseTarget(page, `E2E Slow ${Date.now()}`);
  await page.getByTestId('upload-input').setInputFiles(dir);
  await expect(page.getByTestId('upload-review-row')).toHaveCount(8);

  // 64 kB/s up: each file takes seconds, and every PUT in flight holds one of the browser's six
  // connections to this origin for all that time.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });
  await page.getByRole('button', { name: 'Start upload' }).click();
  await expect(rows(page).and(page.locator('[data-status=uploading]')).first()).toBeVisible();
  await page.waitForTimeout(1000);
  const uploading = await rows(page).and(page.locator('[data-status=uploading]')).count();

  const started = Date.now();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Folders' }).click();
  await expect(page.getByRole('tree')).toBeVisible();
  await expect(page.getByTestId('model-card').first()).toBeVisible();
  const took = Date.now() - started;
  console.log(`Folders page with ${uploading} uploads in flight on a 64 kB/s link: ${took} ms (budget 1,000 ms)`);
  // Before uploads were held to three on the app's origin this took 20 s; a generous bound
  // catches that without timing the machine (the figure above is the measurement).
  expect(took).toBeLessThan(8000);
  expect(uploading).toBeLessThanOrEqual(3);

  // Back on the upload page, while the batch is still being sent, a second one is queued behind it.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload' }).click();
  await expect(page.getByRole('heading', { name: 'Queue another batch' })).toBeVisible();
  const queuedTarget = `E2E Queued ${Date.now()}`;
  await chooseTarget(page, queuedTarget);
  await page.getByTestId('upload-input').setInputFiles(await stlFolder(root, 'Queued', 2));
  await expect(page.getByTestId('upload-review-row')).toHaveCount(2);
  await page.getByRole('button', { name: 'Start upload' }).click();
  const queued = page.getByTestId('upload-queued');
  await expect(queued).toContainText('starts on its own once the batches above have been sent');
  await expect(page.getByRole('heading', { name: 'Queue another batch' })).toBeVisible();

  // The rest of the first batch finishes at full speed; then the queued one is sent on its own.
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(queued).toHaveCount(0, { timeout: 120_000 });
  await expect(page.getByRole('heading', { name: new RegExp(`— ${queuedTarget}$`) })).toBeVisible();
  await expect(row(page, 'Queued/plate-01.stl')).toHaveAttribute('data-status', 'finished', { timeout: 120_000 });
});
