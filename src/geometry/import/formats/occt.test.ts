import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isImportError, type ImportedModel, type ImportError, type ProductNode } from '../importer';
import { importFile } from '../registry';
import { meshFacts } from '../../mesh/mesh-facts';
import { findStepReferences } from '../../step/step-references';
import { loadOcct } from './occt';

const TESTFILES = join(dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json')), 'test', 'testfiles');
const CAXIF = join(TESTFILES, 'cax-if');

function read(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}

function expectModel(r: ImportedModel | ImportError, what: string): ImportedModel {
  if (isImportError(r)) throw new Error(`${what}: expected a model, got ${r.code}: ${r.reason}`);
  return r;
}

function countNodes(n: ProductNode): number {
  return 1 + n.children.reduce((s, c) => s + countNodes(c), 0);
}

const imported = new Map<string, ImportedModel>();

beforeAll(async () => {
  await loadOcct(); // the first load (~150 ms) is not part of any file's timing
});

describe('STEP / IGES / BREP through occt-import-js', () => {
  it('reads the 10 mm cube in STEP and IGES with the same volume, in millimetres', async () => {
    for (const name of ['Cube 10x10.stp', 'Cube 10x10.igs']) {
      const model = expectModel(await importFile(name, read(join(TESTFILES, 'cube-10x10mm', name))), name);
      expect(model.units).toBe('mm');
      const f = meshFacts(model);
      expect(f.bbox.size.map((v) => Math.round(v * 1000) / 1000)).toEqual([10, 10, 10]);
      expect(f.surfaceArea).toBeCloseTo(600, 3);
      if (f.volume !== undefined) expect(f.volume).toBeCloseTo(1000, 2);
    }
  });

  it('converts inch and metre STEP files to millimetres', async () => {
    const sizes = [];
    for (const name of ['cube-mm.step', 'cube-in.step', 'cube-m.step']) {
      const f = meshFacts(expectModel(await importFile(name, read(join(TESTFILES, 'cube-units', name))), name));
      sizes.push(f.bbox.size[0]);
    }
    // The same 1 m cube written in three units comes back as 1000 mm each time.
    for (const s of sizes) expect(s).toBeCloseTo(1000, 1);
  });

  it('imports every single-file CAx-IF STEP file with triangles and exposes its product structure', async () => {
    const files = readdirSync(CAXIF).filter((f) => f.endsWith('.stp'));
    expect(files.length).toBeGreaterThanOrEqual(8);
    let largest = { name: '', bytes: 0, ms: 0, triangles: 0 };
    for (const name of files) {
      const bytes = read(join(CAXIF, name));
      const t0 = performance.now();
      const model = expectModel(await importFile(name, bytes), name);
      const ms = performance.now() - t0;
      imported.set(name, model);
      const triangles = model.indices.length / 3;
      expect(triangles, name).toBeGreaterThan(0);
      expect(model.structure).toBeDefined();
      if (bytes.byteLength > largest.bytes) largest = { name, bytes: bytes.byteLength, ms, triangles };
    }
    console.info(
      `largest CAx-IF STEP: ${largest.name} (${(largest.bytes / 1024).toFixed(0)} KB) → ${largest.triangles} triangles in ${largest.ms.toFixed(0)} ms`,
    );
  });

  it('keeps the assembly tree of as1-oc-214', async () => {
    const model =
      imported.get('as1-oc-214.stp') ?? expectModel(await importFile('as1-oc-214.stp', read(join(CAXIF, 'as1-oc-214.stp'))), 'as1');
    const root = model.structure!;
    expect(countNodes(root)).toBeGreaterThan(4);
    const names = JSON.stringify(root);
    expect(names).toContain('l-bracket-assembly');
    expect(names).toContain('plate');
  });

  it('reads IGES and BREP', async () => {
    const brep = expectModel(await importFile('as1_pe_203.brep', read(join(TESTFILES, 'cax-if-brep', 'as1_pe_203.brep'))), 'brep');
    expect(brep.indices.length).toBeGreaterThan(0);
    expect(brep.units).toBe('unknown');
  });

  it('says which files a STEP assembly with external references needs', async () => {
    const r = await importFile('s1-c5-214.stp', read(join(CAXIF, 's1-c5-214', 's1-c5-214.stp')));
    expect(isImportError(r)).toBe(true);
    const e = r as ImportError;
    expect(e.code).toBe('failed');
    expect(e.reason).toMatch(/assembly whose parts are stored in 4 other files \(TAIL\.stp, HEAD\.stp, MAINBODY\.stp, FOOT\.stp\)/);
    expect(e.references).toEqual(['TAIL.stp', 'HEAD.stp', 'MAINBODY.stp', 'FOOT.stp']);
  });

  it('imports every part file of the multi-file assemblies; the assembly files name their parts', async () => {
    let parts = 0;
    for (const dir of ['s1-c5-214', 's1_pe_214', 's1-tu-203']) {
      const names = readdirSync(join(CAXIF, dir)).filter((f) => f.endsWith('.stp'));
      for (const name of names) {
        const bytes = read(join(CAXIF, dir, name));
        const refs = findStepReferences(bytes);
        const r = await importFile(name, bytes);
        if (refs.length === 0) {
          expect(expectModel(r, `${dir}/${name}`).indices.length).toBeGreaterThan(0);
          parts++;
        } else {
          expect(isImportError(r) && r.references, `${dir}/${name}`).toEqual(refs);
          // every referenced file is in the same folder
          for (const ref of refs) expect(names.map((n) => n.toLowerCase())).toContain(ref.toLowerCase());
        }
      }
    }
    expect(parts).toBe(8 + 8 + 8);
  });

  it('a STEP header with no geometry, and a truncated STEP file, end failed', async () => {
    const empty = new TextEncoder().encode(
      "ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n",
    );
    const r1 = await importFile('empty.step', empty);
    expect(isImportError(r1) && r1.code).toBe('failed');
    const full = read(join(CAXIF, 'io1-cm-214.stp'));
    const r2 = await importFile('cut.stp', full.subarray(0, 2000));
    expect(isImportError(r2) && r2.code).toBe('failed');
  });
});
