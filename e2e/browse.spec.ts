import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { bracket, plateWithHoles, toObj, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

test('browse folders, open a model and see its 3D preview really drawn', async ({ page, request }) => {
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Browse ${Date.now()}`;
  const [plate, part] = await Promise.all([plateWithHoles(), bracket()]);
  const models = await uploadModels(request, token, [
    { filePath: `${folder}/plate.obj`, name: 'Plate with holes', bytes: toObj(plate.mesh) },
    { filePath: `${folder}/Brackets/bracket.stl`, name: 'Corner bracket', bytes: toStlBinary(part.mesh) },
  ]);
  const settled = await waitSettled(
    request,
    token,
    models.map((m) => m.id),
  );
  expect(settled.map((m) => m.state)).toEqual(['finished', 'finished']);

  // The folder tree shows the new folder; selecting it lists its model with its state.
  await page.goto('/folders');
  await page.getByRole('tree').getByText(folder, { exact: true }).click();
  const card = page.getByTestId('model-card').filter({ hasText: 'Plate with holes' });
  await expect(card).toContainText(/ready/i); // the badge's words for `finished`
  await expect(page.getByTestId('model-card').filter({ hasText: 'Corner bracket' })).toHaveCount(0);

  // The view is in the URL: a reload reproduces it.
  await page
    .getByRole('searchbox')
    .or(page.getByPlaceholder(/search/i))
    .first()
    .fill('plate');
  await expect(page).toHaveURL(/search=plate/);
  await page.reload();
  await expect(page.getByTestId('model-card').filter({ hasText: 'Plate with holes' })).toBeVisible();

  await card.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Plate with holes' })).toBeVisible();
  await expect(page.locator('[data-viewer-ready="true"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('canvas')).toHaveCount(1);

  // Pixels, not just a canvas element: a real share of the preview differs from its background.
  const png = await page.locator('[data-viewer-ready="true"] canvas').screenshot();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r0, g0, b0] = [data[0]!, data[1]!, data[2]!];
  let drawn = 0;
  for (let i = 0; i < data.length; i += 3) {
    if (Math.abs(data[i]! - r0) + Math.abs(data[i + 1]! - g0) + Math.abs(data[i + 2]! - b0) > 30) drawn++;
  }
  const share = drawn / (info.width * info.height);
  expect(share).toBeGreaterThan(0.03);
  await page.screenshot({ path: test.info().outputPath('model-page.png') });

  // The view turns from the keyboard and shows the standard views.
  const view = page.getByRole('application', { name: '3D preview of Plate with holes' });
  const canvas = page.locator('[data-viewer-ready="true"] canvas');
  await view.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
  await expect.poll(async () => Buffer.compare(await canvas.screenshot(), png)).not.toBe(0);
  const turned = await canvas.screenshot();
  await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Top' }).click();
  await expect(page.getByRole('button', { name: 'Top' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => Buffer.compare(await canvas.screenshot(), turned)).not.toBe(0);
});

test('a model left waiting for its file (a closed tab) gets it from its page', async ({ page, request }) => {
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Attach ${Date.now()}`;
  const created = await request.post('/v2/models?createMissingFolders=true', {
    headers: { authorization: `Bearer ${token}` },
    data: { models: [{ filePath: `${folder}/plate.stl`, name: 'Waiting plate' }] },
  });
  expect(created.status()).toBe(201);
  const id = ((await created.json()) as { models: { model: { id: string } }[] }).models[0]!.model.id;
  const plate = await plateWithHoles();

  await page.goto(`/models/${id}`);
  await expect(page.getByText('Waiting for the file to arrive', { exact: false })).toBeVisible();
  // A file of another type is refused before anything is sent.
  await page.getByLabel('Attach file').setInputFiles({ name: 'plate.obj', mimeType: 'text/plain', buffer: Buffer.from(toObj(plate.mesh)) });
  await expect(page.getByRole('alert')).toContainText('choose a .stl file');
  await page
    .getByLabel('Attach file')
    .setInputFiles({ name: 'plate.stl', mimeType: 'application/octet-stream', buffer: Buffer.from(toStlBinary(plate.mesh)) });
  await expect(page.getByText('Ready', { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await waitSettled(request, token, [id]);
});
