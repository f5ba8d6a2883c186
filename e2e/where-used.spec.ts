// Where a part is used and what an assembly is made of: the model page lists the assemblies that
// place a part, and an assembly's part list downloads as CSV.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';
import { CAXIF_DIR } from './upload-support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

test('a part lists the assembly that places it; the assembly’s part list downloads as CSV', async ({ page }) => {
  test.setTimeout(180_000);
  const folder = `E2E Where used ${Date.now()}`;
  await signIn(page, '/');
  const token = await accessTokenOf(page);
  // CAx-IF's HEAD assembly references its two part files by name.
  const files = ['HEAD_FRONT.stp', 'HEAD_BACK.stp', 'HEAD.stp'].map((f) => ({
    filePath: `${folder}/${f}`,
    name: f,
    bytes: new Uint8Array(readFileSync(path.join(CAXIF_DIR, f))),
  }));
  const models = await uploadModels(page.request, token, files);
  const settled = await waitSettled(
    page.request,
    token,
    models.map((m) => m.id),
    150_000,
  );
  expect(settled.map((m) => m.state)).toEqual(['finished', 'finished', 'finished']);
  const [front, , head] = models;

  await page.goto(`/models/${front!.id}`);
  const used = page.getByTestId('where-used');
  await expect(used.getByRole('heading')).toHaveText('Where used (1)');
  const row = used.getByTestId('where-used-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('HEAD.stp');
  await expect(row).toContainText('× 1');
  await expect(row).toContainText('in its tree');
  await used.screenshot({ path: path.join(SCREENSHOTS, 'where-used.png') });

  await row.getByRole('link', { name: 'HEAD.stp' }).click();
  await expect(page).toHaveURL(new RegExp(`/models/${head!.id}$`));
  await expect(page.getByTestId('where-used')).toContainText('No assembly in the library uses it');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download part list (CSV)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('HEAD parts.csv');
  const csv = readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\r\n');
  expect(csv[0]).toBe('Name,Path,Quantity,State,Units,Model id');
  expect(csv.slice(1).sort()).toEqual(
    [
      `HEAD_BACK.stp,${folder}/HEAD_BACK.stp,1,finished,mm,${models[1]!.id}`,
      `HEAD_FRONT.stp,${folder}/HEAD_FRONT.stp,1,finished,mm,${front!.id}`,
    ].sort(),
  );
});
