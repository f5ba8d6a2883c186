import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { bracket, plateWithHoles, toObj, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

// Every page at a phone's and a desktop's width: axe finds no serious or critical violation,
// nothing scrolls sideways (down to 360 px), and a screenshot of each is kept for review.
const widths = [360, 390, 900, 1440, 1920, 2560];
const axeWidths = new Set([390, 1440]);

interface PageCheck {
  name: string;
  path: string;
  /** What shows once the page has its data. */
  ready: (page: Page) => Promise<void>;
}

async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** Controls that stick out of the window (clipped or reachable only by scrolling the page sideways). */
async function controlsOutside(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrollsSideways = (el: Element | null): boolean => {
      for (let a = el?.parentElement; a; a = a.parentElement) {
        if (/(auto|scroll)/.test(getComputedStyle(a).overflowX)) return true;
      }
      return false;
    };
    return [...document.querySelectorAll('main button, main a, main input, main select, header button, header a')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 && r.height > 0 && (r.right > width + 1 || r.left < -1) && !scrollsSideways(el) && !el.classList.contains('skip-link')
        );
      })
      .map((el) => (el.getAttribute('aria-label') ?? el.textContent ?? el.tagName).trim().slice(0, 40));
  });
}

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}, ${v.nodes.length}): ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    );
}

test('every page fits from 360 to 2560 px, under a short sticky header, and passes axe at 390 and 1440 px', async ({ page, request }) => {
  // Every page at six widths plus axe twice: ~3.2 min alone, longer on a loaded machine.
  test.setTimeout(480_000);
  const missing: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  // The provider's sign-in page is a page of the product too.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/folders');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  const signInViolations = await seriousViolations(page);
  expect.soft(signInViolations, 'sign-in page at 390 px').toEqual([]);
  expect.soft(await horizontalOverflow(page), 'sign-in page at 390 px scrolls sideways').toBeLessThanOrEqual(0);
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Layout ${Date.now()}`;
  const [plate, part, plate2] = await Promise.all([plateWithHoles(), bracket(), plateWithHoles({ holes: [3, 2] })]);
  const models = await uploadModels(request, token, [
    {
      filePath: `${folder}/plate-with-a-rather-long-file-name-for-narrow-screens.obj`,
      name: 'Wide slab with holes and a long descriptive name',
      bytes: toObj(plate.mesh),
    },
    { filePath: `${folder}/plate-copy.stl`, name: 'Wide slab twin', bytes: toStlBinary(plate.mesh) },
    { filePath: `${folder}/plate-six.stl`, name: 'Wide slab six', bytes: toStlBinary(plate2.mesh) },
    { filePath: `${folder}/Brackets/bracket.stl`, name: 'Wide angle piece', bytes: toStlBinary(part.mesh) },
  ]);
  await waitSettled(
    request,
    token,
    models.map((m) => m.id),
  );
  const [first, copy] = models as [(typeof models)[0], (typeof models)[0]];
  const folderId = first.folderId;

  // A duplicates report over the folder, for the clean-up pages.
  const started = await request.post('/v2/duplicate-reports', {
    headers: { authorization: `Bearer ${token}` },
    data: { folderIds: [folderId] },
  });
  expect(started.status(), await started.text()).toBe(202);
  const reportId = ((await started.json()) as { report: { id: string } }).report.id;
  await expect
    .poll(
      async () =>
        (
          (await (await request.get(`/v2/duplicate-reports/${reportId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
            report: { status: string };
          }
        ).report.status,
      { timeout: 60_000 },
    )
    .toBe('ready');

  const heading = (name: string | RegExp) => async (p: Page) => {
    await expect(p.getByRole('heading', { level: 1, name })).toBeVisible();
  };
  const pages: PageCheck[] = [
    { name: 'folders', path: '/folders', ready: heading(/folders/i) },
    {
      name: 'folder',
      path: `/folders/${folderId}`,
      ready: async (p) => {
        await expect(p.getByTestId('model-card').first()).toBeVisible();
      },
    },
    { name: 'duplicates', path: `/folders/${folderId}/duplicates`, ready: heading(/duplicates/i) },
    {
      name: 'model',
      path: `/models/${first.id}`,
      ready: async (p) => {
        await heading(first.name)(p);
        await expect(p.locator('[data-viewer-ready="true"]').first()).toBeVisible({ timeout: 30_000 });
      },
    },
    {
      name: 'matches',
      path: `/models/${first.id}/matches/part-to-part`,
      ready: async (p) => {
        await expect(p.getByText('Wide slab twin').first()).toBeVisible();
      },
    },
    {
      name: 'compare',
      path: `/models/${first.id}/compare/${copy.id}`,
      ready: async (p) => {
        await expect(p.locator('[data-viewer-ready="true"]').first()).toBeVisible({ timeout: 30_000 });
      },
    },
    {
      // A section adds its slider to the toolbar: it wraps, the page does not widen.
      name: 'compare-cut',
      path: `/models/${first.id}/compare/${copy.id}?section=x&at=50`,
      ready: async (p) => {
        await expect(p.getByLabel('Section position (percent of the extent)')).toBeVisible({ timeout: 30_000 });
      },
    },
    { name: 'reviews', path: '/review', ready: heading(/duplicate clean-up/i) },
    {
      name: 'review',
      path: `/review/${reportId}`,
      ready: async (p) => {
        await expect(p.getByTestId('review-member').locator('[data-viewer-ready="true"]').first()).toBeVisible({ timeout: 30_000 });
      },
    },
    { name: 'upload', path: '/upload', ready: heading(/upload/i) },
    { name: 'image-search', path: '/image-search', ready: heading(/image/i) },
    { name: 'credentials', path: '/credentials', ready: heading(/credentials/i) },
    { name: 'not-found', path: '/no-such-page', ready: heading(/not found|no page/i) },
  ];

  const report: string[] = [];
  for (const width of widths) {
    await page.setViewportSize({ width, height: width < 800 ? 844 : 900 });
    for (const check of pages) {
      await page.goto(check.path);
      await check.ready(page);
      const overflow = await horizontalOverflow(page);
      expect.soft(overflow, `${check.name} at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
      // The sticky header stays short (two rows on narrow windows): never a column of links over the page.
      const header = await page
        .locator('header')
        .first()
        .evaluate((e) => Math.round(e.getBoundingClientRect().height));
      expect.soft(header, `${check.name} at ${width} px: header height`).toBeLessThanOrEqual(120);
      const outside = await controlsOutside(page);
      expect.soft(outside, `${check.name} at ${width} px: controls outside the window`).toEqual([]);
      let violations: string[] = [];
      if (axeWidths.has(width)) {
        violations = await seriousViolations(page);
        expect.soft(violations, `${check.name} at ${width} px`).toEqual([]);
        await page.screenshot({ path: test.info().outputPath(`${check.name}-${width}.png`), fullPage: true });
      }
      report.push(
        `${String(width).padStart(4)} px  ${check.name.padEnd(13)} overflow ${String(overflow).padStart(4)} px  header ${header} px  outside ${outside.length}  axe serious+critical ${axeWidths.has(width) ? violations.length : '-'}${violations.length ? `\n      ${violations.join('\n      ')}` : ''}`,
      );
    }
  }
  console.log(`layout report\nsign-in page at 390 px: axe serious+critical ${signInViolations.length}\n${report.join('\n')}`);
  expect(missing, 'requests answered 404').toEqual([]);
});

test('a page opens at the top, and Back returns to where the grid was', async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, '/folders');
  const token = await accessTokenOf(page);
  const folder = `E2E Scroll ${Date.now()}`;
  const part = await bracket();
  const models = await uploadModels(
    request,
    token,
    Array.from({ length: 6 }, (_, i) => ({
      filePath: `${folder}/bracket-${i + 1}.stl`,
      name: `Scroll bracket ${i + 1}`,
      bytes: toStlBinary(part.mesh),
    })),
  );
  await waitSettled(
    request,
    token,
    models.map((m) => m.id),
  );
  await page.goto(`/folders/${models[0]!.folderId}`);
  const last = page.getByTestId('model-card').filter({ hasText: 'Scroll bracket 6' });
  await last.scrollIntoViewIfNeeded();
  const gridScroll = await page.evaluate(() => window.scrollY);
  expect(gridScroll).toBeGreaterThan(600);

  await last.getByRole('link').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Scroll bracket 6' })).toBeInViewport();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  await page.goBack();
  await expect(last).toBeInViewport();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(gridScroll - 50);
});

test('on a phone the main links are a menu: every page one tap away, closed again once it opens', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, '/folders');
  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  const main = page.getByRole('navigation', { name: 'Main' });
  await expect(main.getByRole('link', { name: 'Credentials' })).toBeHidden();
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  for (const name of ['Folders', 'Upload', 'Duplicates', 'Image search', 'Credentials'])
    await expect(main.getByRole('link', { name })).toBeVisible();
  await page.screenshot({ path: 'e2e/screenshots/phone-menu.png' });
  await main.getByRole('link', { name: 'Credentials' }).click();
  await expect(page).toHaveURL(/\/credentials/);
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(main.getByRole('link', { name: 'Credentials' })).toBeHidden();
  // Wide windows show the links themselves.
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(menu).toBeHidden();
  await expect(main.getByRole('link', { name: 'Credentials' })).toBeVisible();
});
