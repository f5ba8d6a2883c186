// The duplicate warning at upload: a file whose part the library already holds says so in its row,
// with Compare, Keep both and Delete the new one; the batch counts them; the folder lists them.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { applyToMesh } from '../src/geometry/mesh/mesh';
import { multiply, rotationZ, translation } from '../src/geometry/mesh/transform';
import { bracket, plateWithHoles, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';
import { tempDir } from './upload-support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

let root = '';
test.beforeAll(() => {
  root = tempDir('duplicates');
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

const row = (page: Page, shownPath: string) => page.getByTestId('upload-row').filter({ has: page.getByText(shownPath, { exact: true }) });

test('a part the library already holds is flagged in its row; kept, compared or deleted; the folder lists it afterwards', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const project = `E2E Duplicates ${Date.now()}`;
  // A bracket of its own size: other specs share the library, and the warning names the earliest copy.
  const part = (await bracket({ size: 47, depth: 23 })).mesh;
  await signIn(page, '/upload');
  const token = await accessTokenOf(page);
  const [existing] = await uploadModels(page.request, token, [
    { filePath: `${project}/Pumps/Bracket.stl`, name: 'Bracket', bytes: toStlBinary(part) },
  ]);
  await waitSettled(page.request, token, [existing!.id]);

  // The same bracket twice, turned and moved as another designer would have placed it, and a plate.
  const dir = path.join(root, 'Incoming');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'bracket-copy.stl'), toStlBinary(applyToMesh(part, multiply(translation(40, -10, 5), rotationZ(90)))));
  writeFileSync(path.join(dir, 'bracket-again.stl'), toStlBinary(applyToMesh(part, rotationZ(-30))));
  writeFileSync(path.join(dir, 'plate.stl'), toStlBinary((await plateWithHoles({ length: 77 })).mesh));

  await page.getByLabel('Target folder').fill(`${project}/New`);
  await page.getByTestId('upload-input').setInputFiles(dir);
  await expect(page.getByTestId('upload-review-row')).toHaveCount(3);
  await page.getByRole('button', { name: 'Start upload' }).click();

  const copy = row(page, 'Incoming/bracket-copy.stl');
  const again = row(page, 'Incoming/bracket-again.stl');
  await expect(copy.getByTestId('upload-duplicate')).toContainText(/Already in the library: Bracket, .*Pumps\/Bracket\.stl, (99|100)/, {
    timeout: 120_000,
  });
  await expect(again.getByTestId('upload-duplicate')).toContainText('Already in the library: Bracket', { timeout: 60_000 });
  await expect(row(page, 'Incoming/plate.stl')).toHaveAttribute('data-status', 'finished', { timeout: 60_000 });
  await expect(row(page, 'Incoming/plate.stl').getByTestId('upload-duplicate')).toHaveCount(0);
  await expect(page.getByTestId('upload-duplicate-count')).toHaveText('2 already in the library');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'upload-duplicates.png'), fullPage: true });

  // Compare opens the pair; back on the upload page the batch is as it was.
  await copy.getByRole('link', { name: 'Compare' }).click();
  await expect(page).toHaveURL(new RegExp(`/compare/${existing!.id}`));
  await page.goBack();
  await expect(copy.getByTestId('upload-duplicate')).toBeVisible();

  await copy.getByRole('button', { name: 'Keep both' }).click();
  await expect(copy.getByTestId('upload-duplicate')).toContainText('Kept beside Bracket');
  await expect(copy.getByRole('button', { name: 'Delete the new one' })).toHaveCount(0);

  await again.getByRole('button', { name: 'Delete the new one' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('is the same part as Bracket');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(again).toContainText('Deleted: the library keeps Bracket.');
  await expect(page.getByTestId('upload-duplicate-count')).toHaveText('1 already in the library');

  // Afterwards, from the folder: the kept copy is listed beside the part it repeats; the deleted one is gone.
  await page.getByRole('link', { name: /list them in New/ }).click();
  const listed = page.getByTestId('added-duplicate-row');
  await expect(listed).toHaveCount(1);
  await expect(listed).toContainText('bracket-copy');
  await expect(listed).toContainText(`${project}/Pumps/Bracket.stl`);
  await expect(page.getByTestId('added-duplicates-summary')).toContainText(/1 of the \d models added since then repeats one/);
  await page.getByTestId('added-duplicates').screenshot({ path: path.join(SCREENSHOTS, 'added-duplicates.png') });
});
