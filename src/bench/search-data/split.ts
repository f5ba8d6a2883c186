// One split of the search benchmark: designs drawn from a seed, each with family variants, exact
// duplicates made the ways files really differ (another tessellation, a coarse mesh, another
// format, metres instead of millimetres, bodies split with internal faces, an enclosed inner body),
// small feature edits that are NOT duplicates, mirrored and scaled copies, and mesh assemblies
// with a repeated part; and designs from another kernel and other tessellators (brep-designs.ts:
// STEP in mm, inch and metres against gmsh meshes, STEP assemblies). The dev split is seed 1; the
// frozen test split is seed 7919 — no setting may ever be chosen on it.
import type { Manifold, ManifoldToplevel } from 'manifold-3d';
import { loadManifold, manifoldToMesh, toGlb, toObj, toPly, toStlBinary } from '../../geometry/testing/fixtures';
import { randomRigid, randomRotation } from '../../geometry/testing/benchmark-dataset';
import { prng } from '../../geometry/search/descriptors/sampling';
import { applyToMesh, mergeMeshes, type Mesh } from '../../geometry/mesh/mesh';
import { multiply, scaling, translation } from '../../geometry/mesh/transform';
import { boundingBox, surfaceArea } from '../../geometry/mesh/mesh-facts';
import { buildBrepDesigns } from './brep-designs';
import { ARCHETYPES, type Archetype, type Params } from './designs';

export type RecordKind = 'original' | 'duplicate' | 'variant' | 'detail' | 'edit' | 'dimension' | 'mirror' | 'scaled' | 'assembly';

/**
 * Which dimension a dimension edit changes, by the archetype's parameter (designs.ts `edits`):
 * the kinds the duplicate rule's dimension test names.
 */
/** What a designer calls an archetype's parameter: a pipe elbow's straight leg is a length, not a thickness. */
export const dimensionKind = (param: string) => (/^[dD]$/.test(param) ? 'diameter' : /^(L|leg)$/.test(param) ? 'length' : 'thickness');

export interface SearchRecord {
  id: string;
  /** The design (family) the record belongs to. */
  design: string;
  /** The exact geometry: an original and its duplicates share it. */
  partId: string;
  kind: RecordKind;
  /** How the record was made, for the report. */
  how: string;
  chiral: boolean;
  file: { name: string; bytes: Uint8Array };
  scale?: number;
  /** Dimension edits: which dimension, its value before and after (mm), and the design's diagonal (mm). */
  dimension?: { kind: ReturnType<typeof dimensionKind>; from: number; to: number; diagonal: number };
  /** Edits of one parameter (feature and dimension edits): which, and its new value (mm). */
  changed?: { param: string; value: number };
  /** The design's parameters it was built from (mesh designs), the design's diagonal (mm), and its `scaling` parameters. */
  params?: { values: Params; diagonal: number; scaling: readonly string[] };
  /** Which generator or package made it (figures are reported per source). */
  source?: string;
  /** Assemblies: the originals placed in them and their share of its surface. */
  contains?: { partId: string; copies: number; areaShare: number }[];
}

export const SPLIT_SEEDS = { dev: 1, frozen: 7919 } as const;
export type SplitName = keyof typeof SPLIT_SEEDS;

const between = (rand: () => number, lo: number, hi: number) => lo + (hi - lo) * rand();

function build(m: ManifoldToplevel, a: Archetype, p: Params, segments: number): Manifold {
  return a.build(m, p, segments);
}

function meshOf(solid: Manifold): Mesh {
  const mesh = manifoldToMesh(solid);
  solid.delete();
  return mesh;
}

const stl = (id: string, mesh: Mesh) => ({ name: `${id}.stl`, bytes: toStlBinary(mesh) });

/** A box, about an eighth of the part's smallest extent, wholly inside the solid (an enclosed inner body). */
function innerBody(m: ManifoldToplevel, solid: Manifold): Mesh | undefined {
  const box = solid.boundingBox();
  const ext = [0, 1, 2].map((k) => box.max[k]! - box.min[k]!);
  for (const frac of [0.12, 0.05, 0.02]) {
    const e = Math.min(...ext) * frac;
    for (let i = 0; i < 125; i++) {
      // Grid points from the centre outwards.
      const f = [i % 5, Math.floor(i / 5) % 5, Math.floor(i / 25)].map((g) => 0.5 + [0, 1, -1, 2, -2][g]! * 0.18);
      const c = [0, 1, 2].map((k) => box.min[k]! + ext[k]! * f[k]!) as [number, number, number];
      const probe = m.Manifold.cube([e, e, e], true).translate(c);
      const inside = solid.intersect(probe);
      const full = inside.volume() >= probe.volume() * 0.999;
      inside.delete();
      if (full) {
        const s = probe.scale(0.8);
        probe.delete();
        // Rescaled about the origin: move it back to its centre.
        const placed = s.translate([c[0] * 0.2, c[1] * 0.2, c[2] * 0.2]);
        s.delete();
        return meshOf(placed);
      }
      probe.delete();
    }
  }
  return undefined;
}

async function makeDesign(
  m: ManifoldToplevel,
  a: Archetype,
  design: string,
  p: Params,
  rand: () => number,
  index: number,
): Promise<{ records: SearchRecord[]; base: Mesh }> {
  const out: SearchRecord[] = [];
  const baseSolid = build(m, a, p, 32);
  const base = manifoldToMesh(baseSolid);
  const bb = boundingBox(base);
  const size = Math.max(...[0, 1, 2].map((k) => bb.max[k]! - bb.min[k]!));
  const common = { design, chiral: a.chiral };
  const diagonal = Math.hypot(...[0, 1, 2].map((c) => bb.max[c]! - bb.min[c]!));
  const params = (values: Params) => ({ params: { values, diagonal, scaling: a.scaling ?? [] } });
  out.push({
    ...common,
    ...params(p),
    id: design,
    partId: design,
    kind: 'original',
    how: 'original, 32 segments, STL',
    file: stl(design, base),
  });

  // Exact duplicates.
  const dup = (n: number, how: string, file: SearchRecord['file']) =>
    out.push({ ...common, ...params(p), id: `${design}-dup${n}`, partId: design, kind: 'duplicate', how, file });
  const fine = applyToMesh(meshOf(build(m, a, p, 56)), randomRigid(rand));
  dup(1, 'another tessellation (56 segments), rotated and moved, STL', stl(`${design}-dup1`, fine));
  let coarse: Mesh | undefined;
  // Down to 8 segments (45° facets); a hexagon is no longer a faithful circle.
  for (const seg of [12, 10, 8]) {
    coarse = meshOf(build(m, a, p, seg));
    if (coarse.indices.length / 3 <= 600) break;
  }
  dup(2, `coarse mesh (${coarse!.indices.length / 3} triangles), rotated, OBJ`, {
    name: `${design}-dup2.obj`,
    bytes: toObj(applyToMesh(coarse!, randomRigid(rand))),
  });
  dup(3, 'glTF binary in metres, rotated', { name: `${design}-dup3.glb`, bytes: await toGlb(applyToMesh(base, randomRigid(rand))) });
  {
    const n = [rand() - 0.5, rand() - 0.5, rand() - 0.5] as [number, number, number];
    const c = [0, 1, 2].map((k) => (bb.min[k]! + bb.max[k]!) / 2);
    const [x, y] = baseSolid.splitByPlane(n, (n[0] * c[0]! + n[1] * c[1]! + n[2] * c[2]!) / Math.hypot(...n));
    if (!x.isEmpty() && !y.isEmpty())
      dup(4, 'two bodies cut apart (internal faces), rotated, PLY', {
        name: `${design}-dup4.ply`,
        bytes: toPly(applyToMesh(mergeMeshes([meshOf(x), meshOf(y)]), randomRigid(rand))),
      });
    else {
      x.delete();
      y.delete();
    }
  }
  {
    const inner = innerBody(m, baseSolid);
    if (inner)
      dup(
        5,
        'an enclosed inner body (internal faces), rotated, STL',
        stl(`${design}-dup5`, applyToMesh(mergeMeshes([base, inner]), randomRigid(rand))),
      );
  }

  // Small feature edits (a different part): a hole moved by 1–3 % of the part's size, a wall or diameter changed by as much.
  const edits: [string, Params, SearchRecord['changed']?][] = [];
  if (a.shift) {
    const d = between(rand, 0.01, 0.03) * size * (rand() < 0.5 ? -1 : 1);
    edits.push([
      `hole moved ${d.toFixed(2)} mm (${((100 * Math.abs(d)) / size).toFixed(1)} % of ${size.toFixed(0)} mm)`,
      { ...p, [a.shift]: d },
    ]);
  }
  {
    // A diameter moves its surface by half its change.
    const k = a.edits[Math.floor(rand() * a.edits.length)]!;
    const moved = between(rand, 0.01, 0.03) * size;
    const d = /^d$|^D$/.test(k) ? 2 * moved : moved;
    const v = p[k]!;
    const nv = v - d > v * 0.5 ? v - d : v + d;
    edits.push([
      `${k} ${v.toFixed(1)} → ${nv.toFixed(1)} mm (surface moved ${moved.toFixed(2)} mm, ${((100 * moved) / size).toFixed(1)} % of the size)`,
      { ...p, [k]: nv },
      { param: k, value: nv },
    ]);
  }
  edits.forEach(([how, q, changed], i) => {
    const id = `${design}-edit${i + 1}`;
    out.push({
      ...common,
      ...params(q),
      id,
      partId: id,
      kind: 'edit',
      how,
      ...(changed ? { changed } : {}),
      file: stl(id, applyToMesh(meshOf(build(m, a, q, 32)), randomRigid(rand))),
    });
  });

  // Family variants: 1–3 dimensions by 5–30 %, at least one of them moving some surface by 3 % of
  // the part's size or more (a hole 10 % wider in a large plate is a feature edit, not a variant),
  // or a feature added.
  for (let v = 1; v <= 2; v++) {
    let q: Params = p;
    let changed: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      q = { ...p };
      changed = [];
      let largest = 0;
      for (const k of [...a.dims].sort(() => rand() - 0.5).slice(0, 1 + Math.floor(rand() * 3))) {
        const f = 1 + between(rand, 0.05, 0.3) * (rand() < 0.5 ? -1 : 1);
        q[k] = p[k]! * f;
        changed.push(`${k} ×${f.toFixed(2)}`);
        // Ratios (values below 1) scale a larger dimension: count them against the size itself.
        largest = Math.max(largest, Math.abs(f - 1) * (p[k]! < 1 ? size * p[k]! : p[k]!));
      }
      if (largest >= 0.03 * size) break;
    }
    const id = `${design}-var${v}`;
    out.push({
      ...common,
      ...params(q),
      id,
      partId: id,
      kind: 'variant',
      how: changed.join(', '),
      file: stl(id, applyToMesh(meshOf(build(m, a, q, 32)), randomRigid(rand))),
    });
  }
  {
    const f = a.features[0]!;
    const id = `${design}-var3`;
    out.push({
      ...common,
      ...params({ ...p, [f]: 1 }),
      id,
      partId: id,
      kind: 'variant',
      how: `feature "${f}" added`,
      file: stl(id, applyToMesh(meshOf(build(m, a, { ...p, [f]: 1 }, 32)), randomRigid(rand))),
    });
  }
  {
    const id = `${design}-detail`;
    out.push({
      ...common,
      ...params({ ...p, [a.detail]: 1 }),
      id,
      partId: id,
      kind: 'detail',
      how: `detail "${a.detail}" (same box and holes)`,
      file: stl(id, applyToMesh(meshOf(build(m, a, { ...p, [a.detail]: 1 }, 32)), randomRigid(rand))),
    });
  }
  if (a.chiral) {
    const id = `${design}-mirror`;
    out.push({
      ...common,
      id,
      partId: id,
      kind: 'mirror',
      how: 'mirror image, rotated',
      file: stl(id, applyToMesh(base, multiply(randomRigid(rand), scaling(-1, 1, 1)))),
    });
  }
  {
    const f = index % 2 ? 0.5 : 2;
    const id = `${design}-x${f}`;
    out.push({
      ...common,
      id,
      partId: id,
      kind: 'scaled',
      how: `scaled ×${f}`,
      scale: f,
      file: stl(id, applyToMesh(base, multiply(randomRigid(rand), scaling(f)))),
    });
  }
  // Dimension edits (a different part): each of the design's local dimensions (a wall, rib,
  // flange or washer thickness, a hole or shaft diameter) by 4–15 % of itself — on a thin wall far
  // less than the feature edits' share of the size. Their own generator, so the records above
  // stay what they were.
  {
    const drand = prng([...design].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7));
    for (const k of a.edits) {
      const f = 1 + between(drand, 0.04, 0.15) * (drand() < 0.5 ? -1 : 1);
      const v = p[k]!;
      const id = `${design}-dim-${k}`;
      out.push({
        ...common,
        ...params({ ...p, [k]: v * f }),
        id,
        partId: id,
        kind: 'dimension',
        dimension: { kind: dimensionKind(k), from: v, to: v * f, diagonal },
        changed: { param: k, value: v * f },
        how: `${dimensionKind(k)} ${k} ${v.toFixed(2)} → ${(v * f).toFixed(2)} mm (${((f - 1) * 100).toFixed(1)} %)`,
        file: stl(id, applyToMesh(meshOf(build(m, a, { ...p, [k]: v * f }, 32)), randomRigid(drand))),
      });
    }
  }
  baseSolid.delete();
  return { records: out, base };
}

/** Mesh assemblies of a few originals side by side, one of them used twice. */
function makeAssemblies(
  records: SearchRecord[],
  meshes: Map<string, Mesh>,
  rand: () => number,
  count: number,
  tag: string,
): SearchRecord[] {
  const originals = records.filter((r) => r.kind === 'original');
  const out: SearchRecord[] = [];
  for (let i = 0; i < count; i++) {
    const pick = [...originals].sort(() => rand() - 0.5).slice(0, 3);
    const uses = [pick[0]!, pick[0]!, pick[1]!, pick[2]!];
    const placed: Mesh[] = [];
    let x = 0;
    for (const r of uses) {
      const turned = applyToMesh(meshes.get(r.id)!, randomRotation(rand));
      const bb = boundingBox(turned);
      placed.push(applyToMesh(turned, translation(x - bb.min[0]!, -bb.min[1]!, -bb.min[2]!)));
      x += bb.max[0]! - bb.min[0]! + 5;
    }
    const areas = placed.map((p) => surfaceArea(p));
    const total = areas.reduce((s, v) => s + v, 0);
    const contains = pick.map((r) => {
      const copies = uses.filter((u) => u === r).length;
      return { partId: r.partId, copies, areaShare: (areas[uses.indexOf(r)]! * copies) / total };
    });
    const id = `asm-${tag}${i}`;
    const mesh = applyToMesh(mergeMeshes(placed), randomRigid(rand));
    out.push({
      id,
      design: id,
      partId: id,
      kind: 'assembly',
      how: `mesh assembly of ${pick.map((p) => p.id).join(', ')} (first used twice)`,
      chiral: false,
      file: stl(id, mesh),
      contains,
    });
  }
  return out;
}

export interface SplitOptions {
  /** Designs per archetype (default 3: 14 archetypes → 42 families). */
  perArchetype?: number;
  /** Only these archetypes (by name); default all. */
  archetypes?: readonly string[];
  assemblies?: number;
}

/** Builds one split. Deterministic for its seed. */
export async function buildSplit(split: SplitName, o: SplitOptions = {}): Promise<SearchRecord[]> {
  const m = await loadManifold();
  const seed = SPLIT_SEEDS[split];
  const per = o.perArchetype ?? 3;
  const records: SearchRecord[] = [];
  const originals = new Map<string, Mesh>();
  let index = 0;
  for (const [ai, a] of ARCHETYPES.entries()) {
    if (o.archetypes && !o.archetypes.includes(a.name)) continue;
    for (let k = 0; k < per; k++) {
      const rand = prng(seed * 100_003 + ai * 101 + k);
      const design = `${split}-${a.name}-${k}`;
      const made = await makeDesign(m, a, design, a.draw(rand), rand, index++);
      records.push(...made.records);
      originals.set(design, made.base);
    }
  }
  if (originals.size >= 3) records.push(...makeAssemblies(records, originals, prng(seed * 7 + 3), o.assemblies ?? 8, split));
  for (const r of records) r.source = 'manifold meshes';
  for (const r of await buildBrepDesigns(split, seed, per, Math.ceil((o.assemblies ?? 8) / 4), o.archetypes))
    records.push({ ...r, source: 'gmsh / OpenCascade' });
  return records;
}
