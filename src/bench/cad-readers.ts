/**
 * The native CAD reader (OpenCascade built for this machine, src/service/ingest/occt-native)
 * against occt-import-js on the same STEP, IGES and BREP files: seconds to read and for the whole
 * model pipeline (processModel: read, facts, search features, views, viewer file, thumbnail), by
 * stage, and the ratio. Budget (issue "STEP parts finished in seconds"): a 5 MB STEP part in ≤ 3 s
 * end to end with the native reader, a 24 MB one in ≤ 8 s. BENCH_RUNS runs each (median; default 3,
 * one for files over 10 MB).
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOcct } from '../geometry/import/formats/occt';
import { nativeReaderPath } from '../service/ingest/occt-native/reader-path';
import { processModel } from '../service/ingest/process-model';
import { bigStep, caxif } from '../service/testing/step-files';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const native = nativeReaderPath();
const samples = '/usr/share/opencascade/data';

function files(): { label: string; fileName: string; bytes: Uint8Array; budgetS?: number }[] {
  const out: { label: string; fileName: string; bytes: Uint8Array; budgetS?: number }[] = [];
  for (const mb of [2, 5, 24]) {
    const { bytes, copies } = bigStep(mb * 1_000_000);
    out.push({
      label: `STEP ${(bytes.byteLength / 1e6).toFixed(1)} MB (${copies} × CAx-IF as1-oc-214)`,
      fileName: `big-${mb}.stp`,
      bytes,
      ...(mb === 5 ? { budgetS: 3 } : mb === 24 ? { budgetS: 8 } : {}),
    });
  }
  out.push({ label: 'STEP CAx-IF as1-oc-214 (0.4 MB)', fileName: 'as1.stp', bytes: readFileSync(path.join(caxif, 'as1-oc-214.stp')) });
  for (const [dir, name] of [
    ['step', 'linkrods.step'],
    ['iges', 'bearing.iges'],
    ['iges', 'hammer.iges'],
  ] as const) {
    const file = path.join(samples, dir, name);
    if (existsSync(file)) {
      const bytes = readFileSync(file);
      out.push({ label: `OCCT sample ${name} (${(bytes.byteLength / 1e6).toFixed(1)} MB)`, fileName: name, bytes });
    }
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(fileName: string, bytes: Uint8Array, reader: 'native' | 'wasm', n: number) {
  const totals: number[] = [];
  const stageRuns: Record<string, number>[] = [];
  let triangles = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const out = await processModel({
      fileName,
      bytes,
      ...(reader === 'native' && native ? { nativeReader: { path: native, memoryMb: 2048, timeoutMs: 600_000, minBytes: 0 } } : {}),
    });
    totals.push(performance.now() - t0);
    if (out.outcome !== 'geometry') throw new Error(`${fileName} (${reader}): ${out.outcome} ${'reason' in out ? out.reason : ''}`);
    stageRuns.push(out.timings);
    triangles = out.facts.triangles;
  }
  // The stages of the run whose total is the median.
  const stages = stageRuns[totals.indexOf(median(totals))]!;
  return { seconds: median(totals) / 1000, stages, triangles };
}

async function main() {
  console.log(
    `CAD readers, ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; native reader: ${native ?? 'none (run npm run build:native on a machine with libocct-data-exchange-dev)'}`,
  );
  await loadOcct(); // the WebAssembly module starts once per thread, as in a worker
  for (const f of files()) {
    const n = f.bytes.byteLength > 10e6 ? 1 : runs;
    const wasm = await measure(f.fileName, f.bytes, 'wasm', n);
    const line = (r: typeof wasm) => {
      const wall = Object.entries(r.stages)
        .filter(([k]) => !k.startsWith('cpu:'))
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
        .join(', ');
      return `${r.seconds.toFixed(2)} s (${r.triangles.toLocaleString('en-US')} triangles; ${wall})`;
    };
    console.log(`${f.label}, median of ${n}:`);
    console.log(`  occt-import-js: ${line(wasm)}`);
    if (!native) continue;
    const nat = await measure(f.fileName, f.bytes, 'native', n);
    const budget = f.budgetS
      ? ` — budget ${f.budgetS} s, ${nat.seconds <= f.budgetS ? 'within' : 'OVER'} (ratio ${(nat.seconds / f.budgetS).toFixed(2)})`
      : '';
    console.log(`  native:         ${line(nat)}${budget}`);
    console.log(
      `  native / occt-import-js: whole pipeline ${(nat.seconds / wasm.seconds).toFixed(2)}, read ${((nat.stages.import ?? 0) / (wasm.stages.import ?? 1)).toFixed(2)}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
