import { expect, test } from '@playwright/test';
import { servesOurFields, signIn } from './support';

test('a credential made in the page gets a token exactly as the interface says; deleting it refuses the token', async ({
  page,
  request,
  baseURL,
}) => {
  // The published API lists only the newest credential's id: no name, no last use.
  const ours = servesOurFields();
  await signIn(page, '/credentials');
  await expect(page.getByRole('heading', { name: 'API credentials' })).toBeVisible();

  const name = `ci-script-${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create credential' }).click();

  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(/only once|cannot be shown again|won.t be shown again/i);
  const clientId = (await dialog.getByTestId('new-client-id').textContent())?.trim() ?? '';
  const clientSecret = (await dialog.getByTestId('new-client-secret').textContent())?.trim() ?? '';
  expect(clientId).not.toBe('');
  expect(clientSecret.length).toBeGreaterThanOrEqual(32);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // Shown once: after the dialog closes the secret is nowhere on the page.
  await expect(page.getByText(clientSecret)).toHaveCount(0);

  const row = page.getByTestId('credential-row').filter({ hasText: clientId });
  await expect(row).toBeVisible();
  if (ours) await expect(row).toContainText(name);
  await expect(page.getByTestId('curl-example')).toContainText(`${baseURL}/oauth2/default/v1/token`);

  // The interface's token request, to the letter.
  const tokenResponse = await request.post(`${baseURL}/oauth2/default/v1/token`, {
    headers: {
      accept: 'application/json',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'cache-control': 'no-cache',
      'content-type': 'application/x-www-form-urlencoded',
    },
    data: 'grant_type=client_credentials&scope=tenantApp%20roles',
  });
  expect(tokenResponse.status()).toBe(200);
  const token = await tokenResponse.json();
  expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 36000, scope: 'roles tenantApp' });
  expect(typeof token.access_token).toBe('string');

  const auth = { authorization: `Bearer ${token.access_token}`, accept: 'application/json' };
  const folders = await request.get(`${baseURL}/v2/folders`, { headers: auth });
  expect(folders.status()).toBe(200);
  expect(Array.isArray((await folders.json()).folders)).toBe(true);

  // The page shows the credential as used once the API has seen it.
  await page.reload();
  if (ours) await expect(row).not.toContainText('Never');

  await row.getByRole('button', { name: /^Delete / }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);

  const refused = await request.get(`${baseURL}/v2/folders`, { headers: auth });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toMatchObject({ error: { message: expect.any(String) } });
});
