import { expect, test } from '@playwright/test';
import { buildPart } from '../src/geometry/testing/benchmark-dataset';
import { toObj, toStlBinary } from '../src/geometry/testing/fixtures';
import { applyToMesh } from '../src/geometry/mesh/mesh';
import { multiply, rotationZ, scaling } from '../src/geometry/mesh/transform';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

test('matches: a mirror image and a scaled copy are shown as relations, below the duplicate line', async ({ page, request }) => {
  test.setTimeout(180_000);
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Relations ${Date.now()}`;
  // A bracket whose holes sit at different depths: its mirror image is another part.
  const part = await buildPart('bracket', 1);
  const models = await uploadModels(request, token, [
    { filePath: `${folder}/bracket.stl`, name: 'Bracket', bytes: toStlBinary(part) },
    { filePath: `${folder}/bracket-copy.obj`, name: 'Bracket copy', bytes: toObj(applyToMesh(part, rotationZ(90))) },
    { filePath: `${folder}/bracket-left.stl`, name: 'Bracket, left hand', bytes: toStlBinary(applyToMesh(part, scaling(-1, 1, 1))) },
    {
      filePath: `${folder}/bracket-large.stl`,
      name: 'Bracket, twice the size',
      bytes: toStlBinary(applyToMesh(part, multiply(rotationZ(30), scaling(2)))),
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

  await page.goto(`/models/${models[0]!.id}/matches/part-to-part?threshold=0`);
  const card = (name: string) => page.getByTestId('match-card').filter({ has: page.getByRole('link', { name, exact: true }) });
  await expect(card('Bracket, left hand').getByText('Mirror image')).toBeVisible();
  await expect(card('Bracket, twice the size').getByText('Scaled ×2')).toBeVisible();
  await expect(card('Bracket copy').locator('.badge--relation')).toHaveCount(0);
  // The legend states the scale's bands (contract/score-scale.ts), and each score names its band.
  await page.getByText('What the scores mean').click();
  await expect(page.getByText('98–100 Same part')).toBeVisible();
  await expect(page.getByText('60–80 Similar shape')).toBeVisible();
  await expect(card('Bracket copy').getByText('Same part')).toBeVisible();
  await page.screenshot({ path: 'test-results/match-relations.png', fullPage: true });

  // At the duplicate line only the copy is left.
  await page.goto(`/models/${models[0]!.id}/matches/part-to-part?threshold=98`);
  await expect(page.getByTestId('match-card')).toHaveCount(1);
  await expect(card('Bracket copy')).toBeVisible();

  // The folder's duplicates: the bracket and its copy form the group; the mirror image and the
  // scaled copy are listed beside it, never in it.
  await page.goto(`/folders/${settled[0]!.folderId}/duplicates`);
  const group = page.getByTestId('duplicate-cluster');
  await expect(group).toHaveCount(1);
  await expect(group.getByTestId('duplicate-card')).toHaveCount(2);
  const beside = group.getByTestId('duplicate-relations');
  await expect(
    beside
      .getByRole('listitem')
      .filter({ hasText: /Bracket, left hand is a mirror image of Bracket|Bracket( copy)? is a mirror image of Bracket, left hand/ })
      .first(),
  ).toBeVisible();
  await expect(
    beside
      .getByRole('listitem')
      .filter({ hasText: /Bracket, twice the size is Bracket( copy)? scaled ×2/ })
      .first(),
  ).toBeVisible();
  await page.screenshot({ path: 'test-results/duplicate-relations.png', fullPage: true });
});
