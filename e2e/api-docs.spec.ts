import { expect, test } from '@playwright/test';
import { demoUser } from './support';

test('API documentation: sign in with PKCE on /docs and create a client credential from the page', async ({ page, context }) => {
  await page.goto('/docs');
  await expect(page.getByRole('heading', { name: /Geometric Search Workbench API/ })).toBeVisible();
  await expect(page.locator('.opblock-tag', { hasText: 'Client credentials' })).toBeVisible();

  // Authorize: the sign-in page opens in a popup, as Swagger UI does it, and closes after the PKCE exchange.
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  const dialog = page.locator('.auth-container').filter({ hasText: 'signIn' });
  const popupPromise = context.waitForEvent('page');
  await dialog.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
  const popup = await popupPromise;
  await popup.getByLabel('Email').fill(demoUser.email);
  await popup.getByLabel('Password').fill(demoUser.password);
  await popup.getByRole('button', { name: 'Sign in' }).click();
  await expect(dialog.getByRole('button', { name: /Logout|Remove authorization/ })).toBeVisible({ timeout: 15_000 });
  await dialog.getByRole('button', { name: 'Close' }).click();

  // POST /client-credentials, tried out from the page.
  // Try-it-out is on from the start (uiConfig.tryItOutEnabled).
  const operation = page.locator('.opblock-post').filter({ hasText: 'Create a credential for scripts' }).first();
  await operation.locator('.opblock-summary').click();
  await operation.locator('textarea.body-param__text').fill('{"name": "From the docs page"}');
  const answer = page.waitForResponse((r) => r.url().endsWith('/client-credentials') && r.request().method() === 'POST');
  await operation.getByRole('button', { name: 'Execute' }).click();
  const response = await answer;
  expect(response.status()).toBe(201);
  const body = (await response.json()) as { clientCredentials: { name: string; clientSecret: string } };
  expect(body.clientCredentials.name).toBe('From the docs page');
  expect(body.clientCredentials.clientSecret.length).toBeGreaterThan(20);
  await expect(operation.locator('.live-responses-table')).toContainText('201');
  await page.screenshot({ path: 'e2e/screenshots/api-docs.png' });
});
