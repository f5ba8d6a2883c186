import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { buildPart } from '../src/geometry/testing/benchmark-dataset';
import { toObj, toStlBinary } from '../src/geometry/testing/fixtures';
import { applyToMesh } from '../src/geometry/mesh/mesh';
import { multiply, rotationZ, scaling } from '../src/geometry/mesh/transform';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

test('duplicate clean-up: review a group across folders, decide one member, export, move the duplicate, see it moved', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const root = `E2E Review ${Date.now()}`;
  const flange = await buildPart('flange', 2);
  const models = await uploadModels(request, token, [
    { filePath: `${root}/parts/flange.stl`, name: 'Flange', bytes: toStlBinary(flange) },
    { filePath: `${root}/copies/flange-copy.obj`, name: 'Flange copy', bytes: toObj(applyToMesh(flange, rotationZ(90))) },
    {
      filePath: `${root}/copies/flange-again.stl`,
      name: 'Flange again',
      bytes: toStlBinary(applyToMesh(flange, multiply(rotationZ(200), scaling(1)))),
    },
    { filePath: `${root}/parts/plate.stl`, name: 'Plate', bytes: toStlBinary(await buildPart('plate', 0)) },
  ]);
  const settled = await waitSettled(
    request,
    token,
    models.map((m) => m.id),
    180_000,
  );
  expect(
    settled.every((m) => m.state === 'finished'),
    settled.map((m) => `${m.name}=${m.state}`).join(', '),
  ).toBe(true);
  const archive = await request.post('/v2/folders', { headers: { authorization: `Bearer ${token}` }, data: { name: `${root} archive` } });
  expect(archive.status(), await archive.text()).toBe(201);
  const archiveId = ((await archive.json()) as { folder: { id: number } }).folder.id;

  // From a folder's duplicates, the review starts with that folder chosen; widen it to the root and its subfolders.
  const parts = settled.find((m) => m.name === 'Flange')!.folderId;
  await page.goto(`/folders/${parts}/duplicates`);
  await page.getByRole('link', { name: 'start a clean-up review of this folder' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Duplicate clean-up' })).toBeVisible();
  await expect(page.getByRole('checkbox', { name: `${root}/parts`, exact: true })).toBeChecked();
  await page.getByRole('checkbox', { name: `${root}/parts`, exact: true }).uncheck();
  await page.getByRole('checkbox', { name: root, exact: true }).check();
  await page.screenshot({ path: 'e2e/screenshots/review-start.png' });
  await page.getByRole('button', { name: 'Find duplicates in 1 folder' }).click();

  // The report runs in the background, then shows its one group of three across two folders.
  const group = page.getByTestId('review-group');
  await expect(group).toHaveCount(1, { timeout: 60_000 });
  const members = group.getByTestId('review-member');
  await expect(members).toHaveCount(3);
  // Full paths under each preview.
  const subtitles = group.locator('.preview-card__subtitle');
  await expect(subtitles.filter({ hasText: `${root}/copies/flange-copy.obj` })).toBeVisible();
  await expect(subtitles.filter({ hasText: `${root}/parts/flange.stl` })).toBeVisible();
  await expect(page.getByTestId('review-group').getByText('Plate')).toHaveCount(0);

  // Keep the original; decide the copy a duplicate of it.
  const card = (name: string) => members.filter({ has: page.getByRole('link', { name, exact: true }) });
  await card('Flange').getByRole('radio').check();
  await expect(card('Flange').getByText('Master: the one to keep')).toBeVisible();
  // Any two members compare in one step: beside the master's Compare, the other member is offered.
  await expect(
    card('Flange again').getByRole('combobox', { name: 'Compare Flange again with another member' }).getByRole('option'),
  ).toHaveText(['Compare with…', `${root}/copies/flange-copy.obj`]);
  await card('Flange copy').getByRole('textbox', { name: 'Note on Flange copy' }).fill('exported twice');
  await card('Flange copy').getByRole('button', { name: 'Duplicate of master' }).click();
  await expect(card('Flange copy').getByTestId('member-decision')).toContainText('Decided: duplicate of the master');
  await expect(card('Flange copy').getByRole('button', { name: 'Duplicate of master' })).toHaveAttribute('aria-pressed', 'true');
  await expect(card('Flange copy').getByRole('button', { name: 'Duplicate of master' })).toBeEnabled();
  await expect(card('Flange again').getByText('Not decided yet')).toBeVisible();
  await page.getByRole('heading', { name: 'Group 1: 3 models' }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'e2e/screenshots/duplicate-review.png' });

  // Export the decisions as CSV.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export decisions (CSV)' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^duplicate-decisions-\d{4}-\d\d-\d\d\.csv$/);
  const csv = readFileSync(await download.path(), 'utf8');
  expect(csv.split('\n')[0]).toContain('masterPath');
  expect(csv).toContain(`${root}/parts/flange.stl`);
  expect(csv).toContain(`${root}/copies/flange-copy.obj`);
  expect(csv).toContain('exported twice');

  // Move the decided duplicate: the confirmation lists exactly what happens.
  await page.getByRole('button', { name: 'Act on 1 decided duplicate…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('searchbox', { name: 'Search folders' }).fill(`${root} archive`);
  await dialog
    .getByRole('radiogroup', { name: /^Folder/ })
    .getByRole('radio', { name: `${root} archive` })
    .check();
  await expect(dialog.getByTestId('bulk-plan').getByRole('listitem')).toHaveText([
    `${root}/copies/flange-copy.obj → ${root} archive/flange-copy.obj`,
  ]);
  await page.screenshot({ path: 'e2e/screenshots/review-move.png' });
  await dialog.getByRole('button', { name: 'Move 1' }).click();
  await expect(dialog.getByText('Done: 1 of 1.')).toBeVisible();
  // What was done stays readable: the old path and the new one.
  await expect(dialog.getByTestId('bulk-plan').getByRole('listitem')).toHaveText([
    `${root}/copies/flange-copy.obj → ${root} archive/flange-copy.obj`,
  ]);
  await dialog.getByRole('button', { name: 'Close' }).click();
  // The report's own action neither marks it out of date nor leaves the duplicate to act on again.
  await expect(page.getByTestId('acted-count')).toHaveText('1 already acted on from this report');
  await expect(page.getByRole('button', { name: 'Act on 0 decided duplicates…' })).toBeDisabled();
  await expect(page.getByText('Out of date')).toHaveCount(0);

  // The folders page shows the duplicate in the archive folder.
  await page.goto(`/folders/${archiveId}`);
  await expect(page.getByRole('link', { name: 'Flange copy' }).first()).toBeVisible();
  await page.screenshot({ path: 'e2e/screenshots/review-moved.png' });
});
