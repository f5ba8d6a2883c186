// The deviation report from the compare view: a copy of a part overlaid on it, the report
// downloaded as a PDF, in the reader's unit, with the placement the search found.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { PDFDocument } from 'pdf-lib';
import { applyToMesh } from '../src/geometry/mesh/mesh';
import { multiply, rotationZ, translation } from '../src/geometry/mesh/transform';
import { bracket, toStlBinary } from '../src/geometry/testing/fixtures';
import { accessTokenOf, uploadModels, waitSettled } from './api';
import { signIn } from './support';

test('the compare view hands on a deviation report as a PDF', async ({ page }) => {
  test.setTimeout(150_000);
  const folder = `E2E Deviation ${Date.now()}`;
  await signIn(page, '/');
  const token = await accessTokenOf(page);
  // A bracket of its own size: other specs share the library and count the default one's copies.
  const part = (await bracket({ size: 44, depth: 26 })).mesh;
  const [original, copy] = await uploadModels(page.request, token, [
    { filePath: `${folder}/bracket.stl`, name: 'bracket', bytes: toStlBinary(part) },
    {
      filePath: `${folder}/bracket-turned.stl`,
      name: 'bracket turned',
      bytes: toStlBinary(applyToMesh(part, multiply(translation(30, 5, 0), rotationZ(60)))),
    },
  ]);
  await waitSettled(page.request, token, [original!.id, copy!.id]);

  await page.goto(`/models/${copy!.id}/compare/${original!.id}?kind=part-to-part&mode=overlay`);
  // Inches chosen by the reader: the report is written in them.
  await page.getByRole('radio', { name: 'Inches' }).first().check();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Deviation report (PDF)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('Deviation bracket turned - bracket.pdf');
  const bytes = readFileSync(await download.path());
  expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  const doc = await PDFDocument.load(bytes);
  expect(doc.getTitle()).toBe('Deviation report: bracket turned against bracket');
  // Placed by the match found: all of the copy lies on the original.
  expect(doc.getSubject()).toMatch(/^Within ±[\d.]+ in: 100\.0 % of bracket turned, 100\.0 % of bracket$/);
});
