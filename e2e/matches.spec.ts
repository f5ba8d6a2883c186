import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import type { Mesh } from '../src/geometry/mesh/mesh';
import { box, bracket, flange, plateWithHoles, toObj, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadAddressOf, uploadModels, waitSettled } from './api';
import { servesOurFields, signIn } from './support';
import { countContexts, liveContextCount } from './webgl-contexts';

async function liveContexts(page: Page): Promise<number> {
  return page.evaluate(liveContextCount);
}

/** Share of a screenshot's pixels that differ from its top-left pixel, and of those that are clearly green or red. */
async function pixels(locator: Locator): Promise<{ drawn: number; green: number; red: number }> {
  const png = await locator.screenshot();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r0, g0, b0] = [data[0]!, data[1]!, data[2]!];
  let drawn = 0;
  let green = 0;
  let red = 0;
  for (let i = 0; i < data.length; i += 3) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (Math.abs(r - r0) + Math.abs(g - g0) + Math.abs(b - b0) > 30) drawn++;
    if (g > r + 30 && g > b + 20) green++;
    if (r > g + 60 && r > b + 60) red++;
  }
  const total = info.width * info.height;
  return { drawn: drawn / total, green: green / total, red: red / total };
}

function rotatedZ(mesh: Mesh): Mesh {
  const positions = new Float32Array(mesh.positions.length);
  for (let i = 0; i < positions.length; i += 3) {
    positions[i] = -mesh.positions[i + 1]!;
    positions[i + 1] = mesh.positions[i]!;
    positions[i + 2] = mesh.positions[i + 2]!;
  }
  return { ...mesh, positions };
}

/** Two parts in one mesh, the second moved along X: an "assembly" that contains the first. */
function merged(a: Mesh, b: Mesh, dx: number): Mesh {
  const positions = new Float32Array(a.positions.length + b.positions.length);
  positions.set(a.positions);
  for (let i = 0; i < b.positions.length; i += 3) {
    positions[a.positions.length + i] = b.positions[i]! + dx;
    positions[a.positions.length + i + 1] = b.positions[i + 1]!;
    positions[a.positions.length + i + 2] = b.positions[i + 2]!;
  }
  const indices = new Uint32Array(a.indices.length + b.indices.length);
  indices.set(a.indices);
  const offset = a.positions.length / 3;
  for (let i = 0; i < b.indices.length; i++) indices[a.indices.length + i] = b.indices[i]! + offset;
  return { positions, indices, units: a.units };
}

async function matchesFromService(request: APIRequestContext, token: string, id: string, kind: string, threshold: number, order = '') {
  const res = await request.get(`/v2/models/${id}/${kind}-matches?threshold=${threshold}&perPage=100${order ? `&order=${order}` : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as {
    matchCount?: number;
    pageData: { total: number };
    matches: {
      matchedModel: { id: string; name: string };
      matchPercentage?: number;
      forwardMatchPercentage?: number;
      reverseMatchPercentage?: number;
    }[];
  };
  // A deployment of the published API counts in pageData only.
  return { ...body, matchCount: body.matchCount ?? body.pageData.total };
}

test('matches: threshold, shared-canvas previews, compare overlay, duplicates', async ({ page, request }) => {
  test.setTimeout(240_000);
  await page.addInitScript(countContexts);
  page.on('pageerror', (error) => console.log(`page error: ${error.message}`));
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Matches ${Date.now()}`;
  const [plate, other, part, cube] = await Promise.all([plateWithHoles(), flange(), bracket(), box([40, 25, 15])]);
  const models = await uploadModels(request, token, [
    { filePath: `${folder}/plate.stl`, name: 'Plate', bytes: toStlBinary(plate.mesh) },
    // The same part again, turned and in another format: a known duplicate.
    { filePath: `${folder}/plate-copy.obj`, name: 'Plate copy', bytes: toObj(rotatedZ(plate.mesh)) },
    { filePath: `${folder}/flange.stl`, name: 'Flange', bytes: toStlBinary(other.mesh) },
    { filePath: `${folder}/bracket.stl`, name: 'Bracket', bytes: toStlBinary(part.mesh) },
    { filePath: `${folder}/block.stl`, name: 'Block', bytes: toStlBinary(cube.mesh) },
    // An assembly made of the plate and the flange: contains the plate.
    {
      filePath: `${folder}/Assemblies/plate-and-flange.stl`,
      name: 'Plate and flange',
      bytes: toStlBinary(merged(plate.mesh, other.mesh, 160)),
    },
  ]);
  const settled = await waitSettled(
    request,
    token,
    models.map((m) => m.id),
    150_000,
  );
  expect(
    settled.every((m) => m.state === 'finished'),
    settled.map((m) => `${m.name}=${m.state}`).join(', '),
  ).toBe(true);
  const plateId = models[0]!.id;
  const copyId = models[1]!.id;
  const folderId = models[0]!.folderId;

  // What the service says, to compare the page with.
  const all = await matchesFromService(request, token, plateId, 'part-to-part', 0);
  expect(all.matches.find((m) => m.matchedModel.id === copyId)?.matchPercentage ?? 0).toBeGreaterThanOrEqual(98);
  const at80 = await matchesFromService(request, token, plateId, 'part-to-part', 80);
  const scores = all.matches.map((m) => m.matchPercentage!).sort((a, b) => a - b);
  // A threshold just above the lowest score: the list must lose at least that one.
  const cut = Math.min(100, Math.floor(scores[0]!) + 1);
  const atCut = await matchesFromService(request, token, plateId, 'part-to-part', cut);
  expect(atCut.matchCount).toBeLessThan(all.matchCount);

  // The model page links into the matches.
  await page.goto(`/models/${plateId}`);
  await page.getByRole('link', { name: /Part-to-part matches/ }).click();
  await expect(page).toHaveURL(new RegExp(`/models/${plateId}/matches/part-to-part`));
  await expect(page.getByTestId('match-count')).toContainText(`${at80.matchCount} ${at80.matchCount === 1 ? 'match' : 'matches'} at 80%`);
  await expect(page.getByTestId('count-part-to-part')).toHaveText(String(at80.matchCount));
  await expect(page.getByTestId('match-card')).toHaveCount(Math.min(24, at80.matchCount));

  // The slider by keyboard: Home = 0, then step up to the cut. Debounced: one request when it rests.
  const slider = page.getByRole('slider', { name: 'Part-to-part threshold' });
  await slider.focus();
  await page.keyboard.press('Home');
  await expect(page).toHaveURL(/threshold=0(&|$)/);
  await expect(page.getByTestId('match-count')).toContainText(`${all.matchCount} ${all.matchCount === 1 ? 'match' : 'matches'} at 0%`);
  await expect(page.getByTestId('match-card')).toHaveCount(Math.min(24, all.matchCount));
  for (let i = 0; i < cut; i++) await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(new RegExp(`threshold=${cut}(&|$)`));
  await expect(page.getByTestId('match-count')).toContainText(
    `${atCut.matchCount} ${atCut.matchCount === 1 ? 'match' : 'matches'} at ${cut}%`,
  );
  await expect(page.getByTestId('match-card').locator('.preview-card__title')).toHaveText(
    atCut.matches.slice(0, 24).map((m) => m.matchedModel.name),
  );

  // Back to 0 for the previews: every card draws its model in 3D, all in one WebGL context.
  await page.keyboard.press('Home');
  await expect(page.getByTestId('match-card')).toHaveCount(Math.min(24, all.matchCount));
  const cards = page.getByTestId('match-card');
  const n = await cards.count();
  // Other specs share the data directory, so there may be more cards than fit the window: previews
  // load as they scroll into view, so each card is brought into view before its drawing is checked.
  for (let i = 0; i < n; i++) {
    await cards.nth(i).scrollIntoViewIfNeeded();
    const preview = cards.nth(i).locator('[data-viewer-ready="true"]');
    await expect(preview, `preview ${i} is drawn`).toBeVisible({ timeout: 30_000 });
    expect((await pixels(preview)).drawn, `preview ${i} draws`).toBeGreaterThan(0.03);
  }
  // One WebGL canvas however many previews (each preview is a copy of its drawing).
  expect(await page.locator('canvas[data-shared-canvas]').count()).toBe(1);
  expect(await liveContexts(page)).toBe(1);
  await page.evaluate(() => window.scrollTo(0, 0));
  if (servesOurFields()) await page.screenshot({ path: 'e2e/screenshots/matches.png', fullPage: false });
  // A preview turns when dragged, and only that one is drawn again.
  const [first, second] = [cards.nth(0).locator('[data-viewer-ready="true"]'), cards.nth(1).locator('[data-viewer-ready="true"]')];
  await first.scrollIntoViewIfNeeded();
  const [firstBefore, secondBefore] = [await first.screenshot(), await second.screenshot()];
  const spot = (await first.boundingBox())!;
  await page.mouse.move(spot.x + spot.width / 2, spot.y + spot.height / 2);
  await page.mouse.down();
  await page.mouse.move(spot.x + spot.width / 2 + 80, spot.y + spot.height / 2, { steps: 5 });
  await page.mouse.up();
  await expect.poll(async () => Buffer.compare(await first.screenshot(), firstBefore)).not.toBe(0);
  expect(Buffer.compare(await second.screenshot(), secondBefore)).toBe(0);
  // Another window width draws the previews again at their new size.
  const copyWidth = () => first.locator('canvas').evaluate((c: HTMLCanvasElement) => c.width);
  const [widthBefore, shareBefore] = [await copyWidth(), (await pixels(first)).drawn];
  await page.setViewportSize({ width: 700, height: 800 });
  await expect.poll(copyWidth).not.toBe(widthBefore);
  await first.evaluate((element) => element.scrollIntoView({ block: 'center' })); // clear of the sticky header
  // The same view at another size: about the same share of it is the model.
  expect((await pixels(first)).drawn).toBeGreaterThan(shareBefore * 0.7);
  await page.setViewportSize({ width: 1280, height: 800 });
  // The graphics driver may drop the page's one context: every preview falls back to its thumbnail and says why.
  await page.evaluate(() =>
    (document.querySelector('canvas[data-shared-canvas]') as HTMLCanvasElement)
      .getContext('webgl2')
      ?.getExtension('WEBGL_lose_context')
      ?.loseContext(),
  );
  await expect(cards.first().getByText('Thumbnail (3D graphics stopped; reload to restart them)')).toBeVisible();
  await expect(cards.first().locator('[data-viewer-status="fallback"] img')).toBeVisible();

  // The table view has the same rows, sortable by name.
  await page.getByRole('button', { name: 'Table' }).click();
  await expect(page.getByTestId('match-row')).toHaveCount(Math.min(24, all.matchCount));
  await page.getByRole('button', { name: /^Name/ }).click();
  await expect(page).toHaveURL(/sort=name&dir=asc/);
  const byName = await request.get(`/v2/models/${plateId}/part-to-part-matches?threshold=0&perPage=24&order=name`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const names = ((await byName.json()) as Awaited<ReturnType<typeof matchesFromService>>).matches.map((m) => m.matchedModel.name);
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  await expect(page.getByTestId('match-row').locator('.table__name')).toHaveText(names);

  // Part-in-part: the tab keeps its own threshold (80) and lists what the service lists, with both scores.
  // The table's sort by name carries over to the tab, so the page asks for order=name.
  const pip = await matchesFromService(request, token, plateId, 'part-in-part', 80, 'name');
  console.log(
    'part-in-part of the plate at 80:',
    pip.matches.map((m) => `${m.matchedModel.name} ${m.forwardMatchPercentage}/${m.reverseMatchPercentage}`).join('; '),
  );
  await expect(page.getByTestId('count-part-in-part')).toHaveText(String(pip.matchCount));
  await page.getByTestId('tab-part-in-part').click();
  await expect(page).toHaveURL(/matches\/part-in-part\?threshold=80&threshold-part-to-part=0/);
  await expect(page.getByTestId('match-row')).toHaveCount(Math.min(24, pip.matchCount));
  await expect(page.getByTestId('match-row').locator('.table__name')).toHaveText(pip.matches.slice(0, 24).map((m) => m.matchedModel.name));

  // Compare the plate with its copy: side by side, then overlaid with deviation colours.
  await page.getByTestId('tab-part-to-part').click();
  await page.getByRole('button', { name: 'Cards' }).click();
  // Best first again: sorted by name, other specs' models (they share the library) can fill the first page.
  const unsorted = new URL(page.url());
  unsorted.searchParams.delete('sort');
  unsorted.searchParams.delete('dir');
  await page.goto(unsorted.toString());
  await page.getByTestId('match-card').filter({ hasText: 'Plate copy' }).getByRole('link', { name: 'Compare' }).click();
  await expect(page).toHaveURL(new RegExp(`/models/${plateId}/compare/${copyId}\\?kind=part-to-part`));
  await expect(page.locator('.compare[data-viewer-ready="true"]')).toBeVisible({ timeout: 30_000 });
  // The pair's score at the top, as the list scores it.
  const copyScore = all.matches.find((m) => m.matchedModel.id === copyId)?.matchPercentage;
  if (copyScore !== undefined)
    await expect(page.getByTestId('pair-bar')).toContainText(`Part-to-part score ${Number(copyScore.toPrecision(4))}%`);
  expect(await liveContexts(page)).toBe(1);
  expect((await pixels(page.getByTestId('compare-view-query'))).drawn).toBeGreaterThan(0.03);
  expect((await pixels(page.getByTestId('compare-view-match'))).drawn).toBeGreaterThan(0.03);
  // Dragging one view turns both (one linked camera), each drawn again into its own element.
  const [queryView, matchView] = [page.getByTestId('compare-view-query'), page.getByTestId('compare-view-match')];
  const [queryBefore, matchBefore] = [await queryView.screenshot(), await matchView.screenshot()];
  const area = (await queryView.boundingBox())!;
  await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
  await page.mouse.down();
  await page.mouse.move(area.x + area.width / 2 + 120, area.y + area.height / 2 + 30, { steps: 6 });
  await page.mouse.up();
  await expect.poll(async () => Buffer.compare(await queryView.screenshot(), queryBefore)).not.toBe(0);
  await expect.poll(async () => Buffer.compare(await matchView.screenshot(), matchBefore)).not.toBe(0);
  // Measuring: two clicks on the model, picked by the view's own raycaster.
  await page.getByLabel('Measure').click();
  await expect(page.getByTestId('measurement')).toHaveText('Click a point on a model, then a second one.');
  await queryView.click({ position: { x: area.width / 2, y: area.height / 2 } });
  await expect(page.getByTestId('measurement')).toHaveText('First point picked; click a second one.');
  await queryView.click({ position: { x: area.width / 2 + 15, y: area.height / 2 + 10 } });
  await expect(page.getByTestId('measurement')).toHaveText(/^Distance: \d/);
  await page.getByLabel('Measure').click();
  await expect(page.getByLabel('Measure')).not.toBeChecked();
  // A section cut changes what the view shows (whether its cap faces the camera depends on where
  // the drag above turned it: the next test checks the cap itself).
  const uncut = await page.getByTestId('compare-view-query').screenshot();
  await page.getByLabel('Section', { exact: true }).selectOption('x');
  await expect(page).toHaveURL(/section=x/);
  await expect.poll(async () => Buffer.compare(await page.getByTestId('compare-view-query').screenshot(), uncut)).not.toBe(0);
  // The view's state lives in the URL, set in a router transition: the box turns once it lands.
  await page.getByLabel('X-ray').click();
  await expect(page.getByLabel('X-ray')).toBeChecked();
  await expect(async () => expect((await pixels(page.getByTestId('compare-view-query'))).red).toBeLessThan(0.001)).toPass({
    timeout: 10_000,
  });
  await page.getByLabel('X-ray').click();
  await expect(page.getByLabel('X-ray')).not.toBeChecked();
  await page.getByLabel('Section', { exact: true }).selectOption('');
  await page.getByRole('button', { name: 'Overlay' }).click();
  await expect(page).toHaveURL(/mode=overlay/);
  await expect(page.locator('.compare[data-viewer-ready="true"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('deviation-legend')).toContainText(/\(tolerance\)/);
  if (servesOurFields()) {
    const overlay = await pixels(page.getByTestId('compare-view-overlay'));
    expect(overlay.green, 'deviation colours: the copy lies on the plate').toBeGreaterThan(0.02);
    await page.screenshot({ path: 'e2e/screenshots/compare.png', fullPage: true });
    // A link without a placement: Align asks the service for the pair and places it.
    await page.goto(`/models/${plateId}/compare/${copyId}?kind=part-to-part&mode=overlay`);
    await page.getByRole('button', { name: 'Align' }).click();
    await expect(page).toHaveURL(/transform=/);
  } else {
    // The published API's matches carry no placement: the page says so instead of misaligning silently.
    await expect(page.getByText('The models are overlaid as they lie in their files')).toBeVisible();
  }
  // The state is in the URL: a reload shows the same overlay.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Overlay' })).toHaveAttribute('aria-pressed', 'true');

  // Duplicates of the folder: the plate and its copy form a group; nothing else joins them.
  await page.goto(`/folders/${folderId}/duplicates`);
  const cluster = page.getByTestId('duplicate-cluster').filter({ hasText: 'Plate copy' });
  await expect(cluster).toBeVisible({ timeout: 30_000 });
  await expect(cluster.getByTestId('duplicate-card')).toHaveCount(2);
  await expect(cluster).toContainText('Plate');
  await expect(cluster.locator('[data-viewer-ready="true"]')).toHaveCount(2, { timeout: 30_000 });
  expect(await liveContexts(page)).toBe(1);
  if (servesOurFields()) await page.screenshot({ path: 'e2e/screenshots/duplicates.png', fullPage: false });
});

test('a model that is not finished shows its state and its matches once it is', async ({ page, request }) => {
  test.setTimeout(120_000);
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Matches waiting ${Date.now()}`;
  const created = await request.post('/v2/models?createMissingFolders=true', {
    headers: { authorization: `Bearer ${token}` },
    data: { models: [{ filePath: `${folder}/late.stl`, name: 'Late part' }] },
  });
  expect(created.status()).toBe(201);
  const entry = (await created.json()).models[0] as { model: { id: string } } & Parameters<typeof uploadAddressOf>[0];
  await page.goto(`/models/${entry.model.id}/matches/part-to-part`);
  await expect(page.getByTestId('matches-not-ready')).toContainText('not ready for matching yet');
  // The file arrives; the page notices by itself.
  const part = await bracket();
  const { uploadUrl, headers } = uploadAddressOf(entry);
  const put = await request.put(uploadUrl, { headers, data: Buffer.from(toStlBinary(part.mesh)) });
  expect(put.status()).toBeLessThan(300);
  await expect(page.getByTestId('match-count')).toBeVisible({ timeout: 90_000 });
});

/** The view's pixels: background (as its top-left pixel), red (the section cap), anything else drawn. */
async function pixelClasses(locator: Locator): Promise<('background' | 'red' | 'model')[]> {
  const { data } = await sharp(await locator.screenshot())
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const [r0, g0, b0] = [data[0]!, data[1]!, data[2]!];
  const out: ('background' | 'red' | 'model')[] = [];
  for (let i = 0; i < data.length; i += 3) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    if (r > g + 60 && r > b + 60) out.push('red');
    else out.push(Math.abs(r - r0) + Math.abs(g - g0) + Math.abs(b - b0) > 30 ? 'model' : 'background');
  }
  return out;
}

/** A box without its top face: an open surface, as sheet bodies and many exports are. */
function withoutTop(mesh: Mesh): Mesh {
  const top = Math.max(...Array.from({ length: mesh.positions.length / 3 }, (_, v) => mesh.positions[3 * v + 2]!));
  const kept: number[] = [];
  for (let t = 0; t < mesh.indices.length; t += 3) {
    const corners = [mesh.indices[t]!, mesh.indices[t + 1]!, mesh.indices[t + 2]!];
    if (!corners.every((v) => mesh.positions[3 * v + 2] === top)) kept.push(...corners);
  }
  return { ...mesh, indices: new Uint32Array(kept) };
}

test('a section cut fills the cut of a closed part inside its outline only, and leaves an open surface unfilled', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Sections ${Date.now()}`;
  const block = (await box([40, 30, 20])).mesh;
  const tray = withoutTop(block);
  const models = await uploadModels(request, token, [
    { filePath: `${folder}/block.stl`, name: 'Block', bytes: toStlBinary(block) },
    { filePath: `${folder}/block-copy.obj`, name: 'Block copy', bytes: toObj(block) },
    { filePath: `${folder}/tray.stl`, name: 'Tray', bytes: toStlBinary(tray) },
    { filePath: `${folder}/tray-copy.obj`, name: 'Tray copy', bytes: toObj(tray) },
  ]);
  const settled = await waitSettled(
    request,
    token,
    models.map((m) => m.id),
    120_000,
  );
  expect(settled.map((m) => m.state)).toEqual(['finished', 'finished', 'finished', 'finished']);
  const [blockId, blockCopyId, trayId, trayCopyId] = models.map((m) => m.id);
  const view = page.getByTestId('compare-view-query');
  const open = async (a: string, b: string, section: string) => {
    await page.goto(`/models/${a}/compare/${b}?kind=part-to-part${section}`);
    await expect(page.locator('.compare[data-viewer-ready="true"]')).toBeVisible({ timeout: 30_000 });
  };

  // The closed block: the cap covers part of the picture, and only where the block itself was drawn.
  await open(blockId!, blockCopyId!, '');
  const whole = await pixelClasses(view);
  await open(blockId!, blockCopyId!, '&section=x&at=50');
  await expect(async () => {
    const cut = await pixelClasses(view);
    const red = cut.filter((c) => c === 'red').length;
    expect(red / cut.length, 'the cut face is filled').toBeGreaterThan(0.01);
    const outside = cut.filter((c, i) => c === 'red' && whole[i] === 'background').length;
    expect(outside, 'cap pixels where the uncut block showed background').toBeLessThan(red * 0.01);
  }).toPass({ timeout: 10_000 });

  // The open tray: nothing to fill, so no cap; the background stays where it was.
  await open(trayId!, trayCopyId!, '');
  const trayWhole = await pixelClasses(view);
  await open(trayId!, trayCopyId!, '&section=x&at=50');
  await page.waitForTimeout(500);
  const trayCut = await pixelClasses(view);
  expect(trayCut.filter((c) => c === 'red').length, 'cap pixels on an open surface').toBe(0);
  const background = (classes: string[]) => classes.filter((c) => c === 'background').length / classes.length;
  expect(background(trayCut)).toBeGreaterThanOrEqual(background(trayWhole) - 0.01);
  await page.screenshot({ path: 'e2e/screenshots/section-open-surface.png' });
});
