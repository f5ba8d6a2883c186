/**
 * Budget: the first route's JavaScript ≤ 180 KB gzip, without three.js (budget: src/bench/README.md).
 * Builds the app, then walks Vite's manifest: what a signed-in user's browser loads for the first
 * route (/folders) — the entry, the app instance it always loads after the config check, and the
 * folders page — each with its static import closure.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildAndReadManifest } from './vite-manifest';

const budgetKb = 180;
const firstRouteModules = ['src/app/app-instance.tsx', 'src/features/folders/folders-page.tsx'];

const { dist, manifest, entryKey, closure, gz, jsFiles } = await buildAndReadManifest();
const hasThree = (file: string) => readFileSync(join(dist, file), 'utf8').includes('__THREE__');
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

const missing = firstRouteModules.filter((k) => !manifest[k]);
if (missing.length) throw new Error(`not in the Vite manifest: ${missing.join(', ')}`);

const firstRoute = closure([entryKey, ...firstRouteModules]);
const files = jsFiles(firstRoute);
const total = files.reduce((sum, f) => sum + gz(f), 0);
const withThree = files.filter(hasThree);

console.log('First route JavaScript (gzip, level 9):');
for (const f of files) console.log(`  ${kb(gz(f)).padStart(7)} KB  ${f}`);
console.log(`  ${kb(total).padStart(7)} KB  total — budget ${budgetKb} KB, ratio ${(total / 1024 / budgetKb).toFixed(2)}`);
console.log(`three.js in the first route: ${withThree.length ? `YES (${withThree.join(', ')})` : 'no'}`);

console.log('Other routes load on top of the first route (gzip):');
for (const key of Object.keys(manifest).filter((k) => /src\/features\//.test(manifest[k]!.src ?? '') && !firstRoute.has(k))) {
  const extra = jsFiles([...closure([key], new Set(firstRoute))].filter((k) => !firstRoute.has(k)));
  console.log(`  ${kb(extra.reduce((s, f) => s + gz(f), 0)).padStart(7)} KB  ${manifest[key]!.src}`);
}

// Search by sketch (issue 33): the drawing page itself ≤ 40 KB beyond the shell; its results
// (cards with 3D previews, three.js) load with the first search.
const sketchKey = 'src/features/sketch-search/sketch-search-page.tsx';
const sketchBudgetKb = 40;
const sketchFiles = jsFiles([...closure([sketchKey], new Set(firstRoute))].filter((k) => !firstRoute.has(k)));
const sketchKb = sketchFiles.reduce((s, f) => s + gz(f), 0) / 1024;
console.log(
  `Sketch page before its first search, beyond the first route: ${sketchKb.toFixed(1)} KB — budget ${sketchBudgetKb} KB, ratio ${(sketchKb / sketchBudgetKb).toFixed(2)}; three.js in it: ${sketchFiles.some(hasThree) ? 'YES' : 'no'}`,
);

if (total / 1024 > budgetKb || withThree.length || sketchKb > sketchBudgetKb) process.exitCode = 1;
