import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  plateWithHoles,
  to3mf,
  toGlb,
  toGltf,
  toObj,
  toOff,
  toPly,
  toStlAscii,
  toStlBinary,
  type FixturePart,
} from '../../geometry/testing/fixtures';
import { derivedFiles, readTestFile, startIngestTestService, type IngestTestService } from './ingest-test-helpers';
import { nativeReaderPath } from './occt-native/reader-path';
import { bigStep } from '../testing/step-files';

describe('ingestion through the API: formats and bad files', () => {
  let svc: IngestTestService;
  let part: FixturePart;
  beforeAll(async () => {
    svc = await startIngestTestService();
    part = await plateWithHoles();
  });
  afterAll(() => svc?.stop());

  it('every fixture format ends finished with plausible facts, a viewer GLB and a thumbnail PNG', async () => {
    const mesh = part.mesh;
    const files: Record<string, Uint8Array> = {
      'formats/plate.stl': toStlBinary(mesh),
      'formats/plate-ascii.stl': toStlAscii(mesh),
      'formats/plate.obj': toObj(mesh),
      'formats/plate.ply': toPly(mesh),
      'formats/plate.off': toOff(mesh),
      'formats/plate.glb': await toGlb(mesh),
      'formats/plate.gltf': await toGltf(mesh),
      'formats/plate.3mf': to3mf(mesh),
      'formats/cube.stp': readTestFile('cube-10x10mm', 'Cube 10x10.stp'),
      'formats/cube.igs': readTestFile('cube-10x10mm', 'Cube 10x10.igs'),
      'formats/as1_pe_203.brep': readTestFile('cax-if-brep', 'as1_pe_203.brep'),
      // Large enough for the native reader (from 2 MB), where it was built.
      'formats/five-as1.stp': bigStep(2_300_000).bytes,
    };
    const ids = await Promise.all(Object.entries(files).map(async ([p, bytes]) => [p, await svc.upload(p, bytes)] as const));
    for (const [p, id] of ids) {
      const m = await svc.settled(id);
      expect(m.state, `${p}: ${m.stateReason ?? ''}`).toBe('finished');
      const f = m.facts!;
      expect(f.triangles, p).toBeGreaterThanOrEqual(12);
      expect(f.shells, p).toBeGreaterThanOrEqual(1);
      expect(f.surfaceArea, p).toBeGreaterThan(0);
      const size = f.boundingBox.max.map((v, i) => v - f.boundingBox.min[i]!);
      if (p.includes('plate')) {
        // glTF is in metres: the same plate, 1000× smaller
        const s = f.units === 'm' ? 1000 : 1;
        expect(
          size.map((v) => Math.round(v * s)),
          p,
        ).toEqual([100, 60, 8]);
        expect(f.volume! * s ** 3, p).toBeCloseTo(part.volume, -1);
      }
      if (p.includes('cube.')) {
        expect(
          size.map((v) => Math.round(v)),
          p,
        ).toEqual([10, 10, 10]);
        expect(f.volume, p).toBeCloseTo(1000, 0);
        expect(f.units).toBe('mm');
      }
      // CAD files name their reader: OpenCascade built for this machine where it was built
      // (npm run build:native), else occt-import-js; meshes none.
      const cad = /\.(stp|igs|brep)$/.test(p);
      expect(f.reader, p).toBe(!cad ? undefined : nativeReaderPath() && p.includes('five-as1') ? 'opencascade-native' : 'occt-import-js');
      const { glb, png } = await derivedFiles(svc, m);
      expect(new TextDecoder().decode(glb.subarray(0, 4)), p).toBe('glTF');
      const meta = await sharp(png).metadata();
      expect(meta, p).toMatchObject({ format: 'png', width: 256, height: 256 });
    }
  });

  it('a mesh declared in inches at upload is read in inches; a file that says its unit keeps it', async () => {
    const res = await svc.api('/v2/models?createMissingFolders=true', {
      method: 'POST',
      token: svc.token,
      json: {
        models: [
          { filePath: 'units/plate-in.stl', name: 'plate in inches', units: 'in' },
          { filePath: 'units/plate-m.glb', name: 'glTF says metres', units: 'in' },
        ],
      },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const [inches, metres] = (
      (await res.json()) as { models: { model: { id: string }; uploadUrl: string; headers: Record<string, string> }[] }
    ).models;
    await svc.put(inches!, toStlBinary(part.mesh));
    await svc.put(metres!, await toGlb(part.mesh, { scaleToMetres: true }));
    const a = await svc.settled(inches!.model.id);
    expect(a).toMatchObject({ state: 'finished', units: 'in' });
    expect(a.facts?.units).toBe('in');
    const b = await svc.settled(metres!.model.id);
    expect(b.facts?.units).toBe('m');
    expect(
      (
        await svc.api('/v2/models', {
          method: 'POST',
          token: svc.token,
          json: { models: [{ filePath: 'units/x.stl', name: 'x', units: 'furlong' }] },
        })
      ).status,
    ).toBe(400);
  });

  it('a lying, empty or truncated file ends failed with a reason; native CAD ends unsupported', async () => {
    const stl = toStlBinary(part.mesh);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const cases: [string, Uint8Array, string, RegExp][] = [
      ['bad/picture.stl', new Uint8Array(png), 'failed', /not (an? )?STL|PNG/i],
      ['bad/picture.step', stl, 'failed', /STEP/],
      ['bad/empty.obj', new Uint8Array(0), 'failed', /empty/i],
      ['bad/cut.stl', stl.subarray(0, Math.floor(stl.length / 2)), 'failed', /cut off/i],
      ['bad/cut.stp', readTestFile('cube-10x10mm', 'Cube 10x10.stp').subarray(0, 2000), 'failed', /STEP/],
      ['bad/part.sldprt', new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 1, 2, 3, 4]), 'unsupported', /SolidWorks/],
      ['bad/cube.ipt', readTestFile('cube-10x10mm', 'Cube 10x10.ipt'), 'unsupported', /Inventor/],
    ];
    const ids = await Promise.all(cases.map(async ([p, bytes]) => svc.upload(p, bytes)));
    for (const [i, [p, , state, reason]] of cases.entries()) {
      const m = await svc.settled(ids[i]!);
      expect(m.state, `${p}: ${m.stateReason ?? ''}`).toBe(state);
      expect(m.stateReason, p).toMatch(reason);
      expect(m.thumbnail ?? null, p).toBeNull();
    }

    // A truncated STEP is replaced by its whole file: the same record (id, path) takes the new file
    // when asked with replaceFailed=true, and is processed again. Without it the path is taken.
    const cut = ids[cases.findIndex(([p]) => p === 'bad/cut.stp')]!;
    const ask = (query: string) =>
      svc.api(`/v2/models${query}`, { method: 'POST', token: svc.token, json: { models: [{ filePath: 'bad/cut.stp', name: 'cut.stp' }] } });
    expect((await ask('')).status).toBe(409);
    const again = await ask('?replaceFailed=true');
    expect(again.status, await again.clone().text()).toBe(201);
    const entry = ((await again.json()) as { models: { model: { id: string }; uploadUrl: string; headers: Record<string, string> }[] })
      .models[0]!;
    expect(entry.model.id).toBe(cut);
    await svc.put(entry, readTestFile('cube-10x10mm', 'Cube 10x10.stp'));
    const replaced = await svc.settled(cut);
    expect(replaced.state, replaced.stateReason ?? '').toBe('finished');
    expect(replaced.filePath).toBe('bad/cut.stp');
    // A model that was read is never replaced this way.
    expect((await ask('?replaceFailed=true')).status).toBe(409);
  });

  it('with the WebAssembly reader chosen (OCCT_READER=wasm), a STEP part is read by occt-import-js', async () => {
    const wasm = await startIngestTestService({ occtReader: 'wasm' });
    try {
      const m = await wasm.settled(await wasm.upload('wasm/cube.stp', readTestFile('cube-10x10mm', 'Cube 10x10.stp')));
      expect(m.state).toBe('finished');
      expect(m.facts?.reader).toBe('occt-import-js');
      expect(m.facts?.volume).toBeCloseTo(1000, 0);
    } finally {
      await wasm.stop();
    }
  });
});
