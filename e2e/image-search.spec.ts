import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { bracket, flange, plateWithHoles, toStlBinary } from '../src/geometry/testing/fixtures';
import type { Model } from '../src/contract/models';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { servesOurFields, signIn } from './support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

/** Share of pixels that differ clearly from the top-left (background) pixel. */
async function drawnShare(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r0, g0, b0] = [data[0]!, data[1]!, data[2]!];
  let drawn = 0;
  for (let i = 0; i < data.length; i += 3) {
    if (Math.abs(data[i]! - r0) + Math.abs(data[i + 1]! - g0) + Math.abs(data[i + 2]! - b0) > 30) drawn++;
  }
  return drawn / (info.width * info.height);
}

/** A real drop: a DataTransfer holding the files, dispatched on the drop zone as the browser would. */
async function dropFiles(page: Page, files: { name: string; mimeType: string; bytes: Buffer }[]) {
  const dataTransfer = await page.evaluateHandle(
    (list) => {
      const transfer = new DataTransfer();
      for (const file of list) {
        const bytes = Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], file.name, { type: file.mimeType }));
      }
      return transfer;
    },
    files.map((f) => ({ name: f.name, mimeType: f.mimeType, base64: f.bytes.toString('base64') })),
  );
  const zone = page.getByTestId('image-drop');
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

test('drop a picture of a known part, search, and find that part among the first results', async ({ page, request }) => {
  test.setTimeout(240_000);
  await signIn(page, '/image-search');
  const token = await accessTokenOf(page);
  // The data directory is shared by every spec of the run (browse.spec uploads a "Corner bracket"
  // of the same shape), so this spec's names and folder are its own.
  const folder = 'Image search parts';
  const [corner, plate, disc] = await Promise.all([bracket(), plateWithHoles(), flange()]);
  const models = await uploadModels(request, token, [
    { filePath: `${folder}/Brackets/corner-bracket.stl`, name: 'Angle bracket', bytes: toStlBinary(corner.mesh) },
    { filePath: `${folder}/plate.stl`, name: 'Plate with holes', bytes: toStlBinary(plate.mesh) },
    { filePath: `${folder}/flange.stl`, name: 'Bolted flange', bytes: toStlBinary(disc.mesh) },
  ]);
  const settled = await waitSettled(
    request,
    token,
    models.map((m) => m.id),
    180_000,
  );
  expect(settled.map((m) => `${m.name}: ${m.state}`).sort()).toEqual([
    'Angle bracket: finished',
    'Bolted flange: finished',
    'Plate with holes: finished',
  ]);

  // The picture: the bracket's own thumbnail (a render on a plain background), read through its signed address.
  const target = settled.find((m) => m.id === models[0]!.id) as Model;
  expect(target.thumbnail, 'the processed model has a thumbnail').toBeTruthy();
  const thumbnail = await request.get(target.thumbnail!);
  expect(thumbnail.status()).toBe(200);
  const picture = Buffer.from(await thumbnail.body());

  // Tall enough that every result is in the window: previews load only near the window.
  await page.setViewportSize({ width: 1280, height: 1180 });
  await page.goto('/image-search');
  await expect(page.getByRole('heading', { level: 1, name: 'Image search' })).toBeVisible();
  // The guidance stands beside the drop zone.
  await expect(page.getByRole('complementary', { name: 'For the best results' })).toContainText('The object is alone in the image.');

  await dropFiles(page, [{ name: 'bracket-photo.png', mimeType: 'image/png', bytes: picture }]);
  const picked = page.getByTestId('picked-image');
  await expect(picked).toHaveCount(1);
  await expect(picked.locator('img')).toHaveJSProperty('complete', true);
  await expect(picked).toContainText('Ready');

  await page.getByRole('button', { name: 'Search' }).click();
  await expect(picked).toContainText('Sent');
  const cards = page.getByTestId('image-match');
  await expect(cards.first()).toBeVisible({ timeout: 30_000 });
  // Other specs upload the same bracket under names of their own ("Corner bracket", "Set angle"),
  // so across the library only parts the service scores as the bracket (90 or more: small changes
  // at most) may come before it.
  const names = await cards.getByTestId('match-name').allTextContents();
  expect(names, `results: ${names.join(', ')}`).toContain('Angle bracket');
  const links = await cards.getByTestId('match-name').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href') ?? ''));
  const ahead = links.slice(0, names.indexOf('Angle bracket')).map((href) => href.split('/').pop());
  const copies = await request.get(`/v2/models/${target.id}/part-to-part-matches?threshold=90&perPage=100`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(copies.status(), await copies.text()).toBe(200);
  const copyIds = new Set(((await copies.json()) as { matches: { matchedModel: { id: string } }[] }).matches.map((m) => m.matchedModel.id));
  expect(
    ahead.filter((id) => !copyIds.has(id!)),
    `results: ${names.join(', ')}`,
  ).toEqual([]);

  const card = cards.filter({ hasText: 'Angle bracket' });
  await expect(card).toContainText(`${folder}/Brackets`);
  await expect(card).toContainText('Ready');
  // A score where the deployment gives one; the published API ranks image matches without.
  if (servesOurFields()) await expect(card.getByTestId('match-score')).toHaveText(/^Score\d{1,3}(\.\d)?%$/);
  else await expect(card.getByTestId('match-score')).toHaveCount(0);

  // Drawn in 3D on the page's one shared canvas: pixels, not just an element.
  const preview = card.locator('[data-viewer-ready="true"]');
  await expect(preview).toBeVisible({ timeout: 45_000 });
  await expect(page.locator('canvas[data-shared-canvas]')).toHaveCount(1);
  expect(await drawnShare(await preview.screenshot())).toBeGreaterThan(0.03);

  // Filtering by the test folder keeps the bracket (it sits in a subfolder of it); at threshold 0
  // every model of the folder is listed and counted.
  // Among this spec's own models, the bracket comes first.
  await page.getByLabel('Folder').selectOption({ label: folder });
  await expect(cards.first().getByTestId('match-name')).toHaveText('Angle bracket');
  await page.getByRole('slider', { name: 'Picture score threshold' }).focus();
  await page.keyboard.press('Home');
  await expect(page.getByRole('status').filter({ hasText: /or more/ })).toContainText('3 models score 0% or more');
  await expect(cards).toHaveCount(3);
  await expect(page.locator('[data-viewer-ready="true"]')).toHaveCount(3, { timeout: 45_000 });
  if (servesOurFields()) await page.screenshot({ path: path.join(SCREENSHOTS, 'image-search.png') });

  // Keyboard: the card is a link that opens the model.
  await cards.filter({ hasText: 'Angle bracket' }).getByRole('link').focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/models/${target.id}$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Angle bracket' })).toBeVisible();

  // Coming back keeps the images and the results.
  await page.goBack();
  await expect(page.getByTestId('picked-image')).toHaveCount(1);
  await expect(cards.filter({ hasText: 'Angle bracket' })).toBeVisible();
});

test('a file that is not an image, renamed .png, shows the service’s reason against it', async ({ page, request }) => {
  await signIn(page, '/image-search');
  const token = await accessTokenOf(page);
  const bytes = Buffer.from('solid part\n  facet normal 0 0 1\nendsolid part\n');

  // What the service says about such a file, asked directly through the interface's two steps.
  const created = await request.post('/v2/images', { headers: { authorization: `Bearer ${token}` }, data: { filename: 'probe.png' } });
  expect(created.status(), await created.text()).toBe(201);
  const { image } = (await created.json()) as { image: { uploadUrl: string; headers: Record<string, string> } };
  const refused = await request.put(image.uploadUrl, { headers: image.headers, data: bytes });
  expect(refused.status()).toBeGreaterThanOrEqual(400);
  const reason = ((await refused.json()) as { error: { message: string } }).error.message;

  await page.getByLabel('Choose images').setInputFiles({ name: 'not-a-photo.png', mimeType: 'image/png', buffer: bytes });
  const picked = page.getByTestId('picked-image');
  await expect(picked).toHaveCount(1);
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(picked.getByTestId('image-reason')).toHaveText(reason);
  await expect(page.getByRole('alert').filter({ hasText: 'could not be used' })).toBeVisible();
  await expect(page.getByTestId('image-match')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Search' })).toBeDisabled();

  // Local checks need no round trip: a GIF and an oversized PNG say why at once.
  await page.getByRole('button', { name: 'Remove not-a-photo.png' }).click();
  await page.getByLabel('Choose images').setInputFiles([
    { name: 'anim.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') },
    { name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) },
  ]);
  await expect(page.getByTestId('image-reason')).toHaveText([
    'Not a PNG, JPEG or WebP image (this file is image/gif).',
    'Too large: 10.1 MiB. Images can be at most 10 MiB.',
  ]);
});
