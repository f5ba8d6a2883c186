// Where the native CAD reader lives (build-reader.ts builds it): node_modules/.cache/occt-reader,
// found from the occt-import-js package whose importer sources it is built from.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Debian's libocct-*-dev headers. */
export const OCCT_INCLUDE = '/usr/include/opencascade';

function packageDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json'));
}

/** occt-import-js's C++ importer, shipped in its npm package. */
export function importerSourceDir(): string {
  return path.join(packageDir(), 'occt-import-js', 'src');
}

export function readerCacheDir(): string {
  return path.join(packageDir(), '..', '.cache', 'occt-reader');
}

export function builtReaderPath(version: string): string {
  return path.join(readerCacheDir(), `occt-reader-${version}`);
}

/**
 * The native reader to use: `OCCT_READER` (a path, or "wasm" for none), else the one built here;
 * undefined when there is none.
 */
export function nativeReaderPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.OCCT_READER?.trim();
  if (chosen === 'wasm') return undefined;
  if (chosen) return chosen;
  try {
    const built = readdirSync(readerCacheDir()).find((f) => /^occt-reader-[0-9a-f]+$/.test(f));
    return built && existsSync(path.join(readerCacheDir(), built)) ? path.join(readerCacheDir(), built) : undefined;
  } catch {
    return undefined;
  }
}
