import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Where a worker thread's module is, for the caller at `from` (its `import.meta.url`). The built
 * service (`npm run build:service`, dist/service) has every thread entry beside the code that
 * starts it, as plain JavaScript. From the sources (tsx, vitest) the entry is the TypeScript file
 * beside the caller, and the thread needs tsx's loader to read it.
 */
export function threadEntry(name: string, from: string): { filename: string; execArgv: string[] } {
  // three's loaders are reached through CommonJS interop in threads; its deprecation notice is noise here.
  const quiet = '--disable-warning=THREE_CJS_DEPRECATED';
  if (!from.endsWith('.ts')) return { filename: new URL(`./${name}.js`, from).href, execArgv: [quiet] };
  const tsx = pathToFileURL(createRequire(from).resolve('tsx')).href;
  return { filename: new URL(`./${name}.ts`, from).href, execArgv: ['--import', tsx, quiet] };
}
