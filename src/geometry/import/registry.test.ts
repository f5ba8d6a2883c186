import { WebIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { meshopt, quantize, weld } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bracket,
  flange,
  plateWithHoles,
  sphere,
  to3mf,
  toGlb,
  toGltf,
  toObj,
  toOff,
  toPly,
  toStlAscii,
  toStlBinary,
  type FixturePart,
} from '../testing/fixtures';
import { isImportError, type ImportedModel, type ImportError } from './importer';
import { READABLE_FORMATS } from '../../contract/file-types';
import { detectFormat, importerFor, importFile, IMPORTERS } from './registry';
import { meshFacts, type MeshFacts } from '../mesh/mesh-facts';

type Writer = (p: FixturePart) => Uint8Array | Promise<Uint8Array>;

const WRITERS: Record<string, Writer> = {
  'part.stl': (p) => toStlBinary(p.mesh),
  'part-ascii.stl': (p) => toStlAscii(p.mesh),
  'part.obj': (p) => toObj(p.mesh),
  'part.ply': (p) => toPly(p.mesh),
  'part-ascii.ply': (p) => toPly(p.mesh, 'ascii'),
  'part.off': (p) => toOff(p.mesh),
  'part.glb': (p) => toGlb(p.mesh),
  'part.gltf': (p) => toGltf(p.mesh),
  'part.3mf': (p) => to3mf(p.mesh),
};

function expectModel(r: ImportedModel | ImportError): ImportedModel {
  if (isImportError(r)) throw new Error(`expected a model, got ${r.code}: ${r.reason}`);
  return r;
}

function expectError(r: ImportedModel | ImportError, code: 'failed' | 'unsupported', pattern: RegExp): ImportError {
  if (!isImportError(r)) throw new Error(`expected ${code}, got a model with ${r.indices.length / 3} triangles`);
  expect(r.code).toBe(code);
  expect(r.reason).toMatch(pattern);
  return r;
}

/** glTF is in metres; compare everything in millimetres. */
function factsInMm(m: ImportedModel): MeshFacts {
  const f = meshFacts(m);
  const s = m.units === 'm' ? 1000 : 1;
  return {
    ...f,
    surfaceArea: f.surfaceArea * s * s,
    volume: f.volume === undefined ? undefined : f.volume * s ** 3,
    bbox: { ...f.bbox, size: f.bbox.size.map((v) => v * s) as [number, number, number] },
  };
}

describe('every mesh format gives the same facts for the same part', () => {
  const parts: FixturePart[] = [];
  beforeAll(async () => {
    parts.push(await plateWithHoles(), await bracket(), await flange());
  });

  for (const [fileName, write] of Object.entries(WRITERS)) {
    it(fileName, async () => {
      for (const part of parts) {
        const bytes = await write(part);
        const model = expectModel(await importFile(fileName, bytes));
        const f = factsInMm(model);
        const truth = meshFacts(part.mesh);
        expect(f.closed, `${part.name} closed`).toBe(true);
        expect(f.shellCount).toBe(1);
        expect(f.genus).toBe(part.genus);
        expect(f.volume! / part.volume).toBeCloseTo(1, 4);
        expect(f.surfaceArea / part.surfaceArea).toBeCloseTo(1, 4);
        for (let k = 0; k < 3; k++) expect(f.bbox.size[k]).toBeCloseTo(truth.bbox.size[k]!, 2);
      }
    });
  }

  it('names the unit where the format has one', async () => {
    const part = parts[0]!;
    expect(expectModel(await importFile('a.glb', await toGlb(part.mesh))).units).toBe('m');
    expect(expectModel(await importFile('a.3mf', to3mf(part.mesh))).units).toBe('mm');
    expect(expectModel(await importFile('a.stl', toStlBinary(part.mesh))).units).toBe('unknown');
  });
});

describe('compressed glTF', () => {
  it('reads a quantized, meshopt-compressed GLB like the viewer files', async () => {
    const part = await flange();
    const io = new WebIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.encoder': MeshoptEncoder });
    await MeshoptEncoder.ready;
    const doc = await io.readBinary(await toGlb(part.mesh));
    await doc.transform(weld(), quantize(), meshopt({ encoder: MeshoptEncoder, level: 'medium' }));
    const bytes = await io.writeBinary(doc);
    const model = expectModel(await importFile('viewer.glb', bytes));
    const f = factsInMm(model);
    expect(f.surfaceArea / part.surfaceArea).toBeCloseTo(1, 2);
    expect(f.bbox.size[0]).toBeCloseTo(120, 0);
  });
});

describe('registry', () => {
  it('has one importer for every readable format, found by any of its extensions', () => {
    expect(IMPORTERS.map((i) => i.format).sort()).toEqual(Object.keys(READABLE_FORMATS).sort());
    expect(importerFor('STL')?.format).toBe('stl');
    expect(importerFor('.stp')?.format).toBe('step');
    expect(importerFor('p21')?.format).toBe('step');
    expect(importerFor('igs')?.format).toBe('iges');
    expect(importerFor('sldprt')).toBeUndefined();
  });

  it('reads a .p21 STEP file and names native CAD, also with a version suffix', async () => {
    expect(detectFormat('gear.P21', new TextEncoder().encode('ISO-10303-21;\nHEADER;')).format).toBe('step');
    expectError(await importFile('asm/bracket.prt.3', new Uint8Array([1, 2, 3])), 'unsupported', /a Creo or NX part \(\.prt\)/);
  });

  it('sniffs binary STL by size even when its header starts with "solid"', async () => {
    const part = await plateWithHoles();
    const bytes = toStlBinary(part.mesh, 'solid part exported by a CAD system');
    expect(detectFormat('x.stl', bytes).format).toBe('stl');
    expect(detectFormat('x.stl', bytes.subarray(0, 512), bytes.byteLength).sniffed?.kind).toBe('stl');
    expectModel(await importFile('x.stl', bytes));
  });
});

describe('bad input ends failed or unsupported with a reason, never a throw', () => {
  let part: FixturePart;
  beforeAll(async () => {
    part = await plateWithHoles();
  });

  it('empty file', async () => {
    expectError(await importFile('part.stl', new Uint8Array(0)), 'failed', /empty/);
    for (const imp of IMPORTERS) expectError(await imp.import(new Uint8Array(0)), 'failed', /empty/);
  });

  it('truncated binary STL names the triangle count', async () => {
    const bytes = toStlBinary(part.mesh);
    const n = part.mesh.indices.length / 3;
    const r = expectError(await importFile('part.stl', bytes.subarray(0, bytes.byteLength - 70)), 'failed', /ends before its/);
    expect(r.reason).toContain(`${n.toLocaleString('en-US')} triangles`);
    expectError(await importFile('part.stl', bytes.subarray(0, 50)), 'failed', /shorter than the 84-byte header/);
  });

  it('truncated ASCII STL', async () => {
    const text = toStlAscii(part.mesh);
    expectError(
      await importFile('part.stl', text.subarray(0, Math.floor(text.byteLength * 0.6))),
      'failed',
      /ends in the middle of triangle/,
    );
  });

  it('STL bytes named .obj', async () => {
    expectError(await importFile('part.obj', toStlAscii(part.mesh)), 'failed', /named \.obj .* looks like an STL file/);
    expectError(await importFile('part.obj', toStlBinary(part.mesh)), 'failed', /named \.obj .* STL/);
  });

  it('PNG named .stl', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(200).fill(7)]);
    expectError(await importFile('photo.stl', png), 'failed', /named \.stl .* PNG image/);
  });

  it('random bytes named .step', async () => {
    let seed = 42;
    const random = Uint8Array.from({ length: 5000 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff);
    expectError(await importFile('part.step', random), 'failed', /not a STEP file/);
    expectError(await importerFor('step')!.import(random), 'failed', /not a STEP file/);
  });

  it('other lies: GLB named .3mf, OBJ named .ply, STEP named .sldprt', async () => {
    expectError(await importFile('part.3mf', await toGlb(part.mesh)), 'failed', /GLB/);
    expectError(await importFile('part.ply', toObj(part.mesh)), 'failed', /named \.ply .* OBJ file/);
    expectError(await importFile('part.sldprt', new TextEncoder().encode('ISO-10303-21;\nHEADER;\n')), 'failed', /it is a STEP file/);
  });

  it('native CAD is unsupported with a reason naming the program', async () => {
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    const r = expectError(
      await importFile('bracket.sldprt', ole),
      'unsupported',
      /SolidWorks part \(\.sldprt\); its geometry cannot be read — export it as STEP/,
    );
    expect(r.reason).toMatch(/^This file is a SolidWorks part/);
    for (const name of [
      'a.catpart',
      'a.CATProduct',
      'a.ipt',
      'a.iam',
      'a.x_t',
      'a.x_b',
      'a.prt.3',
      'a.asm',
      'a.par',
      'a.psm',
      'a.jt',
      'a.sldasm',
    ]) {
      expectError(await importFile(name, new Uint8Array([1, 2, 3, 0, 5])), 'unsupported', /cannot be read/);
    }
    expectError(await importFile('notes.docx', new Uint8Array([1, 2, 3])), 'unsupported', /not a 3D format we read/);
  });

  it('NaN and Infinity coordinates', async () => {
    const bad = { ...part.mesh, positions: part.mesh.positions.slice() };
    bad.positions[4] = NaN;
    expectError(await importFile('a.ply', toPly(bad)), 'failed', /invalid coordinate \(not a number\) at vertex 2/);
    expectError(await importFile('a.stl', toStlBinary(bad)), 'failed', /not a number/);
    bad.positions[4] = Infinity;
    expectError(await importFile('a.off', toOff(bad)), 'failed', /infinite/);
    expectError(await importFile('a.obj', toObj(bad)), 'failed', /infinite|not a number/);
  });

  it('indices out of range', async () => {
    const nv = part.mesh.positions.length / 3;
    const bad = { ...part.mesh, indices: part.mesh.indices.slice() };
    bad.indices[7] = nv + 10;
    expectError(await importFile('a.obj', toObj(bad)), 'failed', /refers to vertex/);
    expectError(await importFile('a.off', toOff(bad)), 'failed', /refers to vertex/);
    expectError(await importFile('a.ply', toPly(bad)), 'failed', /Triangle 3 .* refers to vertex/);
    expectError(await importFile('a.3mf', to3mf(bad)), 'failed', /refers to vertex/);
    expectError(await importFile('a.glb', await toGlb(bad)), 'failed', /refers to vertex/);
  });

  it('zero triangles', async () => {
    const none = { ...part.mesh, indices: new Uint32Array(0) };
    expectError(await importFile('a.obj', toObj(none)), 'failed', /no faces/);
    expectError(await importFile('a.off', toOff(none)), 'failed', /no faces/);
    expectError(await importFile('a.ply', toPly(none)), 'failed', /point cloud/);
    expectError(await importFile('a.3mf', to3mf(none)), 'failed', /no triangles/);
    expectError(await importFile('a.stl', toStlBinary(none)), 'failed', /no triangles/);
    const flat = { ...part.mesh, positions: part.mesh.positions.map(() => 1) };
    expectError(await importFile('a.stl', toStlBinary(flat)), 'failed', /zero area/);
  });

  it('glTF whose buffer is a separate file', async () => {
    const json = JSON.parse(new TextDecoder().decode(await toGltf(part.mesh))) as { buffers: { uri: string }[] };
    json.buffers[0]!.uri = 'part.bin';
    expectError(await importFile('part.gltf', new TextEncoder().encode(JSON.stringify(json))), 'failed', /separate file \(part\.bin\)/);
  });

  it('truncated OFF, PLY, GLB and 3MF', async () => {
    const cut = (b: Uint8Array) => b.subarray(0, Math.floor(b.byteLength * 0.7));
    expectError(await importFile('a.off', cut(toOff(part.mesh))), 'failed', /cut off|refers to vertex/);
    expectError(await importFile('a.ply', cut(toPly(part.mesh))), 'failed', /cut off/);
    expectError(await importFile('a.ply', cut(toPly(part.mesh, 'ascii'))), 'failed', /cut off|refers to vertex/);
    expectError(await importFile('a.glb', cut(await toGlb(part.mesh))), 'failed', /cut off/);
    expectError(await importFile('a.3mf', cut(to3mf(part.mesh))), 'failed', /damaged|cut off/);
  });

  it('survives garbage fed directly to every importer', async () => {
    const inputs = [
      new Uint8Array([0]),
      new TextEncoder().encode('solid x\nfacet normal 0 0 1\n'),
      new TextEncoder().encode('{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":9}}]}]}'),
      new Uint8Array(100).fill(255),
    ];
    for (const imp of IMPORTERS) {
      for (const bytes of inputs) {
        const r = await imp.import(bytes);
        expect(isImportError(r), `${imp.format}`).toBe(true);
      }
    }
  });
});

describe('timing', () => {
  it('imports a 50k-triangle binary STL quickly', async () => {
    const part = await sphere({ triangles: 50_000 });
    const bytes = toStlBinary(part.mesh);
    const t0 = performance.now();
    const model = expectModel(await importFile('sphere.stl', bytes));
    const t1 = performance.now();
    const facts = meshFacts(model);
    const t2 = performance.now();
    console.info(
      `50k STL: ${model.indices.length / 3} triangles, import ${(t1 - t0).toFixed(0)} ms, facts+weld ${(t2 - t1).toFixed(0)} ms`,
    );
    expect(model.indices.length / 3).toBeGreaterThan(40_000);
    expect(facts.closed).toBe(true);
    expect(t1 - t0).toBeLessThan(2000);
  });
});
