import { expect, test } from '@playwright/test';
import { box, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

test('pages on the published operations: state counts with subfolders, Download original, the user from users/me', async ({
  page,
  request,
}) => {
  await signIn(page);
  const token = await accessTokenOf(page);
  const top = `E2E Published ${Date.now()}`;
  const [part] = await uploadModels(request, token, [
    { filePath: `${top}/Sub/box.stl`, name: 'box.stl', bytes: toStlBinary((await box()).mesh) },
  ]);
  await waitSettled(request, token, [part!.id]);
  const auth = { authorization: `Bearer ${token}` };
  const model = (await (await request.get(`/v2/models/${part!.id}`, { headers: auth })).json()).model as { folderId: number };
  const sub = (await (await request.get(`/v2/folders/${model.folderId}`, { headers: auth })).json()).folder as { parentFolderId: number };

  // The top folder holds only a subfolder; its state report counts the model below it.
  await page.goto(`/folders/${sub.parentFolderId}`);
  await expect(page.getByText('1 model here and in subfolders: 1 ready')).toBeVisible();

  await page.goto(`/models/${part!.id}`);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download original' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('box.stl');
  await expect(page).toHaveURL(new RegExp(`/models/${part!.id}$`));

  const me = page.waitForResponse((r) => r.url().endsWith('/v2/users/me'));
  await page.getByRole('button', { name: /Demo/ }).click();
  expect((await me).status()).toBe(200);
  await expect(page.getByText('Demo Tenant')).toBeVisible();
});
