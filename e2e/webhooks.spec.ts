// Webhooks from the app: an admin adds an endpoint (a receiver this test starts), copies the
// secret shown once, sends a ping and sees a model's events arrive in the delivery log — signed,
// as the receiver checks with the Standard Webhooks library.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { Webhook } from 'standardwebhooks';
import { bracket, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

test('an admin adds an endpoint, sees the secret once, and the deliveries arrive signed', async ({ page }) => {
  test.setTimeout(120_000);
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${Date.now()}`;
  try {
    await signIn(page, '/');
    await page.getByRole('button', { name: /Demo Designer/ }).click();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();

    // A slip is said before anything is sent.
    await page.getByLabel('Address').fill('ftp://files.example.com/in');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect(page.getByRole('alert')).toContainText('http or https');

    await page.getByLabel('Address').fill(url);
    await page.getByLabel('Note (optional)').fill('PLM bridge');
    await page.getByRole('checkbox', { name: /A duplicates report is ready/ }).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Endpoint added' });
    const secret = (await dialog.getByTestId('webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(secret)).toHaveCount(0); // shown once

    const row = page.getByTestId('webhook-row').filter({ hasText: url });
    await expect(row).toContainText('PLM bridge');
    await expect(row).not.toContainText('duplicate-report.ready');
    await row.getByRole('button', { name: 'Send a ping' }).click();
    const log = page.getByTestId('delivery-log');
    await expect(log.getByTestId('delivery-row').filter({ hasText: 'ping' })).toContainText('delivered', { timeout: 20_000 });

    // A model uploaded through the API: its events arrive and are listed.
    const token = await accessTokenOf(page);
    const [model] = await uploadModels(page.request, token, [
      {
        filePath: `E2E Webhooks ${Date.now()}/bracket.stl`,
        name: 'bracket',
        bytes: toStlBinary((await bracket({ size: 41, depth: 21 })).mesh),
      },
    ]);
    await waitSettled(page.request, token, [model!.id]);
    await expect(log.getByTestId('delivery-row').filter({ hasText: 'model.finished' })).toContainText('delivered', { timeout: 20_000 });
    await expect(row).toContainText('delivered');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SCREENSHOTS, 'webhooks.png'), fullPage: true });

    const events = received.map(
      (r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: unknown },
    );
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['ping', 'model.finished']));
    expect(JSON.stringify(events.find((e) => e.type === 'model.finished')?.data)).toContain(model!.id);
  } finally {
    // Other specs share the demo tenant: no endpoint is left behind for their events to retry against.
    const token = await accessTokenOf(page).catch(() => null);
    if (token) {
      const auth = { authorization: `Bearer ${token}` };
      const { webhooks } = (await (await page.request.get('/v2/webhooks', { headers: auth })).json()) as {
        webhooks: { id: string; url: string }[];
      };
      for (const w of webhooks.filter((h) => h.url === url)) await page.request.delete(`/v2/webhooks/${w.id}`, { headers: auth });
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
