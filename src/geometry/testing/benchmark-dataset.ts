// A labelled benchmark for the descriptors: parametric part families built with manifold-3d,
// plus duplicates (re-tessellated, rotated, moved, re-imported from another format), mirrored
// and scaled copies, geo-related pairs and small assemblies with known placements. Fixed seeds.
// For tests and experiments only (not a production path).
import type { CrossSection as CrossSectionT, Manifold } from 'manifold-3d';
import { loadManifold, manifoldToMesh, toGlb, toObj, toPly, toStlBinary } from './fixtures';
import { importFile } from '../import/registry';
import { isImportError } from '../import/importer';
import { applyToMesh, mergeMeshes, type Mesh } from '../mesh/mesh';
import { multiply, scaling, translation } from '../mesh/transform';
import { surfaceArea } from '../mesh/mesh-facts';
import { prng } from '../search/descriptors/sampling';

export type Family = 'plate' | 'bracket' | 'flange' | 'gear' | 'bolt' | 'nut' | 'shaft' | 'pipe' | 'pulley' | 'step-block';

export const FAMILIES: readonly Family[] = ['plate', 'bracket', 'flange', 'gear', 'bolt', 'nut', 'shaft', 'pipe', 'pulley', 'step-block'];

/** Families whose parts have no mirror symmetry (their mirror image is a different part). */
export const CHIRAL_FAMILIES: ReadonlySet<Family> = new Set(['bracket', 'step-block']);

export type Kind = 'original' | 'duplicate' | 'mirror' | 'scaled' | 'geo-related' | 'assembly';

export interface BenchmarkLabels {
  kind: Kind;
  /** The base part this record derives from (the same for an original and its duplicates). */
  partId: string;
  /** For duplicates: how it was made. For scaled: the factor. */
  variation?: string;
  /** Whether the base part is chiral. */
  chiral?: boolean;
  /** For assemblies: each part's base id, its placement (column-major) and its share of the surface area. */
  parts?: { partId: string; transform: number[]; areaShare: number }[];
  /** Hole (through-hole) count designed into the part. */
  holes?: number;
}

export type BenchmarkFormat = 'stl' | 'obj' | 'ply' | 'glb';

export interface BenchmarkRecord {
  id: string;
  family: Family | 'assembly';
  /** The geometry as the service would read it (for format duplicates: read back from `file`). */
  mesh: Mesh;
  labels: BenchmarkLabels;
  /** For format duplicates: the exported file itself, to upload as is (others upload as STL). */
  file?: { format: BenchmarkFormat; bytes: Uint8Array };
}

/** Resolution knob: circular segments of curved features (re-tessellation changes it). */
export interface BuildOptions {
  segments: number;
}

type Params = Record<string, number>;

interface FamilySpec {
  variants: Params[];
  build(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold>;
  holes(p: Params): number;
}

function del(...ms: { delete(): void }[]): void {
  for (const m of ms) m.delete();
}

function sub(a: Manifold, b: Manifold): Manifold {
  const r = a.subtract(b);
  del(a, b);
  return r;
}

function add(a: Manifold, b: Manifold): Manifold {
  const r = a.add(b);
  del(a, b);
  return r;
}

async function M() {
  return loadManifold();
}

/** Plate with a grid of holes; detail: a shallow pocket and corner chamfers cut on top. */
async function plate(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold } = await M();
  const { L = 100, W = 60, T = 8, hx = 2, hy = 2, d = 8 } = p;
  let s = Manifold.cube([L, W, T]);
  for (let i = 0; i < hx; i++) {
    for (let j = 0; j < hy; j++) {
      s = sub(s, Manifold.cylinder(T + 2, d / 2, d / 2, o.segments).translate((L * (i + 1)) / (hx + 1), (W * (j + 1)) / (hy + 1), -1));
    }
  }
  if (detail) {
    s = sub(s, Manifold.cube([L * 0.3, W * 0.25, T * 0.4]).translate(L * 0.35, W * 0.375, T * 0.6 + 0.01));
    for (const [x, y] of [
      [0, 0],
      [L, 0],
      [0, W],
      [L, W],
    ] as const) {
      s = sub(
        s,
        Manifold.cube([T, T, T + 2], true)
          .rotate([0, 0, 45])
          .translate(x, y, T / 2),
      );
    }
  }
  return s;
}

/** L-bracket whose two holes sit at different depths: chiral. Detail: a gusset rib. */
async function bracketPart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold, CrossSection } = await M();
  const { S = 50, T = 6, D = 30, r = 5 } = p;
  const profile = new CrossSection([
    [
      [0, 0],
      [S, 0],
      [S, T],
      [T, T],
      [T, S * 0.8],
      [0, S * 0.8],
    ],
  ]);
  let s = profile.extrude(D);
  profile.delete();
  s = sub(
    s,
    Manifold.cylinder(T + 2, r, r, o.segments)
      .rotate([90, 0, 0])
      .translate(S * 0.65, T + 1, D * 0.3),
  );
  s = sub(
    s,
    Manifold.cylinder(T + 2, r, r, o.segments)
      .rotate([0, 90, 0])
      .translate(-1, S * 0.55, D * 0.7),
  );
  if (detail) {
    const rib = new CrossSection([
      [
        [T - 0.01, T - 0.01],
        [S * 0.45, T - 0.01],
        [T - 0.01, S * 0.45],
      ],
    ]);
    s = add(s, rib.extrude(T * 0.6).translate(0, 0, D * 0.5 - T * 0.3));
    rib.delete();
  }
  return s;
}

async function flangePart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold } = await M();
  const { D = 120, T = 12, n = 6, hub = 0.4 } = p;
  const R = D / 2;
  let s = add(Manifold.cylinder(T, R, R, o.segments * 2), Manifold.cylinder(T * 2.5, R * hub, R * hub, o.segments * 2));
  s = sub(s, Manifold.cylinder(T * 3, R * 0.25, R * 0.25, o.segments).translate(0, 0, -1));
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    s = sub(
      s,
      Manifold.cylinder(T + 2, R * 0.08, R * 0.08, Math.max(12, o.segments / 2)).translate(
        R * 0.72 * Math.cos(a),
        R * 0.72 * Math.sin(a),
        -1,
      ),
    );
  }
  if (detail) {
    // A raised ring face and a chamfered hub top.
    s = add(
      s,
      sub(
        Manifold.cylinder(T * 0.2, R * 0.6, R * 0.6, o.segments * 2),
        Manifold.cylinder(T, R * 0.45, R * 0.45, o.segments * 2).translate(0, 0, -1),
      ).translate(0, 0, T),
    );
    s = sub(
      s,
      sub(
        Manifold.cylinder(T * 0.4, R * hub + 1, R * hub + 1, o.segments * 2),
        Manifold.cylinder(T * 0.4, R * hub, R * hub - T * 0.4, o.segments * 2),
      ).translate(0, 0, T * 2.5 - T * 0.4 + 0.001),
    );
  }
  return s;
}

function gearProfile(CrossSection: typeof CrossSectionT, teeth: number, module: number): CrossSectionT {
  const rp = (teeth * module) / 2;
  const ra = rp + module,
    rf = rp - 1.25 * module;
  const pts: [number, number][] = [];
  for (let i = 0; i < teeth; i++) {
    const a0 = (2 * Math.PI * i) / teeth;
    const w = (2 * Math.PI) / teeth;
    const at = (f: number, r: number): [number, number] => [r * Math.cos(a0 + f * w), r * Math.sin(a0 + f * w)];
    pts.push(at(0, rf), at(0.12, rf), at(0.22, ra), at(0.38, ra), at(0.48, rf), at(0.74, rf));
  }
  return new CrossSection([pts]);
}

async function gearPart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold, CrossSection } = await M();
  const { z = 24, m = 2, W = 10, bore = 0.25 } = p;
  const prof = gearProfile(CrossSection, z, m);
  let s = prof.extrude(W);
  prof.delete();
  const rp = (z * m) / 2;
  s = sub(s, Manifold.cylinder(W + 2, rp * bore, rp * bore, o.segments).translate(0, 0, -1));
  if (detail) {
    // Keyway in the bore and lightening recess on one face.
    s = sub(s, Manifold.cube([rp * 0.12, rp * 0.12, W + 2]).translate(rp * bore - rp * 0.04, -rp * 0.06, -1));
    s = sub(
      s,
      sub(
        Manifold.cylinder(W * 0.3, rp * 0.75, rp * 0.75, o.segments),
        Manifold.cylinder(W * 0.3, rp * 0.4, rp * 0.4, o.segments),
      ).translate(0, 0, W * 0.7 + 0.01),
    );
  }
  return s;
}

async function boltPart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold } = await M();
  const { d = 10, L = 40 } = p;
  const head = Manifold.cylinder(d * 0.7, d * 0.9, d * 0.9, 6);
  const shank = Manifold.cylinder(L, d / 2, d / 2, o.segments).translate(0, 0, d * 0.7 - 0.01);
  let s = add(head, shank);
  if (detail) {
    // Chamfered tip and a washer face under the head.
    s = sub(
      s,
      sub(Manifold.cylinder(d * 0.2, d, d, o.segments), Manifold.cylinder(d * 0.2, d / 2, d / 2 - d * 0.2, o.segments)).translate(
        0,
        0,
        d * 0.7 + L - d * 0.2 + 0.001,
      ),
    );
    s = add(s, Manifold.cylinder(d * 0.1, d * 0.8, d * 0.8, o.segments).translate(0, 0, d * 0.7 - 0.02));
  }
  return s;
}

async function nutPart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold } = await M();
  const { d = 10, H = 8 } = p;
  let s = sub(Manifold.cylinder(H, d * 0.9, d * 0.9, 6), Manifold.cylinder(H + 2, d / 2, d / 2, o.segments).translate(0, 0, -1));
  if (detail) {
    // Chamfer both faces: intersect with a double cone.
    const cone = add(
      Manifold.cylinder(H / 2, d * 0.82, d * 1.3, o.segments),
      Manifold.cylinder(H / 2, d * 1.3, d * 0.82, o.segments).translate(0, 0, H / 2),
    );
    const r = s.intersect(cone);
    del(s, cone);
    s = r;
  }
  return s;
}

async function shaftPart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold, CrossSection } = await M();
  const { L = 120, d = 20, steps = 2 } = p;
  const pts: [number, number][] = [[0, 0]];
  const n = Math.round(steps) + 1;
  for (let i = 0; i < n; i++) {
    const r = (d / 2) * (1 - (Math.abs(i - (n - 1) / 2) / n) * 0.8);
    pts.push([r, (L * i) / n], [r, (L * (i + 1)) / n]);
  }
  pts.push([0, L]);
  const prof = new CrossSection([pts]);
  let s = prof.revolve(o.segments);
  prof.delete();
  if (detail) s = sub(s, Manifold.cube([d * 0.25, d, L * 0.2]).translate(-d * 0.125, d * 0.3, L * 0.4));
  return s;
}

async function pipePart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold } = await M();
  const { D = 40, t = 4, L = 100 } = p;
  let s = sub(
    Manifold.cylinder(L, D / 2, D / 2, o.segments * 2),
    Manifold.cylinder(L + 2, D / 2 - t, D / 2 - t, o.segments * 2).translate(0, 0, -1),
  );
  if (detail) {
    // Two shallow outer grooves (same overall size).
    for (const z of [L * 0.2, L * 0.75])
      s = sub(
        s,
        sub(
          Manifold.cylinder(t * 1.5, D / 2 + 1, D / 2 + 1, o.segments * 2),
          Manifold.cylinder(t * 1.5, D / 2 - t * 0.4, D / 2 - t * 0.4, o.segments * 2),
        ).translate(0, 0, z),
      );
  }
  return s;
}

async function pulleyPart(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { CrossSection, Manifold } = await M();
  const { D = 80, W = 20, g = 6, bore = 8 } = p;
  const R = D / 2;
  const prof = new CrossSection([
    [
      [bore, 0],
      [R, 0],
      [R, W * 0.3],
      [R - g, W * 0.5],
      [R, W * 0.7],
      [R, W],
      [bore, W],
    ],
  ]);
  let s = prof.revolve(o.segments * 2);
  prof.delete();
  if (detail) {
    // Blind web recesses on both faces (same hole count, same overall size).
    for (const z of [-0.01, W * 0.75 + 0.01])
      s = sub(
        s,
        sub(
          Manifold.cylinder(W * 0.25, R * 0.7, R * 0.7, o.segments * 2),
          Manifold.cylinder(W * 0.25, bore * 1.8, bore * 1.8, o.segments * 2),
        ).translate(0, 0, z),
      );
  }
  return s;
}

/** A block with a step, an off-centre blind pocket and a hole: no mirror symmetry. */
async function stepBlock(p: Params, o: BuildOptions, detail: boolean): Promise<Manifold> {
  const { Manifold } = await M();
  const { L = 60, W = 40, H = 30, h = 0.5 } = p;
  let s = sub(Manifold.cube([L, W, H]), Manifold.cube([L * 0.45, W + 2, H * h]).translate(L * 0.55 + 0.01, -1, H * (1 - h) + 0.01));
  s = sub(s, Manifold.cylinder(H + 2, W * 0.12, W * 0.12, o.segments).translate(L * 0.25, W * 0.3, -1));
  s = sub(s, Manifold.cube([L * 0.2, W * 0.3, H * 0.3]).translate(L * 0.1, W * 0.6, H * 0.7 + 0.01));
  if (detail) s = sub(s, Manifold.cube([L * 0.3, W * 0.15, H * 0.2]).translate(L * 0.6, W * 0.1, -0.01));
  return s;
}

export const FAMILY_SPECS: Record<Family, FamilySpec> = {
  plate: {
    variants: [
      { L: 100, W: 60, T: 8, hx: 2, hy: 2, d: 8 },
      { L: 160, W: 50, T: 10, hx: 4, hy: 1, d: 10 },
      { L: 80, W: 80, T: 6, hx: 3, hy: 3, d: 6 },
      { L: 120, W: 40, T: 12, hx: 3, hy: 1, d: 12 },
    ],
    build: plate,
    holes: (p) => (p.hx ?? 2) * (p.hy ?? 2),
  },
  bracket: {
    variants: [
      { S: 50, T: 6, D: 30, r: 5 },
      { S: 70, T: 8, D: 40, r: 6 },
      { S: 40, T: 5, D: 50, r: 4 },
      { S: 60, T: 10, D: 25, r: 5 },
    ],
    build: bracketPart,
    holes: () => 2,
  },
  flange: {
    variants: [
      { D: 120, T: 12, n: 6, hub: 0.4 },
      { D: 90, T: 10, n: 4, hub: 0.45 },
      { D: 150, T: 14, n: 8, hub: 0.35 },
      { D: 100, T: 16, n: 5, hub: 0.5 },
    ],
    build: flangePart,
    holes: (p) => (p.n ?? 6) + 1,
  },
  gear: {
    variants: [
      { z: 24, m: 2, W: 10, bore: 0.25 },
      { z: 16, m: 3, W: 15, bore: 0.3 },
      { z: 36, m: 1.5, W: 8, bore: 0.2 },
      { z: 20, m: 2.5, W: 20, bore: 0.35 },
    ],
    build: gearPart,
    holes: () => 1,
  },
  bolt: {
    variants: [
      { d: 10, L: 40 },
      { d: 8, L: 60 },
      { d: 12, L: 30 },
      { d: 6, L: 50 },
    ],
    build: boltPart,
    holes: () => 0,
  },
  nut: {
    variants: [
      { d: 10, H: 8 },
      { d: 16, H: 13 },
      { d: 6, H: 5 },
      { d: 20, H: 10 },
    ],
    build: nutPart,
    holes: () => 1,
  },
  shaft: {
    variants: [
      { L: 120, d: 20, steps: 2 },
      { L: 200, d: 25, steps: 4 },
      { L: 90, d: 16, steps: 1 },
      { L: 150, d: 30, steps: 3 },
    ],
    build: shaftPart,
    holes: () => 0,
  },
  pipe: {
    variants: [
      { D: 40, t: 4, L: 100 },
      { D: 60, t: 3, L: 200 },
      { D: 30, t: 5, L: 60 },
      { D: 80, t: 6, L: 150 },
    ],
    build: pipePart,
    holes: () => 1,
  },
  pulley: {
    variants: [
      { D: 80, W: 20, g: 6, bore: 8 },
      { D: 120, W: 25, g: 8, bore: 12 },
      { D: 60, W: 15, g: 4, bore: 6 },
      { D: 100, W: 30, g: 10, bore: 15 },
    ],
    build: pulleyPart,
    holes: () => 1,
  },
  'step-block': {
    variants: [
      { L: 60, W: 40, H: 30, h: 0.5 },
      { L: 80, W: 40, H: 40, h: 0.4 },
      { L: 50, W: 50, H: 25, h: 0.6 },
      { L: 90, W: 30, H: 30, h: 0.5 },
    ],
    build: stepBlock,
    holes: () => 1,
  },
};

/** Builds one family variant as a mesh (mm). */
export async function buildPart(family: Family, variant: number, o: BuildOptions = { segments: 32 }, detail = false): Promise<Mesh> {
  const spec = FAMILY_SPECS[family];
  const p = spec.variants[variant % spec.variants.length]!;
  const solid = await spec.build(p, o, detail);
  const mesh = manifoldToMesh(solid);
  solid.delete();
  return mesh;
}

/** A uniformly random rotation (column-major 4×4) from a PRNG, via a random unit quaternion. */
export function randomRotation(rand: () => number): number[] {
  const u1 = rand(),
    u2 = rand() * 2 * Math.PI,
    u3 = rand() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1),
    b = Math.sqrt(u1);
  const [x, y, z, w] = [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
  return [
    1 - 2 * (y * y + z * z),
    2 * (x * y + z * w),
    2 * (x * z - y * w),
    0,
    2 * (x * y - z * w),
    1 - 2 * (x * x + z * z),
    2 * (y * z + x * w),
    0,
    2 * (x * z + y * w),
    2 * (y * z - x * w),
    1 - 2 * (x * x + y * y),
    0,
    0,
    0,
    0,
    1,
  ];
}

/** A random rigid motion: rotation then a translation of up to ±`reach` mm per axis. */
export function randomRigid(rand: () => number, reach = 500): number[] {
  return multiply(translation((rand() * 2 - 1) * reach, (rand() * 2 - 1) * reach, (rand() * 2 - 1) * reach), randomRotation(rand));
}

/** Splits every triangle into four (edge midpoints): same surface, different tessellation. */
export function subdivide(mesh: Mesh): Mesh {
  const p = mesh.positions;
  const idx = mesh.indices;
  const nt = idx.length / 3;
  const positions = new Float32Array(nt * 6 * 3);
  const indices = new Uint32Array(nt * 12);
  for (let t = 0; t < nt; t++) {
    const v = [0, 1, 2].map((k) => idx[t * 3 + k]! * 3);
    const P = (i: number, k: number) => p[v[i]! + k]!;
    const base = t * 6;
    for (let k = 0; k < 3; k++) {
      positions[(base + 0) * 3 + k] = P(0, k);
      positions[(base + 1) * 3 + k] = P(1, k);
      positions[(base + 2) * 3 + k] = P(2, k);
      positions[(base + 3) * 3 + k] = (P(0, k) + P(1, k)) / 2;
      positions[(base + 4) * 3 + k] = (P(1, k) + P(2, k)) / 2;
      positions[(base + 5) * 3 + k] = (P(2, k) + P(0, k)) / 2;
    }
    indices.set(
      [base, base + 3, base + 5, base + 3, base + 1, base + 4, base + 5, base + 4, base + 2, base + 3, base + 4, base + 5],
      t * 12,
    );
  }
  const out: Mesh = { positions, indices };
  if (mesh.units) out.units = mesh.units;
  return out;
}

/** Writes the mesh in `format` and reads it back through the production importers. */
export async function roundTrip(mesh: Mesh, format: BenchmarkFormat): Promise<Mesh> {
  return (await roundTripFile(mesh, format)).mesh;
}

/** {@link roundTrip}, keeping the file that was written. */
export async function roundTripFile(
  mesh: Mesh,
  format: BenchmarkFormat,
): Promise<{ mesh: Mesh; file: { format: BenchmarkFormat; bytes: Uint8Array } }> {
  const bytes = format === 'stl' ? toStlBinary(mesh) : format === 'obj' ? toObj(mesh) : format === 'ply' ? toPly(mesh) : await toGlb(mesh);
  const r = await importFile(`part.${format}`, bytes);
  if (isImportError(r)) throw new Error(`round trip through ${format} failed: ${r.reason}`);
  const out: Mesh = { positions: r.positions, indices: r.indices };
  if (r.units) out.units = r.units;
  return { mesh: out, file: { format, bytes } };
}

export interface DatasetOptions {
  families?: readonly Family[];
  /** Variants per family (default all four). */
  variants?: number;
  /** Duplicates per original (default 3: re-tessellated + STL, subdivided + OBJ/PLY, GLB). */
  duplicates?: number;
  mirrors?: boolean;
  scales?: readonly number[];
  geoRelated?: boolean;
  assemblies?: boolean;
  seed?: number;
}

/** Builds the labelled dataset. Deterministic for a given seed and options. */
export async function buildDataset(o: DatasetOptions = {}): Promise<BenchmarkRecord[]> {
  const families = o.families ?? FAMILIES;
  const nVar = o.variants ?? 4;
  const nDup = o.duplicates ?? 3;
  const scales = o.scales ?? [1.1, 2];
  const rand = prng(o.seed ?? 2024);
  const out: BenchmarkRecord[] = [];
  for (const family of families) {
    const spec = FAMILY_SPECS[family];
    const chiral = CHIRAL_FAMILIES.has(family);
    for (let v = 0; v < Math.min(nVar, spec.variants.length); v++) {
      const partId = `${family}-${v}`;
      const holes = spec.holes(spec.variants[v]!);
      const base = await buildPart(family, v, { segments: 32 });
      out.push({ id: partId, family, mesh: base, labels: { kind: 'original', partId, chiral, holes } });
      const dupMakers: [string, () => Promise<{ mesh: Mesh; file: BenchmarkRecord['file'] }>][] = [
        ['segments-48+stl', async () => roundTripFile(applyToMesh(await buildPart(family, v, { segments: 48 }), randomRigid(rand)), 'stl')],
        ['subdivided+obj', async () => roundTripFile(applyToMesh(subdivide(base), randomRigid(rand)), 'obj')],
        ['glb', async () => roundTripFile(applyToMesh(base, randomRigid(rand)), 'glb')],
        ['segments-24+ply', async () => roundTripFile(applyToMesh(await buildPart(family, v, { segments: 24 }), randomRigid(rand)), 'ply')],
      ];
      for (let d = 0; d < Math.min(nDup, dupMakers.length); d++) {
        const [variation, make] = dupMakers[d]!;
        const { mesh, file } = await make();
        out.push({
          id: `${partId}-dup${d}`,
          family,
          mesh,
          labels: { kind: 'duplicate', partId, variation, chiral, holes },
          ...(file ? { file } : {}),
        });
      }
      if (o.mirrors ?? true) {
        out.push({
          id: `${partId}-mirror`,
          family,
          mesh: applyToMesh(base, multiply(randomRigid(rand), scaling(-1, 1, 1))),
          labels: { kind: 'mirror', partId, chiral, holes },
        });
      }
      for (const f of scales) {
        out.push({
          id: `${partId}-x${f}`,
          family,
          mesh: applyToMesh(base, multiply(randomRigid(rand), scaling(f))),
          labels: { kind: 'scaled', partId, variation: String(f), chiral, holes },
        });
      }
      if (o.geoRelated ?? true) {
        const geo = await buildPart(family, v, { segments: 32 }, true);
        out.push({
          id: `${partId}-geo`,
          family,
          mesh: applyToMesh(geo, randomRigid(rand)),
          labels: { kind: 'geo-related', partId, chiral, holes },
        });
      }
    }
  }
  if (o.assemblies ?? true) out.push(...(await buildAssemblies(rand)));
  return out;
}

/** Places parts (already in mm) and returns the merged assembly with each part's true area share. */
export function assemble(id: string, parts: { partId: string; mesh: Mesh; transform: number[] }[]): BenchmarkRecord {
  const placed = parts.map((p) => applyToMesh(p.mesh, p.transform));
  const areas = placed.map((m) => surfaceArea(m));
  const total = areas.reduce((a, b) => a + b, 0);
  return {
    id,
    family: 'assembly',
    mesh: mergeMeshes(placed),
    labels: {
      kind: 'assembly',
      partId: id,
      parts: parts.map((p, i) => ({ partId: p.partId, transform: p.transform, areaShare: areas[i]! / total })),
    },
  };
}

/** Small assemblies of benchmark parts with known placements. */
export async function buildAssemblies(rand: () => number = prng(99)): Promise<BenchmarkRecord[]> {
  const seg = { segments: 32 };
  const plateM = await buildPart('plate', 0, seg); // 100×60×8, holes Ø8 at x=33.3/66.7, y=20/40
  const boltM = await buildPart('bolt', 3, seg); // d 6, L 50 (fits the Ø8 holes)
  const nutM = await buildPart('nut', 2, seg); // d 6
  const flangeM = await buildPart('flange', 1, seg);
  const pipeM = await buildPart('pipe', 0, seg);
  const shaftM = await buildPart('shaft', 0, seg);
  const pulleyM = await buildPart('pulley', 0, seg);
  const bracketM = await buildPart('bracket', 0, seg);
  const blockM = await buildPart('step-block', 0, seg);
  const world = () => randomRigid(rand, 200);
  const put = (w: number[], local: number[]) => multiply(w, local);
  const asm: BenchmarkRecord[] = [];
  {
    // Bolt down through a plate hole (head on top), nut underneath.
    const w = world();
    const flip = [1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1];
    asm.push(
      assemble('asm-plate-bolt-nut', [
        { partId: 'plate-0', mesh: plateM, transform: put(w, translation(0, 0, 0)) },
        { partId: 'bolt-3', mesh: boltM, transform: put(w, multiply(translation(100 / 3, 20, 8 + 4.2), flip)) },
        { partId: 'nut-2', mesh: nutM, transform: put(w, translation(100 / 3, 20, -5)) },
      ]),
    );
  }
  {
    // Pulley on a shaft.
    const w = world();
    asm.push(
      assemble('asm-shaft-pulley', [
        { partId: 'shaft-0', mesh: shaftM, transform: put(w, translation(0, 0, 0)) },
        { partId: 'pulley-0', mesh: pulleyM, transform: put(w, translation(0, 0, 50)) },
      ]),
    );
  }
  {
    // Flange at the end of a pipe.
    const w = world();
    asm.push(
      assemble('asm-pipe-flange', [
        { partId: 'pipe-0', mesh: pipeM, transform: put(w, translation(0, 0, 0)) },
        { partId: 'flange-1', mesh: flangeM, transform: put(w, translation(0, 0, 100)) },
      ]),
    );
  }
  {
    // Bracket bolted to a block, side by side.
    const w = world();
    asm.push(
      assemble('asm-block-bracket', [
        { partId: 'step-block-0', mesh: blockM, transform: put(w, translation(0, 0, 0)) },
        { partId: 'bracket-0', mesh: bracketM, transform: put(w, translation(-55, 5, 0)) },
      ]),
    );
  }
  return asm;
}
