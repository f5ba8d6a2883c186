import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isImportError } from '../import/importer';
import { importFile } from '../import/registry';
import { applyToMesh, mergeMeshes, type Mesh } from '../mesh/mesh';
import { determinant3, identity, invertRigidMat4, multiply } from '../mesh/transform';
import { axis2Placement, parseStepPlacements, topOccurrences, type StepOccurrence } from './step-placements';

const CAXIF = path.join(path.dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json')), 'test', 'testfiles', 'cax-if');

/** One placed leaf of a multi-file assembly: the file holding its geometry and its world placement. */
interface Placed {
  file: string;
  world: number[];
  /** Occurrence path, for messages. */
  path: string;
}

/** Walks an assembly through its files (resolved in `dir`, case-insensitively) down to the leaves. */
function placeAll(dir: string, top: string): { placed: Placed[]; transforms: number[][] } {
  const files = readdirSync(dir);
  const resolve = (name: string) => files.find((f) => f.toLowerCase() === name.toLowerCase());
  const placed: Placed[] = [];
  const transforms: number[][] = [];
  const walkFile = (file: string, world: number[], at: string, depth: number) => {
    const occs = topOccurrences(parseStepPlacements(readFileSync(path.join(dir, file))));
    if (occs.length === 0 || depth > 8) {
      placed.push({ file: path.join(dir, file), world, path: at });
      return;
    }
    walkOccs(occs, world, at, depth);
  };
  const walkOccs = (occs: StepOccurrence[], world: number[], at: string, depth: number) => {
    for (const o of occs) {
      transforms.push(o.transform);
      const w = multiply(world, o.transform);
      const p = `${at}/${o.name}[${o.instance}]`;
      if (o.referencedFile) {
        const f = resolve(o.referencedFile);
        if (!f) throw new Error(`${o.referencedFile} not found in ${dir}`);
        walkFile(f, w, p, depth + 1);
      } else if (o.children.length) walkOccs(o.children, w, p, depth);
    }
  };
  walkFile(top, identity(), '', 0);
  return { placed, transforms };
}

const meshCache = new Map<string, Mesh>();
async function importPart(file: string): Promise<Mesh> {
  let m = meshCache.get(file);
  if (!m) {
    const r = await importFile(path.basename(file), new Uint8Array(readFileSync(file)), { fileName: path.basename(file) });
    if (isImportError(r)) throw new Error(`${file}: ${r.reason}`);
    meshCache.set(file, (m = r));
  }
  return m;
}

type Box = { min: number[]; max: number[] };
function bbox(m: Mesh): Box {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const p = m.positions;
  for (let i = 0; i < p.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k]!, p[i + k]!);
      max[k] = Math.max(max[k]!, p[i + k]!);
    }
  }
  return { min, max };
}
const size = (b: Box) => b.max.map((v, k) => v - b.min[k]!);
const volume = (b: Box) => size(b).reduce((a, s) => a * Math.max(s, 0), 1);
function overlap(a: Box, b: Box): Box {
  return { min: a.min.map((v, k) => Math.max(v, b.min[k]!)), max: a.max.map((v, k) => Math.min(v, b.max[k]!)) };
}

function expectRigid(m: number[]) {
  expect(m).toHaveLength(16);
  const col = (c: number) => [m[c * 4]!, m[c * 4 + 1]!, m[c * 4 + 2]!];
  for (let a = 0; a < 3; a++) {
    for (let b = 0; b < 3; b++) {
      const d = col(a).reduce((s, v, k) => s + v * col(b)[k]!, 0);
      expect(d).toBeCloseTo(a === b ? 1 : 0, 9);
    }
  }
  expect(determinant3(m)).toBeCloseTo(1, 9);
  expect([m[3], m[7], m[11], m[15]]).toEqual([0, 0, 0, 1]);
}

async function assemble(placed: Placed[]) {
  const parts = await Promise.all(placed.map(async (p) => ({ ...p, mesh: applyToMesh(await importPart(p.file), p.world) })));
  return { parts, merged: mergeMeshes(parts.map((p) => p.mesh)) };
}

const ASSEMBLIES = [
  { dir: 's1-c5-214', top: 's1-c5-214.stp' },
  { dir: 's1_pe_214', top: 's1_pe_214.stp' },
  { dir: 's1-tu-203', top: 's1-tu-203.stp' },
];

describe('step placements on CAx-IF multi-file assemblies (the same model from three writers)', () => {
  const sizes: number[][] = [];

  it.each(ASSEMBLIES)(
    '$dir: tree, rigid placements, instances apart, plausible extent',
    async ({ dir, top }) => {
      const d = path.join(CAXIF, dir);
      const s = parseStepPlacements(readFileSync(path.join(d, top)));
      expect(s.roots).toHaveLength(1);
      expect(s.unplaced).toBe(0);
      // head, tail, main body and the foot twice
      expect(topOccurrences(s)).toHaveLength(5);
      const { placed, transforms } = placeAll(d, top);
      expect(transforms.some((t) => Math.hypot(t[12]!, t[13]!, t[14]!) > 1)).toBe(true);
      for (const t of transforms) expectRigid(t);
      for (const p of placed) expectRigid(p.world);
      // 11 placed parts: two of the tail turbine, two of each foot part
      expect(placed).toHaveLength(11);
      const perFile = new Map<string, Placed[]>();
      for (const p of placed) perFile.set(p.file, [...(perFile.get(p.file) ?? []), p]);
      expect([...perFile.values()].map((l) => l.length).sort()).toEqual([1, 1, 1, 1, 1, 2, 2, 2]);

      const { parts, merged } = await assemble(placed);
      const boxes = new Map(parts.map((p, i) => [i, bbox(p.mesh)]));
      // Instances of one part do not coincide: their boxes overlap little.
      for (const [i, a] of parts.entries()) {
        for (const [j, b] of parts.entries()) {
          if (j <= i || a.file !== b.file) continue;
          const ba = boxes.get(i)!;
          const bb = boxes.get(j)!;
          expect(volume(overlap(ba, bb)) / volume(ba), `${a.path} vs ${b.path}`).toBeLessThan(0.2);
        }
      }
      // The assembly is far larger than any one part: the parts were spread out.
      const b = bbox(merged);
      const largestPart = Math.max(...[...boxes.values()].map(volume));
      expect(volume(b)).toBeGreaterThan(3 * largestPart);
      sizes.push(size(b));
    },
    120_000,
  );

  it('the three writers agree on the assembled length and height (about 455 × 156 mm)', () => {
    expect(sizes).toHaveLength(3);
    for (const s of sizes) {
      expect(s[0]).toBeGreaterThan(440);
      expect(s[0]).toBeLessThan(470);
      expect(s[2]).toBeGreaterThan(150);
      expect(s[2]).toBeLessThan(162);
    }
  });
});

describe('axis placements', () => {
  it('composes to ∘ from⁻¹ and normalises unnormalised directions', () => {
    const from = axis2Placement([1, 2, 3], [0, 0, 0.04], [0.04, 0, 0], 25.4)!;
    [25.4, 50.8, 76.2].forEach((v, k) => expect(from[12 + k]).toBeCloseTo(v, 9));
    const to = axis2Placement([10, 0, 0], [1, 0, 0], [0, 1, 0])!;
    expectRigid(to);
    const m = multiply(to, invertRigidMat4(from));
    expectRigid(m);
    // the origin of `from` lands on the origin of `to`
    const o = [25.4, 50.8, 76.2];
    const x = [0, 1, 2].map((r) => m[r]! * o[0]! + m[4 + r]! * o[1]! + m[8 + r]! * o[2]! + m[12 + r]!);
    expect(x[0]).toBeCloseTo(10, 9);
    expect(x[1]).toBeCloseTo(0, 9);
    expect(x[2]).toBeCloseTo(0, 9);
  });

  it('reads an inch assembly in millimetres and keeps multiple instances apart', () => {
    const s = parseStepPlacements(readFileSync(path.join(CAXIF, 's1-c5-214', 's1-c5-214.stp')));
    const feet = topOccurrences(s).filter((o) => o.referencedFile === 'FOOT.stp');
    expect(feet.map((f) => f.instance)).toEqual(['*DIT57', '*DIT58']);
    expect(feet[0]!.transform[13]).toBeCloseTo(1.43622047244 * 25.4, 6);
    expect(feet[1]!.transform[13]).toBeCloseTo(-1.43622047244 * 25.4, 6);
    expect(topOccurrences(s).map((o) => o.referencedFile)).toEqual(['TAIL.stp', 'HEAD.stp', 'MAINBODY.stp', 'FOOT.stp', 'FOOT.stp']);
  });
});
