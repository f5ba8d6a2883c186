// Builds the app and reads Vite's manifest: which files a route loads, and their gzip sizes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[] };
export type Manifest = Record<string, ManifestChunk>;

export interface BuiltApp {
  dist: string;
  manifest: Manifest;
  entryKey: string;
  /** The keys with their static import closure (dynamic imports load later, so they are left out). */
  closure(keys: string[], seen?: Set<string>): Set<string>;
  /** Gzip size (level 9) of a file of dist/app. */
  gz(file: string): number;
  /** The JavaScript files of a set of keys. */
  jsFiles(keys: Iterable<string>): string[];
}

export async function buildAndReadManifest(): Promise<BuiltApp> {
  await build({ logLevel: 'warn' });
  const dist = join(process.cwd(), 'dist', 'app');
  const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;
  const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  if (!entryKey) throw new Error('no entry in the Vite manifest');
  const closure = (keys: string[], seen = new Set<string>()): Set<string> => {
    for (const key of keys) {
      if (seen.has(key) || !manifest[key]) continue;
      seen.add(key);
      closure(manifest[key].imports ?? [], seen);
    }
    return seen;
  };
  return {
    dist,
    manifest,
    entryKey,
    closure,
    gz: (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length,
    jsFiles: (keys) => [...keys].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js')),
  };
}
