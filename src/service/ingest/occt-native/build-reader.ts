// Builds the native STEP/IGES/BREP reader (occt-reader.cpp with occt-import-js's importer sources)
// against the machine's OpenCascade, when the machine has it: Debian's libocct-*-dev headers and a
// C++ compiler. Without them it says so and exits 0: the WebAssembly reader does the work then.
// Built once per source version into node_modules/.cache (reader-path.ts finds it there); README.md beside.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
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

async function main(): Promise<void> {
  const compiler = process.env.CXX ?? 'g++';
  if (!existsSync(path.join(OCCT_INCLUDE, 'STEPCAFControl_Reader.hxx'))) {
    console.log(`native CAD reader: not built (no OpenCascade headers in ${OCCT_INCLUDE}); STEP, IGES and BREP are read by occt-import-js`);
    return;
  }
  const ownSource = path.join(import.meta.dirname, 'occt-reader.cpp');
  const srcDir = importerSourceDir();
  const sources = [
    ownSource,
    ...(await readdir(srcDir)).filter((f) => f.startsWith('importer') && f.endsWith('.cpp')).map((f) => path.join(srcDir, f)),
  ];
  const hash = createHash('sha256');
  for (const f of [...sources, ...(await readdir(srcDir)).filter((f) => f.endsWith('.hpp')).map((f) => path.join(srcDir, f))].sort())
    hash.update(readFileSync(f));
  hash.update(LIBS.join(','));
  const target = builtReaderPath(hash.digest('hex').slice(0, 16));
  if (existsSync(target)) return;
  await mkdir(path.dirname(target), { recursive: true });
  const started = performance.now();
  const partial = `${target}.${process.pid}.tmp`;
  try {
    await run(
      compiler,
      ['-O2', '-std=c++17', '-w', `-I${OCCT_INCLUDE}`, `-I${srcDir}`, ...sources, '-o', partial, ...LIBS.map((l) => `-l${l}`)],
      {
        maxBuffer: 16 << 20,
      },
    );
  } catch (error) {
    await rm(partial, { force: true });
    const detail = String((error as { stderr?: string }).stderr ?? error)
      .split('\n')
      .slice(0, 5)
      .join('\n');
    console.log(`native CAD reader: not built (${compiler} failed); STEP, IGES and BREP are read by occt-import-js\n${detail}`);
    return;
  }
  // Older builds go; the new one appears whole (a reader never sees a half-written file).
  for (const old of await readdir(readerCacheDir()).catch(() => [] as string[]))
    if (old !== path.basename(target) && !old.endsWith('.tmp')) await rm(path.join(readerCacheDir(), old), { force: true });
  await rename(partial, target);
  console.log(`native CAD reader: built in ${((performance.now() - started) / 1000).toFixed(1)} s (${target})`);
}

await main();
