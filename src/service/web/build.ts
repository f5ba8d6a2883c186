import fs from 'node:fs/promises';
import path from 'node:path';

/** Inputs of the app build; the service's own sources do not change the bundle. */
const inputs = ['src', 'public', 'index.html', 'vite.config.ts'];
const excluded = [path.join('src', 'service')];

async function newestMtime(root: string, rel: string): Promise<number> {
  if (excluded.includes(rel)) return 0;
  let stat;
  try {
    stat = await fs.stat(path.join(root, rel));
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  const entries = await fs.readdir(path.join(root, rel));
  const times = await Promise.all(entries.map((e) => newestMtime(root, path.join(rel, e))));
  return Math.max(stat.mtimeMs, ...times);
}

export type BuildState = 'fresh' | 'stale' | 'missing' | 'no-app';

/** Whether dist/app holds a build at least as new as every input file. */
export async function buildState(root: string): Promise<BuildState> {
  const index = path.join(root, 'dist', 'app', 'index.html');
  const [built, hasSources] = await Promise.all([
    fs.stat(index).then(
      (s) => s.mtimeMs,
      () => undefined,
    ),
    fs.access(path.join(root, 'index.html')).then(
      () => true,
      () => false,
    ),
  ]);
  if (!hasSources) return built === undefined ? 'no-app' : 'fresh';
  if (built === undefined) return 'missing';
  const newest = Math.max(...(await Promise.all(inputs.map((i) => newestMtime(root, i)))));
  return newest > built ? 'stale' : 'fresh';
}

/** Builds the app with Vite's API, using the repository's vite.config.ts. */
export async function buildApp(root: string): Promise<void> {
  // Imported here so that starting from a fresh build never loads Vite.
  const { build } = await import('vite');
  await build({ root, configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn', mode: 'production' });
}
