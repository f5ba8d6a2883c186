// The native CAD reader against occt-import-js on the same files: the same model (triangles,
// product structure, names, units, placements), so the same search features and a part-to-part
// score of ≥ 99; and its limits and failures end as sentences, its temporary files removed.
// Runs where the machine has OpenCascade's headers (`npm run build:native` built the reader; CI
// installs them); occt-import-js is tested everywhere by the importer and ingestion suites.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { importFile } from '../../../geometry/import/registry';
import { isImportError, type ImportedModel, type ProductNode } from '../../../geometry/import/importer';
import { meshFacts, weld } from '../../../geometry/mesh/mesh-facts';
import { partToPartExact } from '../../../geometry/search/duplicate-rule';
import { computeSearchFeatures, preparedPartFrom } from '../../../geometry/search/search-features';
import { descriptorScore } from '../../search/part-to-part-rule';
import { readTestFile } from '../ingest-test-helpers';
import { nativeCadReader } from './native-reader';
import { nativeReaderPath } from './reader-path';
import type { OcctResult } from 'occt-import-js';
import { loadOcct } from '../../../geometry/import/formats/occt';

const native = nativeReaderPath();
const temporaryDirs = () => readdirSync(tmpdir()).filter((f) => f.startsWith('gsw-occt-'));

const names = (n: ProductNode | undefined): unknown => n && { name: n.name, triangles: n.triangleCount, children: n.children.map(names) };

function features(m: ImportedModel) {
  const welded = weld(m);
  const f = computeSearchFeatures(m, { facts: meshFacts(m, { welded }), welded });
  return { global: f.global, prepared: preparedPartFrom(f.prepared, f.global) };
}

describe.runIf(native)('native CAD reader (OpenCascade built for this machine)', () => {
  const reader = nativeCadReader({ path: native!, memoryMb: 1024, timeoutMs: 60_000, minBytes: 0 });

  it.each([
    ['as1-oc-214.stp', ['cax-if', 'as1-oc-214.stp']],
    ['dm1-id-214.stp', ['cax-if', 'dm1-id-214.stp']],
    // colours on faces, not only on parts (the native reader asks faces only where a file can colour them)
    ['io1-tu-203.stp', ['cax-if', 'io1-tu-203.stp']],
    ['as1_pe_203.brep', ['cax-if-brep', 'as1_pe_203.brep']],
    ['Cube 10x10.igs', ['cube-10x10mm', 'Cube 10x10.igs']],
    ['cube-in.step', ['cube-units', 'cube-in.step']],
  ])('%s: the same model as occt-import-js, scored ≥ 99 against it', async (name, file) => {
    const bytes = readTestFile(...file);
    const before = temporaryDirs().length;
    const wasm = await importFile(name, bytes);
    const nat = await importFile(name, bytes, { nativeCadReader: reader });
    if (isImportError(wasm) || isImportError(nat)) throw new Error(`${name}: ${JSON.stringify([wasm, nat])}`);
    expect(wasm.reader).toBe('occt-import-js');
    expect(nat.reader).toBe('opencascade-native');
    expect(nat.units).toBe(wasm.units);
    // Assembly tree and names; placements are applied to the coordinates, so the box and the
    // measures say they agree. OpenCascade 7.6 here and the package's build mesh a few faces
    // differently: triangle counts agree within a percent, not to the triangle.
    expect(names(nat.structure)).toEqual(names(wasm.structure));
    const fw = meshFacts(wasm),
      fn = meshFacts(nat);
    expect(Math.abs(fn.triangleCount / fw.triangleCount - 1)).toBeLessThan(0.01);
    const diagonal = Math.hypot(...fw.bbox.size);
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(fn.bbox.min[k]! - fw.bbox.min[k]!)).toBeLessThan(1e-4 * diagonal);
      expect(Math.abs(fn.bbox.max[k]! - fw.bbox.max[k]!)).toBeLessThan(1e-4 * diagonal);
    }
    expect(Math.abs(fn.surfaceArea / fw.surfaceArea - 1)).toBeLessThan(0.001);
    expect(fn.shellCount).toBe(fw.shellCount);
    // Colours and part names as the readers answer them, mesh by mesh.
    const format = file[1]!.endsWith('.brep') ? 'brep' : file[1]!.endsWith('.igs') ? 'iges' : 'step';
    const params = {
      linearUnit: 'millimeter',
      linearDeflectionType: 'bounding_box_ratio',
      linearDeflection: 0.001,
      angularDeflection: 0.5,
    } as const;
    const raw = await reader(format, bytes, params);
    const lib = await loadOcct();
    const reference = { step: lib.ReadStepFile, iges: lib.ReadIgesFile, brep: lib.ReadBrepFile }[format](bytes, params);
    const rgb = (c: number[] | null | undefined) => c?.map((v) => v.toFixed(4)) ?? null;
    const looks = (r: OcctResult) => r.meshes?.map((m) => [m.name, rgb(m.color), m.brep_faces?.map((f) => rgb(f.color))]);
    expect(raw.ok && looks(raw.result)).toEqual(looks(reference));
    const a = features(wasm),
      b = features(nat);
    const descriptor = descriptorScore(a.global, b.global);
    expect(descriptor).toBeGreaterThanOrEqual(99);
    expect(partToPartExact(a.prepared, b.prepared, descriptor).score).toBeGreaterThanOrEqual(99);
    expect(temporaryDirs().length).toBe(before);
  });

  it('a damaged file is refused in the same words as occt-import-js; past its memory limit it ends failed with a sentence', async () => {
    const cut = readTestFile('cube-10x10mm', 'Cube 10x10.stp').subarray(0, 2000);
    const wasm = await importFile('cut.stp', cut);
    const nat = await importFile('cut.stp', cut, { nativeCadReader: reader });
    expect(isImportError(nat) && nat.reason).toBe(isImportError(wasm) && wasm.reason);

    // 16 MB of address space in all, less than its libraries already take: its first large allocation fails.
    const starved = nativeCadReader({ path: native!, memoryMb: -496, timeoutMs: 60_000, minBytes: 0 });
    const tight = await importFile('as1.stp', readTestFile('cax-if', 'as1-oc-214.stp'), { nativeCadReader: starved });
    expect(isImportError(tight) && tight.code).toBe('failed');
    expect(isImportError(tight) && tight.reason).toMatch(/could not be read within the limits one model may use/);
    // Past its time: killed, the same sentence.
    const hurried = nativeCadReader({ path: native!, memoryMb: 1024, timeoutMs: 1, minBytes: 0 });
    const late = await importFile('as1.stp', readTestFile('cax-if', 'as1-oc-214.stp'), { nativeCadReader: hurried });
    expect(isImportError(late) && late.reason).toMatch(/within the limits one model may use \(1024 MB, 0 s\)/);
    expect(temporaryDirs()).toEqual([]);
  });
});
