import { expect, test, type Page } from '@playwright/test';

export const demoUser = {
  email: process.env.DEMO_USER ?? 'demo@example.com',
  password: process.env.DEMO_PASSWORD ?? 'demo-password',
  name: 'Demo Designer',
};

/** Opens `path`, which starts the real PKCE sign-in, and signs in on the provider's page. */
export async function signIn(page: Page, path = '/', user = demoUser): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: new RegExp(user.name) })).toBeVisible();
}

/**
 * Whether this run's service sends our fields beside the published ones: false in the
 * `published-fields-only` project, whose service answers as a deployment of the published API
 * (no failure reasons, no missing-part lists, no credential names).
 */
export function servesOurFields(): boolean {
  return test.info().project.name !== 'published-fields-only';
}
