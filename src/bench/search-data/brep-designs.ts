// Designs from another kernel and other tessellators, for the search benchmark's splits: solids
// modelled in OpenCascade through gmsh's .geo language (Debian `gmsh`, installed when missing),
// written as STEP B-reps — in mm, in inch and in metres — and meshed by gmsh's own surface mesher
// (fine and coarse). So the splits hold STEP against mesh for swept, revolved and filleted parts,
// tessellated by OpenCascade's mesher on import on one side and by gmsh on the other, and no file
// of these designs passes through the generator the rest of the split uses (manifold-3d).
// Benchmark data, not a production path; files are cached by their script.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importFile } from '../../geometry/import/registry';
import { isImportError } from '../../geometry/import/importer';
import { boundingBox, surfaceArea } from '../../geometry/mesh/mesh-facts';
import { cross } from '../../geometry/search/descriptors/pose';
import { prng } from '../../geometry/search/descriptors/sampling';
import type { Vec3 } from '../../geometry/mesh/mesh';
import type { Params } from './designs';
import type { SearchRecord } from './split';

const CACHE = join(process.cwd(), 'node_modules', '.cache', 'search-bench', 'gmsh');

interface BrepArchetype {
  name: string;
  chiral: boolean;
  draw(rand: () => number): Params;
  /** Parameter (mm) moving one hole from its design position. */
  shift: string;
  /** Dimensions whose change by 1–3 % of the size is a feature edit: [name, mm moved per unit]. */
  edits: readonly [string, number][];
  /** Dimensions a family variant changes by 10–30 %. */
  variants: readonly string[];
  /** .geo statements leaving the part as the model's only volume(s). */
  geo(p: Params): string;
}

const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a: Vec3, k: number): Vec3 => [a[0] * k, a[1] * k, a[2] * k];
const between = (rand: () => number, lo: number, hi: number) => lo + (hi - lo) * rand();
const r2 = (x: number) => Math.round(x * 100) / 100;
const f = (x: number) => String(r2(x));

/** A hole pattern: cylinders through z ∈ [z0, z0 + h] at radius rp, angles in degrees, the first moved radially by `moved`. */
function holes(
  firstTag: number,
  angles: readonly number[],
  rp: number,
  r: number,
  z0: number,
  h: number,
  moved: number,
): { geo: string; tags: number[] } {
  const tags = angles.map((_, k) => firstTag + k);
  const geo = angles
    .map((a, k) => {
      const rr = rp + (k === 0 ? moved : 0);
      const t = (a * Math.PI) / 180;
      return `Cylinder(${tags[k]}) = {${f(rr * Math.cos(t))}, ${f(rr * Math.sin(t))}, ${f(z0 - 1)}, 0, 0, ${f(h + 2)}, ${f(r)}};`;
    })
    .join('\n');
  return { geo, tags };
}

/** .geo statements putting into `into[]` the curves of `from[]` that rise more than `dz` (upright edges). */
const upright = (from: string, into: string, dz: number) => [
  `${into}[] = {};`,
  `For i In {0 : #${from}[] - 1}`,
  `  bb[] = BoundingBox Curve{${from}[i]};`,
  `  If (Fabs(bb[5] - bb[2]) > ${f(dz)})`,
  `    ${into}[] += ${from}[i];`,
  `  EndIf`,
  `EndFor`,
];

/** An annulus in the xy plane (surface 3). */
const annulus = (ro: number, ri: number) =>
  `Disk(1) = {0, 0, 0, ${f(ro)}};\nDisk(2) = {0, 0, 0, ${f(ri)}};\nBooleanDifference(3) = { Surface{1}; Delete; }{ Surface{2}; Delete; };`;

/** A flange ring on z ∈ [z0, z0 + t] with holes; the result is volume `tag`. */
function flange(
  tag: number,
  z0: number,
  t: number,
  rf: number,
  ri: number,
  pattern: readonly number[],
  rp: number,
  hr: number,
  moved: number,
): string {
  const h = holes(tag + 2, pattern, rp, hr, z0, t, moved);
  return `Cylinder(${tag}) = {0, 0, ${f(z0)}, 0, 0, ${f(t)}, ${f(rf)}};\nCylinder(${tag + 1}) = {0, 0, ${f(z0 - 1)}, 0, 0, ${f(t + 2)}, ${f(ri)}};\n${h.geo}\nBooleanDifference(${tag + 50}) = { Volume{${tag}}; Delete; }{ Volume{${[tag + 1, ...h.tags].join(', ')}}; Delete; };`;
}

const ARCHETYPES: BrepArchetype[] = [
  {
    // A tube swept round a bend with a straight leg and a bolted flange at each end.
    name: 'swept-elbow',
    chiral: false,
    draw: (rand) => {
      const ro = between(rand, 8, 18);
      return {
        ro,
        t: between(rand, 0.12, 0.22) * ro,
        R: between(rand, 1.6, 3) * ro,
        theta: between(rand, 60, 120),
        L: between(rand, 1, 2.5) * ro,
        rf: between(rand, 1.8, 2.3) * ro,
        tf: between(rand, 0.2, 0.35) * ro,
        n: rand() < 0.5 ? 4 : 6,
        sh: 0,
      };
    },
    shift: 'sh',
    edits: [
      ['rf', 1],
      ['tf', 1],
    ],
    variants: ['R', 'L', 'theta', 'rf'],
    geo: ({ ro, t, R, theta, L, rf, tf, n, sh }) => {
      const ri = ro! - t!,
        rp = (ro! + rf!) / 2,
        hr = 0.12 * ro!;
      const pattern = Array.from({ length: n! }, (_, k) => ((k + 0.5) * 360) / n!);
      return [
        annulus(ro!, ri),
        `a[] = Extrude {0, 0, ${f(L!)}} { Surface{3}; };`,
        `b[] = Extrude {{0, 1, 0}, {${f(R!)}, 0, ${f(L!)}}, ${((theta! * Math.PI) / 180).toFixed(5)}} { Surface{a[0]}; };`,
        flange(100, -tf!, tf!, rf!, ri, pattern, rp, hr, sh!),
        flange(200, L!, tf!, rf!, ri, pattern, rp, hr, 0),
        `Rotate {{0, 1, 0}, {${f(R!)}, 0, ${f(L!)}}, ${((theta! * Math.PI) / 180).toFixed(5)}} { Volume{250}; }`,
        `BooleanUnion(500) = { Volume{a[1]}; Delete; }{ Volume{b[1], 150, 250}; Delete; };`,
      ].join('\n');
    },
  },
  {
    // A tube swept through two bends in different planes (a space path: its mirror image is
    // another part), with a flange whose three holes are unevenly spaced.
    name: 'swept-pipe',
    chiral: true,
    draw: (rand) => {
      const ro = between(rand, 5, 12);
      return {
        ro,
        t: between(rand, 0.15, 0.3) * ro,
        L1: between(rand, 1, 2.5) * ro,
        R1: between(rand, 1.6, 3) * ro,
        th1: between(rand, 50, 100),
        L2: between(rand, 0.5, 2) * ro,
        R2: between(rand, 1.6, 3) * ro,
        th2: between(rand, 50, 100),
        phi: between(rand, 40, 140),
        rf: between(rand, 2, 2.6) * ro,
        tf: between(rand, 0.25, 0.4) * ro,
        sh: 0,
      };
    },
    shift: 'sh',
    edits: [
      ['rf', 1],
      ['tf', 1],
    ],
    variants: ['L1', 'th1', 'L2', 'th2', 'phi'],
    geo: ({ ro, t, L1, R1, th1, L2, R2, th2, phi, rf, tf, sh }) => {
      const ri = ro! - t!;
      const rad = (deg: number) => (deg * Math.PI) / 180;
      // After the first bend (about y through (R1, 0, L1)) the tube runs along T1 from P1.
      const t1 = rad(th1!);
      const T1: Vec3 = [Math.sin(t1), 0, Math.cos(t1)];
      const P2 = add([R1! - R1! * Math.cos(t1), 0, L1! + R1! * Math.sin(t1)], scale(T1, L2!));
      // The second bend's axis: y turned about T1 by phi; its centre lies so that turning P2 about it moves along T1.
      const Y: Vec3 = [0, 1, 0];
      const A = add(scale(Y, Math.cos(rad(phi!))), scale(cross(T1, Y), Math.sin(rad(phi!))));
      const C = add(P2, scale(cross(T1, A), -R2!));
      const v = (x: Vec3) => x.map(f).join(', ');
      return [
        annulus(ro!, ri),
        `a[] = Extrude {0, 0, ${f(L1!)}} { Surface{3}; };`,
        `b[] = Extrude {{0, 1, 0}, {${f(R1!)}, 0, ${f(L1!)}}, ${t1.toFixed(5)}} { Surface{a[0]}; };`,
        `c[] = Extrude {${v(scale(T1, L2!))}} { Surface{b[0]}; };`,
        `d[] = Extrude {{${A.map((x) => x.toFixed(5)).join(', ')}}, {${v(C)}}, ${rad(th2!).toFixed(5)}} { Surface{c[0]}; };`,
        flange(100, -tf!, tf!, rf!, ri, [20, 130, 250], (ro! + rf!) / 2, 0.14 * ro!, sh!),
        `BooleanUnion(500) = { Volume{a[1]}; Delete; }{ Volume{b[1], c[1], d[1], 150}; Delete; };`,
      ].join('\n');
    },
  },
  {
    // An L bracket with a filleted inner corner, rounded plate corners and unevenly placed holes.
    name: 'filleted-bracket',
    chiral: true,
    draw: (rand) => {
      const W = between(rand, 40, 90);
      const t = between(rand, 3, 7);
      return {
        W,
        D: between(rand, 0.5, 0.9) * W,
        H: between(rand, 0.4, 0.8) * W,
        t,
        fr: between(rand, 0.8, 1.8) * t,
        hr: between(rand, 2, 4),
        cr: between(rand, 0.08, 0.15) * W,
        sh: 0,
      };
    },
    shift: 'sh',
    edits: [
      ['hr', 1],
      ['fr', Math.SQRT2 - 1],
    ],
    variants: ['W', 'D', 'H'],
    geo: ({ W, D, H, t, fr, hr, cr, sh }) => {
      const e = 0.01;
      return [
        `Box(1) = {0, 0, 0, ${f(W!)}, ${f(D!)}, ${f(t!)}};`,
        `Box(2) = {0, 0, 0, ${f(W!)}, ${f(t!)}, ${f(H!)}};`,
        `BooleanUnion(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };`,
        `c[] = Curve In BoundingBox {-1, ${f(t! - e)}, ${f(t! - e)}, ${f(W! + 1)}, ${f(t! + e)}, ${f(t! + e)}};`,
        `Fillet{3}{c[]}{${f(fr!)}}`,
        // The plate's two free corners, rounded (vertical edges at y = D).
        `k[] = Curve In BoundingBox {-1, ${f(D! - e)}, -1, ${f(W! + 1)}, ${f(D! + e)}, ${f(t! + 1)}};`,
        `v[] = Volume{:};`,
        ...upright('k', 'kk', t! / 2),
        `Fillet{v[0]}{kk[]}{${f(cr!)}}`,
        `v[] = Volume{:};`,
        `Cylinder(20) = {${f(0.27 * W! + sh!)}, ${f(0.55 * D!)}, -1, 0, 0, ${f(t! + 2)}, ${f(hr!)}};`,
        `Cylinder(21) = {${f(0.74 * W!)}, ${f(0.72 * D!)}, -1, 0, 0, ${f(t! + 2)}, ${f(hr!)}};`,
        `Cylinder(22) = {${f(0.62 * W!)}, -1, ${f(0.62 * H!)}, 0, ${f(t! + 2)}, 0, ${f(hr!)}};`,
        `BooleanDifference(30) = { Volume{v[0]}; Delete; }{ Volume{20, 21, 22}; Delete; };`,
      ].join('\n');
    },
  },
  {
    // A revolved flanged bushing: a fillet where body meets flange, a bolt circle, a radial grease hole.
    name: 'flanged-bushing',
    chiral: false,
    draw: (rand) => {
      const rb = between(rand, 8, 20);
      return {
        rb,
        H: between(rand, 1, 2.5) * rb,
        rf: between(rand, 1.6, 2.2) * rb,
        tf: between(rand, 0.2, 0.4) * rb,
        ri: between(rand, 0.5, 0.7) * rb,
        fr: between(rand, 0.1, 0.2) * rb,
        n: rand() < 0.5 ? 3 : 4,
        sh: 0,
      };
    },
    shift: 'sh',
    edits: [
      ['ri', 1],
      ['tf', 1],
    ],
    variants: ['H', 'rf', 'rb'],
    geo: ({ rb, H, rf, tf, ri, fr, n, sh }) => {
      const e = 0.01;
      const pattern = Array.from({ length: n! }, (_, k) => ((k + 0.5) * 360) / n!);
      const h = holes(20, pattern, (rb! + rf!) / 2 + fr! / 2, 0.12 * rb!, 0, tf!, sh!);
      return [
        `Cylinder(1) = {0, 0, 0, 0, 0, ${f(tf!)}, ${f(rf!)}};`,
        `Cylinder(2) = {0, 0, 0, 0, 0, ${f(H!)}, ${f(rb!)}};`,
        `BooleanUnion(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };`,
        `c[] = Curve In BoundingBox {${f(-rb! - e)}, ${f(-rb! - e)}, ${f(tf! - e)}, ${f(rb! + e)}, ${f(rb! + e)}, ${f(tf! + e)}};`,
        `Fillet{3}{c[]}{${f(fr!)}}`,
        `v[] = Volume{:};`,
        `Cylinder(10) = {0, 0, -1, 0, 0, ${f(H! + 2)}, ${f(ri!)}};`,
        `Cylinder(11) = {0, 0, ${f(0.65 * H!)}, ${f(rb! + 1)}, 0, 0, ${f(0.1 * rb!)}};`,
        h.geo,
        `BooleanDifference(30) = { Volume{v[0]}; Delete; }{ Volume{${[10, 11, ...h.tags].join(', ')}}; Delete; };`,
      ].join('\n');
    },
  },
  {
    // A thin-walled cover (a moulded housing's lid): a box with rounded vertical edges shelled to
    // 1–2 % of its width, open below, holes in the top and one wall. Its rim and walls are faces
    // narrower than the comparison's sample spacing, as in real plastic housings.
    name: 'shelled-cover',
    chiral: true,
    draw: (rand) => {
      const W = between(rand, 60, 120);
      return {
        W,
        D: between(rand, 0.5, 0.9) * W,
        H: between(rand, 0.25, 0.5) * W,
        t: between(rand, 0.012, 0.02) * W,
        cr: between(rand, 0.1, 0.2) * W,
        hr: between(rand, 0.03, 0.05) * W,
        sh: 0,
      };
    },
    shift: 'sh',
    edits: [
      ['t', 1],
      ['hr', 1],
    ],
    variants: ['W', 'D', 'H'],
    geo: ({ W, D, H, t, cr, hr, sh }) => {
      const e = 0.01;
      /** Fillets the vertical edges (within the box x0 y0 z0 x1 y1 z1) of volume `v` by `r`; the result is the first of `out[]`. */
      const roundVertical = (v: number, out: string, box: readonly number[], r: number) => [
        `c[] = Curve In BoundingBox {${box.map(f).join(', ')}};`,
        ...upright('c', 'vc', H! / 2),
        `${out}[] = Fillet{${v}}{vc[]}{${f(r)}};`,
      ];
      return [
        `Box(1) = {0, 0, 0, ${f(W!)}, ${f(D!)}, ${f(H!)}};`,
        ...roundVertical(1, 'o', [-1, -1, -e, W! + 1, D! + 1, H! + e], cr!),
        `Box(2) = {${f(t!)}, ${f(t!)}, -1, ${f(W! - 2 * t!)}, ${f(D! - 2 * t!)}, ${f(H! - t! + 1)}};`,
        ...roundVertical(2, 'in', [t! - e, t! - e, -1 - e, W! - t! + e, D! - t! + e, H! - t! + e], cr! - t!),
        `BooleanDifference(30) = { Volume{o[0]}; Delete; }{ Volume{in[0]}; Delete; };`,
        `Cylinder(20) = {${f(0.3 * W! + sh!)}, ${f(0.4 * D!)}, ${f(H! - t! - 1)}, 0, 0, ${f(t! + 2)}, ${f(hr!)}};`,
        `Cylinder(21) = {${f(0.7 * W!)}, ${f(0.65 * D!)}, ${f(H! - t! - 1)}, 0, 0, ${f(t! + 2)}, ${f(hr!)}};`,
        `Cylinder(22) = {${f(0.6 * W!)}, -1, ${f(0.5 * H!)}, 0, ${f(t! + 2)}, 0, ${f(hr!)}};`,
        `BooleanDifference(40) = { Volume{30}; Delete; }{ Volume{20, 21, 22}; Delete; };`,
      ].join('\n');
    },
  },
];

/** A proper turn and move of the model (degrees, mm), drawn from `rand`. */
function placement(rand: () => number): string {
  const axis = [rand() - 0.5, rand() - 0.5, rand() - 0.5].map((v) => v || 0.1);
  return `Rotate {{${axis.map((v) => v.toFixed(4)).join(', ')}}, {0, 0, 0}, ${(rand() * 2 * Math.PI).toFixed(5)}} { Volume{:}; }\nTranslate {${[0, 1, 2].map(() => ((rand() * 2 - 1) * 300).toFixed(2)).join(', ')}} { Volume{:}; }`;
}

type Output = { kind: 'step'; unit: 'mm' | 'inch' | 'm' } | { kind: 'stl'; curvature: number; maxSize: number };

/** Runs gmsh on the design's script and returns the file's path (cached by script). */
function run(body: string, out: Output): string {
  mkdirSync(CACHE, { recursive: true });
  const per = out.kind === 'step' ? { mm: 1, inch: 25.4, m: 1000 }[out.unit] : 1;
  const script = [
    'SetFactory("OpenCASCADE");',
    'General.Terminal = 0;',
    body,
    per !== 1 ? `Dilate {{0, 0, 0}, ${1 / per}} { Volume{:}; }` : '',
    out.kind === 'stl'
      ? `Mesh.MeshSizeFromCurvature = ${out.curvature};\nMesh.MeshSizeMax = ${f(out.maxSize)};\nMesh.Binary = 1;\nMesh 2;`
      : '',
  ].join('\n');
  const key = createHash('sha1').update(script).digest('hex').slice(0, 16);
  const file = join(CACHE, `${key}.${out.kind}`);
  if (!existsSync(file)) {
    const geo = join(CACHE, `${key}.geo`);
    writeFileSync(geo, `${script}\nSave "${file}";\n`);
    execFileSync('gmsh', [geo, '-'], { stdio: 'ignore', timeout: 300_000 });
    if (out.kind === 'step' && out.unit !== 'mm') writeFileSync(file, declareUnit(readFileSync(file, 'utf8'), out.unit));
  }
  return file;
}

const read = (file: string) => new Uint8Array(readFileSync(file));

/**
 * OpenCascade writes STEP in millimetres; the model was shrunk by the unit's size, so declaring
 * the file's length unit as inch (a conversion-based unit of 25.4 mm) or metre makes it the same
 * part written in that unit, as a CAD system set to it would.
 */
function declareUnit(step: string, unit: 'inch' | 'm'): string {
  const mm = /#(\d+) = \( LENGTH_UNIT\(\) NAMED_UNIT\(\*\) SI_UNIT\(\.MILLI\.,\.METRE\.\) \);/;
  const hit = mm.exec(step);
  if (!hit) throw new Error('no millimetre unit in the STEP file');
  if (unit === 'm') return step.replace(mm, `#${hit[1]} = ( LENGTH_UNIT() NAMED_UNIT(*) SI_UNIT($,.METRE.) );`);
  const next = Math.max(...[...step.matchAll(/#(\d+) =/g)].map((m) => Number(m[1]))) + 1;
  const [measure, dims, base] = [next, next + 1, next + 2];
  return step
    .replace(mm, `#${hit[1]} = ( CONVERSION_BASED_UNIT('INCH',#${measure}) LENGTH_UNIT() NAMED_UNIT(#${dims}) );`)
    .replace(
      /ENDSEC;\s*END-ISO-10303-21;/,
      `#${measure} = LENGTH_MEASURE_WITH_UNIT(LENGTH_MEASURE(25.4),#${base});\n#${dims} = DIMENSIONAL_EXPONENTS(1.,0.,0.,0.,0.,0.,0.);\n#${base} = ( LENGTH_UNIT() NAMED_UNIT(*) SI_UNIT(.MILLI.,.METRE.) );\nENDSEC;\nEND-ISO-10303-21;`,
    );
}

export function ensureGmsh(): boolean {
  const has = () => existsSync('/usr/bin/gmsh');
  if (has()) return true;
  try {
    console.log('installing gmsh (apt)…');
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'gmsh'], { stdio: 'ignore' });
  } catch {
    console.log('  could not install gmsh: the B-rep designs are left out');
  }
  return has();
}

/** Largest extent (mm) and surface area (mm²) of a STEP file as the importer reads it. */
async function measure(name: string, bytes: Uint8Array): Promise<{ size: number; area: number }> {
  const r = await importFile(name, bytes);
  if (isImportError(r)) throw new Error(`${name}: ${r.reason}`);
  const bb = boundingBox(r);
  return { size: Math.max(...[0, 1, 2].map((k) => bb.max[k]! - bb.min[k]!)), area: surfaceArea(r) };
}

interface Original {
  record: SearchRecord;
  path: string;
  size: number;
  area: number;
}

/** The records of one B-rep design: an original STEP, its duplicates, edits, variants, mirror image and scaled copy. */
async function makeDesign(
  a: BrepArchetype,
  design: string,
  p: Params,
  rand: () => number,
  index: number,
): Promise<{ records: SearchRecord[]; original: Original }> {
  const out: SearchRecord[] = [];
  const common = { design, chiral: a.chiral };
  const step = (id: string, body: string, unit: 'mm' | 'inch' | 'm' = 'mm') => ({
    name: `${id}.step`,
    bytes: read(run(body, { kind: 'step', unit })),
  });
  const path = run(a.geo(p), { kind: 'step', unit: 'mm' });
  const file = { name: `${design}.step`, bytes: read(path) };
  const { size, area } = await measure(file.name, file.bytes);
  const record: SearchRecord = {
    ...common,
    id: design,
    partId: design,
    kind: 'original',
    how: 'original, STEP (OpenCascade B-rep, mm)',
    file,
  };
  out.push(record);
  const dup = (n: number, how: string, file: SearchRecord['file']) =>
    out.push({ ...common, id: `${design}-dup${n}`, partId: design, kind: 'duplicate', how, file });
  const placed = () => `${a.geo(p)}\n${placement(rand)}`;
  dup(1, 'gmsh surface mesh (24 elements per circle), turned and moved, STL', {
    name: `${design}-dup1.stl`,
    bytes: read(run(placed(), { kind: 'stl', curvature: 24, maxSize: size / 10 })),
  });
  dup(2, 'coarse gmsh surface mesh (8 elements per circle), turned and moved, STL', {
    name: `${design}-dup2.stl`,
    bytes: read(run(placed(), { kind: 'stl', curvature: 8, maxSize: size / 3 })),
  });
  dup(3, 'STEP in inch, turned and moved', step(`${design}-dup3`, placed(), 'inch'));
  dup(4, 'STEP in metres, turned and moved', step(`${design}-dup4`, placed(), 'm'));

  // Feature edits of 1–3 % of the size: a hole moved; a wall, diameter or radius changed.
  const d = between(rand, 0.01, 0.03) * size;
  const [k, per] = a.edits[Math.floor(rand() * a.edits.length)]!;
  const edits: [string, Params][] = [
    [
      `hole moved ${r2(d)} mm (${((100 * d) / size).toFixed(1)} % of ${size.toFixed(0)} mm)`,
      { ...p, [a.shift]: d * (rand() < 0.5 ? -1 : 1) },
    ],
    [
      `${k} ${r2(p[k]!)} → ${r2(p[k]! + d / per)} mm (surface moved ${r2(d)} mm, ${((100 * d) / size).toFixed(1)} % of the size)`,
      { ...p, [k]: p[k]! + d / per },
    ],
  ];
  edits.forEach(([how, q], i) => {
    const id = `${design}-edit${i + 1}`;
    out.push({ ...common, id, partId: id, kind: 'edit', how: `${how}, STEP`, file: step(id, `${a.geo(q)}\n${placement(rand)}`) });
  });
  // Family variants: one or two dimensions by 10–30 %.
  for (let v = 1; v <= 2; v++) {
    const names = [...a.variants].sort(() => rand() - 0.5).slice(0, v);
    const q = { ...p };
    for (const n of names) q[n] = p[n]! * (1 + between(rand, 0.1, 0.3) * (rand() < 0.5 ? -1 : 1));
    const id = `${design}-var${v}`;
    out.push({
      ...common,
      id,
      partId: id,
      kind: 'variant',
      how: `${names.map((n) => `${n} ${r2(p[n]!)} → ${r2(q[n]!)}`).join(', ')}, STEP`,
      file: step(id, `${a.geo(q)}\n${placement(rand)}`),
    });
  }
  if (a.chiral) {
    const id = `${design}-mirror`;
    out.push({
      ...common,
      id,
      partId: id,
      kind: 'mirror',
      how: 'mirror image, turned, STEP',
      file: step(id, `${a.geo(p)}\nSymmetry {1, 0, 0, 0} { Volume{:}; }\n${placement(rand)}`),
    });
  }
  {
    const s = index % 2 ? 0.5 : 2;
    const id = `${design}-x${s}`;
    out.push({
      ...common,
      id,
      partId: id,
      kind: 'scaled',
      how: `scaled ×${s}, STEP`,
      scale: s,
      file: step(id, `${a.geo(p)}\nDilate {{0, 0, 0}, ${s}} { Volume{:}; }\n${placement(rand)}`),
    });
  }
  return { records: out, original: { record, path, size, area } };
}

/** A STEP file of several solids: three originals side by side, turned, the first used twice. */
function stepAssembly(id: string, originals: readonly Original[], rand: () => number): SearchRecord {
  const pick = [...originals].sort(() => rand() - 0.5).slice(0, 3);
  const uses = [pick[0]!, pick[0]!, pick[1]!, pick[2]!];
  let x = 0;
  const body = uses
    .map((u, k) => {
      const axis = [rand() - 0.5, rand() - 0.5, rand() - 0.5].map((v) => (v || 0.1).toFixed(4)).join(', ');
      // Each original lies within about its size of the origin: turned about it, four sizes apart never touch.
      x += 2 * u.size;
      const lines = [
        `p${k}() = ShapeFromFile("${u.path}");`,
        `Rotate {{${axis}}, {0, 0, 0}, ${(rand() * 2 * Math.PI).toFixed(5)}} { Volume{p${k}()}; }`,
        `Translate {${f(x)}, 0, 0} { Volume{p${k}()}; }`,
      ];
      x += 2 * u.size + 5;
      return lines.join('\n');
    })
    .join('\n');
  const total = uses.reduce((sum, u) => sum + u.area, 0);
  const contains = pick.map((r) => {
    const copies = uses.filter((u) => u === r).length;
    return { partId: r.record.partId, copies, areaShare: (r.area * copies) / total };
  });
  return {
    id,
    design: id,
    partId: id,
    kind: 'assembly',
    how: `STEP of solids ${pick.map((p) => p.record.id).join(', ')} (first used twice)`,
    chiral: false,
    file: { name: `${id}.step`, bytes: read(run(body, { kind: 'step', unit: 'mm' })) },
    contains,
  };
}

/** The B-rep designs of one split (`seed`): `per` designs per archetype and STEP assemblies of them; none when gmsh is missing and cannot be installed. */
export async function buildBrepDesigns(
  split: string,
  seed: number,
  per: number,
  assemblies: number,
  only?: readonly string[],
): Promise<SearchRecord[]> {
  const chosen = ARCHETYPES.filter((a) => !only || only.includes(a.name));
  if (!chosen.length || !ensureGmsh()) return [];
  const out: SearchRecord[] = [];
  const originals: Original[] = [];
  let index = 0;
  for (const [ai, a] of ARCHETYPES.entries()) {
    if (!chosen.includes(a)) continue;
    for (let k = 0; k < per; k++) {
      const rand = prng(seed * 200_003 + ai * 131 + k);
      try {
        const made = await makeDesign(a, `${split}-${a.name}-${k}`, a.draw(rand), rand, index++);
        out.push(...made.records);
        originals.push(made.original);
      } catch (error) {
        console.log(`  (skipped) ${split}-${a.name}-${k}: ${String(error).slice(0, 120)}`);
      }
    }
  }
  const rand = prng(seed * 11 + 5);
  if (originals.length >= 3) for (let i = 0; i < assemblies; i++) out.push(stepAssembly(`asm-step-${split}${i}`, originals, rand));
  return out;
}
