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

if (total / 1024 > budgetKb || withThree.length) process.exitCode = 1;
