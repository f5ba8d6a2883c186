import { expect, test } from '@playwright/test';
import { box, bracket, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

test('a comparison of models picked in a folder and on a model page: previews, facts, differences', async ({ page, request }) => {
  await signIn(page);
  const token = await accessTokenOf(page);
  const folder = `E2E Compare set ${Date.now()}`;
  const stl = async (part: Promise<{ mesh: Parameters<typeof toStlBinary>[0] }>) => toStlBinary((await part).mesh);
  const models = await uploadModels(request, token, [
    { filePath: `${folder}/block-a.stl`, name: 'Set block A', bytes: await stl(box([10, 20, 30])) },
    { filePath: `${folder}/block-b.stl`, name: 'Set block B', bytes: await stl(box([12, 20, 30])) },
    { filePath: `${folder}/angle.stl`, name: 'Set angle', bytes: await stl(bracket()) },
  ]);
  const settled = new Map(
    (
      await waitSettled(
        request,
        token,
        models.map((m) => m.id),
      )
    ).map((m) => [m.name, m]),
  );
  const [a, b, angle] = ['Set block A', 'Set block B', 'Set angle'].map((name) => settled.get(name));

  // Two selected in their folder, compared: each measure of the second also as a difference from the first.
  await page.goto(`/folders/${a!.folderId}`);
  await page.getByLabel('Select Set block A').check();
  await page.getByLabel('Select Set block B').check();
  await page.getByRole('button', { name: 'Compare selected' }).click();
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${a!.id},${b!.id}$`));
  await expect(page.getByTestId('compare-set-card')).toHaveCount(2);
  await expect(page.locator('[data-testid=compare-set-card] [data-viewer-ready="true"]')).toHaveCount(2, { timeout: 30_000 });
  const sizes = page.getByRole('row', { name: /Size \(bounding box\)/ });
  await expect(sizes.getByRole('cell').first()).toContainText('10 × 20 × 30 mm');
  const lengths = page.getByRole('row', { name: /Length \(X\)/ });
  await expect(lengths.getByRole('cell').nth(1)).toContainText('12 mm (+20 %)');
  await expect(
    page
      .getByRole('row', { name: /Height \(Z\)/ })
      .getByRole('cell')
      .nth(1),
  ).toContainText('(Same)');
  await expect(page.getByRole('link', { name: 'Set block A with Set block B in detail' })).toBeVisible();

  // A third, added from its page; the pill leads back to the comparison, which now has three.
  await page.goto(`/models/${angle!.id}`);
  await page.getByRole('button', { name: 'Add to comparison' }).click();
  await expect(page.getByRole('button', { name: 'In comparison' })).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('link', { name: 'Compare 3 models' }).click();
  await expect(page.getByTestId('compare-set-card')).toHaveCount(3);
  await expect(page.locator('[data-testid=compare-set-card] [data-viewer-ready="true"]')).toHaveCount(3, { timeout: 30_000 });

  // Removed again; after a reload the comparison is the same.
  await page.getByRole('button', { name: 'Remove Set block B from the comparison' }).click();
  await expect(page.getByTestId('compare-set-card')).toHaveCount(2);
  await page.reload();
  await expect(page.getByTestId('compare-set-card')).toHaveCount(2);
  await expect(page.getByTestId('compare-set-card').first()).toContainText('Set block A');
  await page.screenshot({ path: 'test-results/compare-set.png', fullPage: true });
});
