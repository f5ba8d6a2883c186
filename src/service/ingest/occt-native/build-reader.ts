// Builds the native STEP/IGES/BREP reader (occt-reader.cpp with occt-import-js's importer sources)
// against the machine's OpenCascade, when the machine has it: Debian's libocct-*-dev headers and a
// C++ compiler. Without them it says so and exits 0: the WebAssembly reader does the work then.
// Built once per source version into node_modules/.cache (reader-path.ts finds it there); README.md beside.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { OCCT_INCLUDE, builtReaderPath, importerSourceDir, readerCacheDir } from './reader-path';

const run = promisify(execFile);
const LIBS = [
  'TKXDESTEP',
  'TKXDEIGES',
  'TKSTEP',
  'TKIGES',
  'TKXSBase',
  'TKXCAF',
  'TKLCAF',
  'TKCAF',
  'TKCDF',
  'TKMesh',
  'TKBRep',
  'TKTopAlgo',
  'TKG3d',
  'TKG2d',
  'TKGeomBase',
  'TKMath',
  'TKernel',
  'TKV3d',
  'TKService',
  'TKVCAF',
];

/**
 * The importer's two Search calls, each the label of a solid for its name and colour, answered by
 * shape-search.hpp (same label, without a walk of every assembly component per solid).
 */
const SEARCH_CALL = 'shapeTool->Search (shape, shapeLabel)';

/** importer-xcaf.cpp with SearchShape for Search; throws when the package no longer has the two calls. */
function patchedXcafImporter(source: string): string {
  const calls = source.split(SEARCH_CALL).length - 1;
  if (calls !== 2) throw new Error(`importer-xcaf.cpp: expected 2 calls of ${SEARCH_CALL}, found ${calls}`);
  return `#include "shape-search.hpp"\n${source.replaceAll(SEARCH_CALL, 'SearchShape (shapeTool, shape, shapeLabel)')}`;
}

/**
 * Says why no reader was built, and removes older builds: reader-path.ts would otherwise still
 * find one built from other sources.
 */
async function notBuilt(detail: string): Promise<void> {
  for (const old of await readdir(readerCacheDir()).catch(() => [] as string[]))
    if (!old.endsWith('.tmp')) await rm(path.join(readerCacheDir(), old), { force: true });
  console.log(`native CAD reader: not built; STEP, IGES and BREP are read by occt-import-js\n${detail.split('\n').slice(0, 5).join('\n')}`);
}

async function main(): Promise<void> {
  const compiler = process.env.CXX ?? 'g++';
  if (!existsSync(path.join(OCCT_INCLUDE, 'STEPCAFControl_Reader.hxx'))) {
    console.log(`native CAD reader: not built (no OpenCascade headers in ${OCCT_INCLUDE}); STEP, IGES and BREP are read by occt-import-js`);
    return;
  }
  const ownDir = import.meta.dirname;
  const srcDir = importerSourceDir();
  const sources = [
    path.join(ownDir, 'occt-reader.cpp'),
    ...(await readdir(srcDir)).filter((f) => f.startsWith('importer') && f.endsWith('.cpp')).map((f) => path.join(srcDir, f)),
  ];
  const headers = [
    path.join(ownDir, 'shape-search.hpp'),
    ...(await readdir(srcDir)).filter((f) => f.endsWith('.hpp')).map((f) => path.join(srcDir, f)),
  ];
  // The importer as compiled: with SearchShape for Search (hashed as patched, so a change of the
  // patch builds again).
  const xcaf = path.join(srcDir, 'importer-xcaf.cpp');
  let xcafPatched: string;
  try {
    xcafPatched = patchedXcafImporter(readFileSync(xcaf, 'utf8'));
  } catch (error) {
    await notBuilt(String(error));
    return;
  }
  const hash = createHash('sha256');
  for (const f of [...sources, ...headers].sort()) hash.update(f === xcaf ? xcafPatched : readFileSync(f));
  hash.update(LIBS.join(','));
  const target = builtReaderPath(hash.digest('hex').slice(0, 16));
  if (existsSync(target)) return;
  await mkdir(path.dirname(target), { recursive: true });
  const started = performance.now();
  const partial = `${target}.${process.pid}.tmp`;
  let patchDir: string | undefined;
  try {
    patchDir = await mkdtemp(path.join(tmpdir(), 'gsw-occt-build-'));
    const patched = path.join(patchDir, 'importer-xcaf.cpp');
    await writeFile(patched, xcafPatched);
    await run(
      compiler,
      [
        '-O2',
        '-std=c++17',
        '-w',
        `-I${OCCT_INCLUDE}`,
        `-I${srcDir}`,
        `-I${ownDir}`,
        ...sources.map((f) => (f === xcaf ? patched : f)),
        '-o',
        partial,
        ...LIBS.map((l) => `-l${l}`),
      ],
      {
        maxBuffer: 16 << 20,
      },
    );
  } catch (error) {
    await rm(partial, { force: true });
    await notBuilt(String((error as { stderr?: string }).stderr ?? error));
    return;
  } finally {
    if (patchDir) await rm(patchDir, { recursive: true, force: true });
  }
  // Older builds go; the new one appears whole (a reader never sees a half-written file).
  for (const old of await readdir(readerCacheDir()).catch(() => [] as string[]))
    if (old !== path.basename(target) && !old.endsWith('.tmp')) await rm(path.join(readerCacheDir(), old), { force: true });
  await rename(partial, target);
  console.log(`native CAD reader: built in ${((performance.now() - started) / 1000).toFixed(1)} s (${target})`);
}

await main();
