import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { bracket, flange, plateWithHoles, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');
const FOLDER = 'Sketch search parts';

/** The bracket's side as a designer draws it: an L, corners in the pad's 800 × 560 pixels. */
const L_OUTLINE: [number, number][] = [
  [250, 80],
  [320, 80],
  [320, 400],
  [600, 400],
  [600, 470],
  [250, 470],
  [250, 80],
];

/** Draws `points` as one mouse stroke on the pad, in pad pixels, with a hand's small steps. */
async function drawWithMouse(page: Page, points: [number, number][]) {
  const canvas = page.getByTestId('sketch-canvas');
  const box = (await canvas.boundingBox())!;
  const at = ([x, y]: [number, number]) => [box.x + (x / 800) * box.width, box.y + (y / 560) * box.height] as const;
  await page.mouse.move(...at(points[0]!));
  await page.mouse.down();
  for (const p of points.slice(1)) await page.mouse.move(...at(p), { steps: 8 });
  await page.mouse.up();
}

/** Draws `points` as one finger stroke (touch events through the DevTools protocol, which the browser turns into pointer events of a finger). */
async function drawWithFinger(page: Page, points: [number, number][]) {
  const box = (await page.getByTestId('sketch-canvas').boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
  const touch = ([x, y]: [number, number]) => [{ x: box.x + (x / 800) * box.width, y: box.y + (y / 560) * box.height }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: touch(points[0]!) });
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!,
      [x1, y1] = points[i]!;
    for (let k = 1; k <= 8; k++)
      await cdp.send('Input.dispatchTouchEvent', {
        type: 'touchMove',
        touchPoints: touch([x0 + ((x1 - x0) * k) / 8, y0 + ((y1 - y0) * k) / 8]),
      });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** The matching models' names, best first, once the results of the latest search are in. */
async function resultNames(page: Page): Promise<string[]> {
  const cards = page.getByTestId('image-match');
  await expect(cards.first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('status').filter({ hasText: /or more/ })).toBeVisible();
  return cards.getByTestId('match-name').allTextContents();
}

test('draw a part by mouse, keyboard and finger, upload a drawing, and find the part; an open line gets a clear reason', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await signIn(page, '/sketch-search');
  const token = await accessTokenOf(page);
  const [corner, plate, disc] = await Promise.all([bracket(), plateWithHoles(), flange()]);
  const models = await uploadModels(request, token, [
    { filePath: `${FOLDER}/angle.stl`, name: 'Sketched angle bracket', bytes: toStlBinary(corner.mesh) },
    { filePath: `${FOLDER}/plate.stl`, name: 'Sketched plate', bytes: toStlBinary(plate.mesh) },
    { filePath: `${FOLDER}/flange.stl`, name: 'Sketched flange', bytes: toStlBinary(disc.mesh) },
  ]);
  const settled = await waitSettled(
    request,
    token,
    models.map((m) => m.id),
    180_000,
  );
  expect(settled.map((m) => m.state)).toEqual(['finished', 'finished', 'finished']);

  await page.setViewportSize({ width: 1280, height: 1400 });
  await page.goto('/folders');
  await page.getByRole('link', { name: 'Search by sketch' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Search by sketch' })).toBeVisible();
  const search = page.getByRole('button', { name: 'Search', exact: true });
  await expect(search).toBeDisabled();

  // An open line encloses nothing: the service's reason shows, and the drawing stays.
  await drawWithMouse(page, [
    [100, 300],
    [700, 300],
  ]);
  await search.click();
  await expect(page.getByRole('alert').filter({ hasText: /do not enclose a shape/ })).toBeVisible({ timeout: 30_000 });

  // Undo takes the line back; the L, drawn by mouse, finds the bracket first in the test's folder.
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByRole('button', { name: 'Undo' })).toBeDisabled();
  await drawWithMouse(page, L_OUTLINE);
  await search.click();
  await page.getByLabel('Folder').selectOption({ label: FOLDER });
  // At threshold 0 all three parts of the folder are ranked.
  await page.getByRole('slider', { name: 'Picture score threshold' }).focus();
  await page.keyboard.press('Home');
  await expect.poll(async () => (await resultNames(page))[0]).toBe('Sketched angle bracket');
  await expect(page.getByTestId('image-match')).toHaveCount(3);
  await page.screenshot({ path: path.join(SCREENSHOTS, 'sketch-search.png') });

  // Cleared, drawn again with the keyboard alone: the pen moves by 12 pixels a key press.
  await page.getByRole('button', { name: 'Clear' }).click();
  const canvas = page.getByTestId('sketch-canvas');
  await canvas.focus();
  const press = async (key: string, times: number) => {
    for (let i = 0; i < times; i++) await page.keyboard.press(key);
  };
  // From the centre (400, 280) to the L's top left corner, pen down, round the L, pen up.
  await press('ArrowLeft', 13);
  await press('ArrowUp', 17);
  await page.keyboard.press('Space');
  await press('ArrowRight', 6);
  await press('ArrowDown', 27);
  await press('ArrowRight', 23);
  await press('ArrowDown', 6);
  await press('ArrowLeft', 29);
  await press('ArrowUp', 33);
  await page.keyboard.press('Space');
  await search.click();
  await expect.poll(async () => (await resultNames(page))[0]).toBe('Sketched angle bracket');

  // By finger: the same L, drawn on a touch screen, finds the bracket too.
  await page.getByRole('button', { name: 'Clear' }).click();
  await drawWithFinger(page, L_OUTLINE);
  await expect(page.getByRole('button', { name: 'Undo' })).toBeEnabled();
  await search.click();
  await expect.poll(async () => (await resultNames(page))[0]).toBe('Sketched angle bracket');

  // A drawing uploaded as a file (a scan of the L on paper) is searched in its place.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="560"><rect width="800" height="560" fill="#f4f1ea"/><polyline points="${L_OUTLINE.map((p) => p.join(',')).join(' ')}" fill="none" stroke="#222" stroke-width="5"/></svg>`;
  const scan = await sharp(Buffer.from(svg)).jpeg().toBuffer();
  await page.getByTestId('sketch-file').setInputFiles({ name: 'bracket-scan.jpg', mimeType: 'image/jpeg', buffer: scan });
  await expect(page.getByRole('img', { name: 'The uploaded drawing bracket-scan.jpg' })).toBeVisible();
  await search.click();
  await expect(page.getByRole('status').filter({ hasText: /“bracket-scan.jpg”/ })).toBeVisible({ timeout: 30_000 });
  await expect.poll(async () => (await resultNames(page))[0]).toBe('Sketched angle bracket');
});
