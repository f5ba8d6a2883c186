import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Opens (creating if needed) the embedded database in `dir`.
 *
 * Creating a PGlite cluster runs initdb in WASM, ~11 s on this machine kind; unpacking a copy of
 * an empty cluster takes under 1 s. So the first cluster made on a machine is kept as a template
 * in the temp dir (keyed by the PGlite version) and later fresh data dirs (tests, e2e, a second
 * checkout) start from it. The template holds no data: migrations run on every store anyway.
 */
export async function openPglite(dir: string): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  // pgvector (the search's HNSW indexes, migration 0003) is loaded into every instance; the
  // migration creates the extension only where `pg_available_extensions` lists it.
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const extensions = { vector };
  await fs.mkdir(dir, { recursive: true });
  const initialized = await fs.access(path.join(dir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (initialized) return PGlite.create(dir, { extensions });

  // Keyed by both versions: a template made by another PGlite or pgvector build is never reused.
  const templateFile = path.join(
    os.tmpdir(),
    `gsw-pglite-template-${packageVersion('@electric-sql/pglite')}-pgvector-${packageVersion('@electric-sql/pglite-pgvector')}.tar`,
  );
  const template = await readTemplate(templateFile);
  if (template) {
    try {
      return await PGlite.create(dir, { loadDataDir: new Blob([new Uint8Array(template)]), extensions });
    } catch {
      // a damaged template: fall through to a real initdb and replace it
      await fs.rm(dir, { recursive: true, force: true });
      await fs.mkdir(dir, { recursive: true });
    }
  }
  const lock = await fs.open(`${templateFile}.lock`, 'wx').catch(() => undefined);
  try {
    const pglite = await PGlite.create(dir, { extensions });
    await saveTemplate(pglite, templateFile).catch(() => {}); // only an optimisation
    return pglite;
  } finally {
    if (lock) {
      await lock.close();
      await fs.rm(`${templateFile}.lock`, { force: true });
    }
  }
}

/**
 * The template, waiting while another process (a parallel test file, say) is making it: one
 * initdb at a time is much faster than several competing for the same cores.
 */
async function readTemplate(file: string): Promise<Buffer | undefined> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const template = await fs.readFile(file).catch(() => undefined);
    if (template) return template;
    const lock = await fs.stat(`${file}.lock`).catch(() => undefined);
    const maker = lock && Date.now() - lock.mtimeMs < 60_000;
    if (!maker || Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function saveTemplate(pglite: PGlite, file: string) {
  const dump = await pglite.dumpDataDir('none');
  const tmp = `${file}.${process.pid}.${Date.now()}`;
  await fs.writeFile(tmp, new Uint8Array(await dump.arrayBuffer()));
  await fs.rename(tmp, file); // atomic: concurrent first starts never see half a template
}

function packageVersion(name: string): string {
  // The packages do not export their package.json; find it beside the resolved entry point.
  try {
    const require = createRequire(import.meta.url);
    let dir = path.dirname(require.resolve(name));
    for (let i = 0; i < 4; i += 1, dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
  } catch {
    // fall through
  }
  return 'unknown';
}
