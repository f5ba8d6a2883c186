// Pure parse of a STEP (ISO 10303-21) assembly's product structure with the placements of its
// occurrences. OpenCascade places the parts of a single-file assembly itself, but returns nothing
// for an assembly whose parts live in other files (DOCUMENT_FILE references): those parts are
// imported one by one and have to be put where the assembly file says.
//
// Path through the entity graph for one occurrence (parent → child):
//   NEXT_ASSEMBLY_USAGE_OCCURRENCE(id, name, desc, parent PD, child PD, ref designator)
//   ← PRODUCT_DEFINITION_SHAPE(name, desc, NAUO)
//   ← CONTEXT_DEPENDENT_SHAPE_REPRESENTATION(relationship, PDS)
//   → (REPRESENTATION_RELATIONSHIP(name, desc, rep_1, rep_2) REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION(op) ...)
//   → ITEM_DEFINED_TRANSFORMATION(name, desc, item_1, item_2) with AXIS2_PLACEMENT_3D items.
// rep_1 is normally the child's shape representation and rep_2 the parent's; the placement of
// the child in the parent is then M(item_2) · M(item_1)⁻¹. The child product definitions carry
// their external file via APPLIED_DOCUMENT_REFERENCE / PRODUCT_DEFINITION_WITH_ASSOCIATED_DOCUMENTS.

import { identity, invertRigidMat4, multiply } from '../mesh/transform';
import {
  listOf,
  parseStepRecord,
  refOf,
  stepRecords,
  stepText,
  stringOf,
  type StepPart,
  type StepRecordSpan,
  type StepValue,
} from './step-tokenizer';

/** One placed occurrence of a product in its parent. */
export interface StepOccurrence {
  /** Product name (PRODUCT.name, else its id). */
  name: string;
  /** Occurrence id/name of the NEXT_ASSEMBLY_USAGE_OCCURRENCE (empty for a root). */
  instance: string;
  /** File name (no folders) of the external file holding this product; null when it is in this file. */
  referencedFile: string | null;
  /** The reference as written (may include folders, always with `/`). */
  referencedPath: string | null;
  /** Column-major placement relative to the parent, lengths in millimetres. */
  transform: number[];
  children: StepOccurrence[];
}

export interface StepAssemblyStructure {
  /** Top products (usually one: the assembly itself), identity transforms. */
  roots: StepOccurrence[];
  /** Number of NEXT_ASSEMBLY_USAGE_OCCURRENCE links read. */
  links: number;
  /** Occurrences whose placement could not be read (identity used instead). */
  unplaced: number;
}

const MAX_DEPTH = 32;

/** The occurrences directly below the file's product: the root's children when there is one root. */
export function topOccurrences(s: StepAssemblyStructure): StepOccurrence[] {
  return s.roots.length === 1 ? s.roots[0]!.children : s.roots;
}

/** Parses the product structure with placements of a STEP file (bytes or text). */
export function parseStepPlacements(content: string | Uint8Array): StepAssemblyStructure {
  const g = new StepGraph(stepText(content));

  const nauos: { id: number; instance: string; parent: number; child: number }[] = [];
  const pdsOf = new Map<number, number[]>(); // definition (PD or NAUO) → PDS ids
  const repsOfPds = new Map<number, number[]>(); // PDS → shape representations
  const relOfPds = new Map<number, number[]>(); // PDS of a NAUO → representation relationships
  const docsOfPd = new Map<number, number[]>();
  const fileNameOfDoc = new Map<number, string>();
  const pdsOfFormation = new Map<number, number[]>();
  const formationsOfProduct = new Map<number, number[]>();
  const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };

  for (const [id, type] of g.types) {
    if (type === 'NEXT_ASSEMBLY_USAGE_OCCURRENCE') {
      const a = g.args(id, type);
      const parent = refOf(a?.[3]);
      const child = refOf(a?.[4]);
      if (parent !== undefined && child !== undefined) nauos.push({ id, instance: stringOf(a?.[1]) || stringOf(a?.[0]), parent, child });
    } else if (type === 'PRODUCT_DEFINITION_SHAPE') {
      const d = refOf(g.args(id, type)?.[2]);
      if (d !== undefined) push(pdsOf, d, id);
    } else if (type === 'SHAPE_DEFINITION_REPRESENTATION') {
      const a = g.args(id, type);
      const pds = refOf(a?.[0]);
      const rep = refOf(a?.[1]);
      if (pds !== undefined && rep !== undefined) push(repsOfPds, pds, rep);
    } else if (type === 'CONTEXT_DEPENDENT_SHAPE_REPRESENTATION') {
      const a = g.args(id, type);
      const rel = refOf(a?.[0]);
      const pds = refOf(a?.[1]);
      if (pds !== undefined && rel !== undefined) push(relOfPds, pds, rel);
    } else if (type === 'APPLIED_DOCUMENT_REFERENCE') {
      const a = g.args(id, type);
      const doc = refOf(a?.[0]);
      if (doc === undefined) continue;
      for (const item of listOf(a?.[2])) {
        const r = refOf(item);
        if (r !== undefined) push(docsOfPd, r, doc);
      }
    } else if (type === 'PRODUCT_DEFINITION_WITH_ASSOCIATED_DOCUMENTS') {
      for (const item of listOf(g.args(id, type)?.[4])) {
        const r = refOf(item);
        if (r !== undefined) push(docsOfPd, id, r);
      }
    } else if (type === 'DOCUMENT_FILE' || type === 'DOCUMENT') {
      const a = g.args(id, type);
      const idStr = stringOf(a?.[0]).trim();
      const nameStr = stringOf(a?.[1]).trim();
      const f = hasExtension(idStr) ? idStr : hasExtension(nameStr) ? nameStr : '';
      if (f && !fileNameOfDoc.has(id)) fileNameOfDoc.set(id, f);
    } else if (type === 'APPLIED_EXTERNAL_IDENTIFICATION_ASSIGNMENT') {
      // Some writers leave DOCUMENT_FILE's id blank and name the file here.
      const a = g.args(id, type);
      const f = stringOf(a?.[0]).trim();
      if (!hasExtension(f)) continue;
      for (const item of listOf(a?.[3])) {
        const r = refOf(item);
        if (r !== undefined && !fileNameOfDoc.has(r)) fileNameOfDoc.set(r, f);
      }
    } else if (isProductDefinitionType(type)) {
      const f = refOf(g.args(id, type)?.[2]);
      if (f !== undefined) push(pdsOfFormation, f, id);
    } else if (type.startsWith('PRODUCT_DEFINITION_FORMATION')) {
      const p = refOf(g.args(id, type)?.[2]);
      if (p !== undefined) push(formationsOfProduct, p, id);
    }
  }
  // Documents attached to a formation or product apply to its product definitions.
  for (const [target, docs] of [...docsOfPd]) {
    const type = g.types.get(target) ?? '';
    const pds = type.startsWith('PRODUCT_DEFINITION_FORMATION')
      ? (pdsOfFormation.get(target) ?? [])
      : type === 'PRODUCT'
        ? (formationsOfProduct.get(target) ?? []).flatMap((f) => pdsOfFormation.get(f) ?? [])
        : [];
    for (const pd of pds) for (const d of docs) push(docsOfPd, pd, d);
  }

  const fileOf = (pd: number): string | null => {
    for (const d of docsOfPd.get(pd) ?? []) {
      const f = fileNameOfDoc.get(d);
      if (f) return f;
    }
    return null;
  };
  const productName = (pd: number): string => {
    const formation = refOf(g.argsAny(pd)?.[2]);
    const product = formation === undefined ? undefined : refOf(g.argsAny(formation)?.[2]);
    const a = product === undefined ? undefined : g.args(product, 'PRODUCT');
    return stringOf(a?.[1]).trim() || stringOf(a?.[0]).trim() || `#${pd}`;
  };
  const repsOfPd = (pd: number) => new Set((pdsOf.get(pd) ?? []).flatMap((s) => repsOfPds.get(s) ?? []));

  let unplaced = 0;
  const placement = (n: (typeof nauos)[number]): number[] => {
    const childReps = repsOfPd(n.child);
    const parentReps = repsOfPd(n.parent);
    for (const pds of pdsOf.get(n.id) ?? []) {
      for (const rel of relOfPds.get(pds) ?? []) {
        const m = relationshipTransform(g, rel, childReps, parentReps);
        if (m) return m;
      }
    }
    unplaced++;
    return identity();
  };

  const childrenOf = new Map<number, (typeof nauos)[number][]>();
  const isChild = new Set<number>();
  for (const n of nauos) {
    push(childrenOf, n.parent, n);
    isChild.add(n.child);
  }
  const build = (pd: number, instance: string, transform: number[], ancestry: Set<number>): StepOccurrence => {
    const file = fileOf(pd);
    const occ: StepOccurrence = {
      name: productName(pd),
      instance,
      referencedFile: file === null ? null : baseName(file),
      referencedPath: file === null ? null : normalizePath(file),
      transform,
      children: [],
    };
    if (ancestry.size < MAX_DEPTH) {
      for (const n of childrenOf.get(pd) ?? []) {
        if (ancestry.has(n.child)) continue; // a cycle: ignore the link
        occ.children.push(build(n.child, n.instance, placement(n), new Set([...ancestry, n.child])));
      }
    }
    return occ;
  };
  const roots = [...childrenOf.keys()].filter((pd) => !isChild.has(pd)).map((pd) => build(pd, '', identity(), new Set([pd])));
  return { roots, links: nauos.length, unplaced };
}

// ---------------------------------------------------------------------------------------------
// Placements

/** A rigid placement from an AXIS2_PLACEMENT_3D (lengths scaled by `mm` per unit). */
export function axis2Placement(
  location: readonly number[],
  axis: readonly number[] | undefined,
  refDirection: readonly number[] | undefined,
  mm = 1,
): number[] | undefined {
  const z = normalize(axis ?? [0, 0, 1]);
  if (!z) return undefined;
  let r = refDirection ? normalize(refDirection) : undefined;
  // A reference direction missing or parallel to the axis: any perpendicular will do (as OCCT).
  if (!r || Math.abs(dot(r, z)) > 1 - 1e-9) r = Math.abs(z[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  const x = normalize(sub(r, scale(z, dot(r, z))));
  if (!x) return undefined;
  const y = cross(z, x);
  const p = [0, 1, 2].map((i) => (location[i] ?? 0) * mm);
  return [x[0], x[1], x[2], 0, y[0], y[1], y[2], 0, z[0], z[1], z[2], 0, p[0]!, p[1]!, p[2]!, 1];
}

function relationshipTransform(g: StepGraph, rel: number, childReps: Set<number>, parentReps: Set<number>): number[] | undefined {
  const parts = g.parts(rel);
  if (!parts) return undefined;
  let rep1: number | undefined;
  let rep2: number | undefined;
  let op: number | undefined;
  for (const p of parts) {
    if (p.type.includes('REPRESENTATION_RELATIONSHIP') && p.args.length >= 4) {
      rep1 = refOf(p.args[2]);
      rep2 = refOf(p.args[3]);
      if (p.args.length >= 5) op ??= refOf(p.args[4]);
    } else if (p.type === 'REPRESENTATION_RELATIONSHIP_WITH_TRANSFORMATION' && p.args.length >= 1) {
      op = refOf(p.args[0]);
    }
  }
  if (op === undefined) return undefined;
  // rep_1 is the child's by convention; some writers swap them.
  const reversed = rep1 !== undefined && rep2 !== undefined && (childReps.has(rep2) || parentReps.has(rep1)) && !childReps.has(rep1);
  const childRep = reversed ? rep2 : rep1;
  const parentRep = reversed ? rep1 : rep2;
  const opType = g.types.get(op) ?? '';
  if (opType === 'ITEM_DEFINED_TRANSFORMATION') {
    const a = g.args(op, opType);
    const item1 = refOf(a?.[2]);
    const item2 = refOf(a?.[3]);
    if (item1 === undefined || item2 === undefined) return undefined;
    const childItem = reversed ? item2 : item1;
    const parentItem = reversed ? item1 : item2;
    const from = placementMatrix(g, childItem, g.lengthUnitMm(childRep));
    const to = placementMatrix(g, parentItem, g.lengthUnitMm(parentRep));
    if (!from || !to) return undefined;
    return multiply(to, invertRigidMat4(from));
  }
  if (opType.startsWith('CARTESIAN_TRANSFORMATION_OPERATOR')) {
    // (name, axis1, axis2, local_origin, scale[, axis3]) maps child coordinates into the parent.
    const a = g.argsAny(op);
    const mm = g.lengthUnitMm(parentRep);
    const origin = pointOf(g, refOf(a?.[3]));
    const ax1 = directionOf(g, refOf(a?.[1]));
    const ax3 = directionOf(g, refOf(a?.[5]));
    const m = axis2Placement(origin ?? [0, 0, 0], ax3, ax1, mm);
    if (!m) return undefined;
    const s = typeof a?.[4] === 'number' ? a[4] : 1;
    for (const i of [0, 1, 2, 4, 5, 6, 8, 9, 10]) m[i]! *= s;
    return m;
  }
  return undefined;
}

function placementMatrix(g: StepGraph, id: number, mm: number): number[] | undefined {
  const type = g.types.get(id);
  if (type !== 'AXIS2_PLACEMENT_3D') return undefined;
  const a = g.args(id, type);
  const location = pointOf(g, refOf(a?.[1]));
  if (!location) return undefined;
  return axis2Placement(location, directionOf(g, refOf(a?.[2])), directionOf(g, refOf(a?.[3])), mm);
}

function pointOf(g: StepGraph, id: number | undefined): number[] | undefined {
  if (id === undefined) return undefined;
  const c = listOf(g.args(id, 'CARTESIAN_POINT')?.[1]);
  return c.length ? c.map((v) => (typeof v === 'number' ? v : 0)) : undefined;
}

function directionOf(g: StepGraph, id: number | undefined): number[] | undefined {
  if (id === undefined) return undefined;
  const c = listOf(g.args(id, 'DIRECTION')?.[1]);
  return c.length ? c.map((v) => (typeof v === 'number' ? v : 0)) : undefined;
}

type V3 = [number, number, number];
const dot = (a: readonly number[], b: readonly number[]) =>
  (a[0] ?? 0) * (b[0] ?? 0) + (a[1] ?? 0) * (b[1] ?? 0) + (a[2] ?? 0) * (b[2] ?? 0);
const scale = (a: readonly number[], s: number): V3 => [(a[0] ?? 0) * s, (a[1] ?? 0) * s, (a[2] ?? 0) * s];
const sub = (a: readonly number[], b: readonly number[]): V3 => [
  (a[0] ?? 0) - (b[0] ?? 0),
  (a[1] ?? 0) - (b[1] ?? 0),
  (a[2] ?? 0) - (b[2] ?? 0),
];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
function normalize(a: readonly number[]): V3 | undefined {
  const l = Math.sqrt(dot(a, a));
  return l > 1e-300 && Number.isFinite(l) ? scale(a, 1 / l) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Entity graph

/** Types whose records are kept (the rest of a geometry-heavy file is skipped unread). */
const WANTED = new Set([
  'PRODUCT',
  'PRODUCT_DEFINITION_SHAPE',
  'NEXT_ASSEMBLY_USAGE_OCCURRENCE',
  'SHAPE_DEFINITION_REPRESENTATION',
  'CONTEXT_DEPENDENT_SHAPE_REPRESENTATION',
  'APPLIED_DOCUMENT_REFERENCE',
  'APPLIED_EXTERNAL_IDENTIFICATION_ASSIGNMENT',
  'DOCUMENT_FILE',
  'DOCUMENT',
  'ITEM_DEFINED_TRANSFORMATION',
  'AXIS2_PLACEMENT_3D',
  'CARTESIAN_POINT',
  'DIRECTION',
  'LENGTH_MEASURE_WITH_UNIT',
]);
const isProductDefinitionType = (t: string) => t === 'PRODUCT_DEFINITION' || t === 'PRODUCT_DEFINITION_WITH_ASSOCIATED_DOCUMENTS';
const isWanted = (t: string) =>
  WANTED.has(t) ||
  isProductDefinitionType(t) ||
  t.startsWith('PRODUCT_DEFINITION_FORMATION') ||
  t.endsWith('REPRESENTATION') ||
  t.includes('REPRESENTATION_RELATIONSHIP') ||
  t.startsWith('CARTESIAN_TRANSFORMATION_OPERATOR');

/** Records of a Part 21 DATA section, parsed lazily. Complex instances have the type `''`. */
class StepGraph {
  /** Entity id → type name of every kept record. */
  readonly types = new Map<number, string>();
  private readonly spans = new Map<number, StepRecordSpan>();
  private readonly parsed = new Map<number, StepPart[] | null>();
  private readonly unitCache = new Map<number, number>();

  constructor(private readonly text: string) {
    for (const r of stepRecords(text)) {
      if (r.type === '' ? /REPRESENTATION|UNIT|CONTEXT|PRODUCT_DEFINITION/i.test(text.slice(r.from, r.end)) : isWanted(r.type)) {
        this.types.set(r.id, r.type);
        this.spans.set(r.id, r);
      }
    }
  }

  /** The parts of a record: one for a simple instance, several for a complex one. */
  parts(id: number): StepPart[] | undefined {
    let p = this.parsed.get(id);
    if (p === undefined) {
      const span = this.spans.get(id);
      p = span ? parseStepRecord(this.text, span) : null;
      this.parsed.set(id, p);
    }
    return p ?? undefined;
  }

  /** Arguments of the part named `type` of a record. */
  args(id: number, type: string): StepValue[] | undefined {
    return this.parts(id)?.find((p) => p.type === type)?.args;
  }

  /** Arguments of a simple record, whatever its type. */
  argsAny(id: number): StepValue[] | undefined {
    const p = this.parts(id);
    return p?.length === 1 ? p[0]!.args : undefined;
  }

  /** Millimetres per length unit of a representation (its context's GLOBAL_UNIT_ASSIGNED_CONTEXT); 1 when unknown. */
  lengthUnitMm(rep: number | undefined): number {
    if (rep === undefined) return 1;
    const cached = this.unitCache.get(rep);
    if (cached !== undefined) return cached;
    let mm = 1;
    const repPart = this.parts(rep)?.find((p) => p.args.length >= 3 && p.type.endsWith('REPRESENTATION'));
    const ctx = refOf(repPart?.args[2]);
    const units = ctx === undefined ? [] : listOf(this.args(ctx, 'GLOBAL_UNIT_ASSIGNED_CONTEXT')?.[0]);
    for (const u of units) {
      const f = this.unitMm(refOf(u), 0);
      if (f !== undefined) {
        mm = f;
        break;
      }
    }
    this.unitCache.set(rep, mm);
    return mm;
  }

  private unitMm(id: number | undefined, depth: number): number | undefined {
    if (id === undefined || depth > 4) return undefined;
    const parts = this.parts(id);
    if (!parts?.some((p) => p.type === 'LENGTH_UNIT')) return undefined;
    const si = parts.find((p) => p.type === 'SI_UNIT');
    if (si) {
      const prefix = si.args[0] && typeof si.args[0] === 'object' && 'enum' in si.args[0] ? si.args[0].enum : '';
      return 1000 * (SI_PREFIX[prefix] ?? 1);
    }
    const conv = parts.find((p) => p.type === 'CONVERSION_BASED_UNIT');
    const measure = refOf(conv?.args[1]);
    if (measure === undefined) return undefined;
    const m = this.args(measure, 'LENGTH_MEASURE_WITH_UNIT') ?? this.argsAny(measure);
    const v = m?.[0];
    const value =
      typeof v === 'number' ? v : v && typeof v === 'object' && 'typed' in v && typeof v.args[0] === 'number' ? v.args[0] : undefined;
    const base = this.unitMm(refOf(m?.[1]), depth + 1);
    return value !== undefined && base !== undefined ? value * base : undefined;
  }
}

const SI_PREFIX: Record<string, number> = {
  EXA: 1e18,
  PETA: 1e15,
  TERA: 1e12,
  GIGA: 1e9,
  MEGA: 1e6,
  KILO: 1e3,
  HECTO: 1e2,
  DECA: 1e1,
  DECI: 1e-1,
  CENTI: 1e-2,
  MILLI: 1e-3,
  MICRO: 1e-6,
  NANO: 1e-9,
  PICO: 1e-12,
  FEMTO: 1e-15,
  ATTO: 1e-18,
};

const hasExtension = (p: string) => /\.[A-Za-z0-9_]+$/.test(p);

const normalizePath = (p: string) => p.replace(/\\/g, '/').replace(/^file:\/\/\/?/i, '');

function baseName(p: string): string {
  const s = normalizePath(p);
  return s.slice(s.lastIndexOf('/') + 1);
}
