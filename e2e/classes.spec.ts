// Classes proposed from examples, from the folder page: two models of each kind carry a category;
// the others are proposed theirs, a correction and an acceptance set them as metadata.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { buildPart } from '../src/geometry/testing/benchmark-dataset';
import { toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

test('unlabelled models are proposed the class of their nearest examples; accepted and corrected in bulk', async ({ page }) => {
  test.setTimeout(180_000);
  const folder = `E2E Classes ${Date.now()}`;
  await signIn(page, '/');
  const token = await accessTokenOf(page);
  const files = [];
  // Families no other spec uploads: the specs share one library, and a copy elsewhere would be a duplicate there.
  for (const family of ['pulley', 'shaft'] as const)
    for (const variant of [0, 1, 2, 3])
      files.push({
        filePath: `${folder}/${family}-${variant}.stl`,
        name: `${family}-${variant}`,
        bytes: toStlBinary(await buildPart(family, variant)),
      });
  const models = await uploadModels(page.request, token, files);
  await waitSettled(
    page.request,
    token,
    models.map((m) => m.id),
    150_000,
  );
  const auth = { authorization: `Bearer ${token}` };
  const keyName = `Kind ${Date.now()}`;
  const key = (await (await page.request.post('/v2/metadata-keys', { headers: auth, data: { name: keyName } })).json()).metadataKey as {
    id: number;
  };
  // Examples: the first of each kind.
  for (const [i, value] of [
    [0, 'Pulley'],
    [4, 'Shaft'],
  ] as const) {
    const res = await page.request.put(`/v2/models/${models[i]!.id}/metadata/${key.id}`, { headers: auth, data: { value } });
    expect(res.status()).toBe(200);
  }

  await page.goto(`/folders/${models[0]!.folderId}`);
  await page.getByRole('link', { name: 'Classify' }).click();
  await page.getByLabel('Class', { exact: true }).selectOption({ label: keyName });
  await page.getByRole('slider', { name: /Confidence at least/ }).fill('0');
  const rows = page.getByTestId('proposal-row');
  await expect(rows).toHaveCount(6);
  await expect(page.getByTestId('classes-summary')).toContainText('2 models have a');
  for (const n of [1, 2, 3]) {
    await expect(rows.filter({ hasText: `pulley-${n}` })).toContainText('Pulley');
    await expect(rows.filter({ hasText: `shaft-${n}` })).toContainText('Shaft');
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOTS, 'classes.png'), fullPage: true });

  // A correction for one, then the rest accepted as proposed.
  await rows.filter({ hasText: 'pulley-3' }).getByRole('checkbox').check();
  await page.getByPlaceholder('Another value…').fill('V-belt pulley');
  await page.getByRole('button', { name: 'Set 1 to this value' }).click();
  await expect(rows).toHaveCount(5);
  await page.getByRole('checkbox', { name: 'All on this page' }).check();
  await page.getByRole('button', { name: 'Accept 5 proposals' }).click();
  await expect(page.getByText('Nothing to propose at this confidence')).toBeVisible();

  await page.goto(`/models/${models[3]!.id}`);
  await expect(page.getByText('V-belt pulley')).toBeVisible();
});
