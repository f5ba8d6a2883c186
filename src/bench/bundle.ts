/**
 * Budget: the first route's JavaScript ≤ 180 KB gzip, without three.js (architecture.md, Budgets).
 * Builds the app, then walks Vite's manifest: the entry's static import closure plus the lazily
 * loaded module of the first route a signed-in user lands on (/folders).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] };
type Manifest = Record<string, ManifestChunk>;

const budgetKb = 180;
const firstRouteModule = /src\/features\/folders\/.*page/;

await build({ logLevel: 'warn' });
const dist = join(process.cwd(), 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;

function closure(keys: string[], seen = new Set<string>()): Set<string> {
  for (const key of keys) {
    if (seen.has(key) || !manifest[key]) continue;
    seen.add(key);
    closure(manifest[key].imports ?? [], seen);
  }
  return seen;
}

const gz = (file: string) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const hasThree = (file: string) => readFileSync(join(dist, file), 'utf8').includes('__THREE__');
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
if (!entryKey) throw new Error('no entry in the Vite manifest');
const routeKeys = Object.keys(manifest).filter((k) => firstRouteModule.test(manifest[k]!.src ?? k));
if (routeKeys.length === 0) throw new Error('first route module (src/features/folders/*page*) not found in the manifest');

const shell = closure([entryKey]);
const firstRoute = closure(routeKeys, new Set(shell));
const files = [...firstRoute].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js'));
const total = files.reduce((sum, f) => sum + gz(f), 0);
const withThree = files.filter(hasThree);

console.log('First route JavaScript (gzip, level 9):');
for (const f of files) console.log(`  ${kb(gz(f)).padStart(7)} KB  ${f}`);
console.log(`  ${kb(total).padStart(7)} KB  total — budget ${budgetKb} KB, ratio ${(total / 1024 / budgetKb).toFixed(2)}`);
console.log(`three.js in the first route: ${withThree.length ? `YES (${withThree.join(', ')})` : 'no'}`);

console.log('Lazily loaded route modules (own chunk + chunks not already in the shell, gzip):');
for (const key of Object.keys(manifest).filter((k) => /src\/features\//.test(manifest[k]!.src ?? ''))) {
  const extra = [...closure([key], new Set(shell))].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js'));
  console.log(`  ${kb(extra.reduce((s, f) => s + gz(f), 0)).padStart(7)} KB  ${manifest[key]!.src}`);
}

if (total / 1024 > budgetKb || withThree.length) process.exitCode = 1;
