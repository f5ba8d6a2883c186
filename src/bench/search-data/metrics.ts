// The figures of one benchmark set (pure): duplicates, what must stay below 98, the scale's
// bands, family retrieval, part-in-part both ways, geo-related.
import type { Described } from './evaluate';
import { dimensionKind, type SearchRecord } from './split';
import { DUPLICATE_RULE } from '../../geometry/search/duplicate-rule';

export interface Figures {
  records: number;
  families: number;
  dupPrecision: number;
  dupRecall: number;
  dupTrue: number;
  /** Duplicates at ≥ 98 by source (a pair of two sources counts under both): true, false and missed pairs. */
  bySource: Record<string, { tp: number; fp: number; fn: number }>;
  /** Pairs of one design whose parameters all agree within the stated tolerance (see coincide): in neither precision nor recall. */
  coincidentEdits: number;
  coincidentPairs: string[];
  falseDuplicates: string[];
  missedDuplicates: string[];
  mirroredAt98: string;
  editsAt98: string;
  /** Dimension edits at ≥ 98 by kind (thickness, diameter, length), and those of them beyond the rule's stated tolerance. */
  dimensionAt98: Record<string, string>;
  dimensionBeyondAt98: string[];
  scaledAt98: string;
  mirrorRelations: string;
  variantMedian: number;
  variantP10: number;
  variantP90: number;
  editMedian: number;
  unrelatedMedian: number;
  unrelatedP99: number;
  duplicateMin: number;
  familyNN: number;
  familyMAP: number;
  forward90: string;
  reverse90: string;
  geoTop10: string;
  exactPairs: number;
  /** Share of surface off the other after alignment (the duplicate rule's measure), by kind of pair. */
  offByKind: Record<string, number[]>;
  /** Descriptor distance against the design's original, by kind; 'unrelated' between originals of other archetypes. */
  distanceByKind: Record<string, number[]>;
}

/**
 * The duplicate rule's stated tolerance for a dimension edit (mm), before the allowance for
 * tessellation, which these figures do not know (an edit inside that allowance counts as beyond):
 * a thickness or diameter 3 % of the smaller value + 0.02 mm (the dimension test); a length moves a face,
 * which the surface test allows up to twice its share of the diagonal.
 */
function statedTolerance(d: NonNullable<SearchRecord['dimension']>): number {
  return d.kind === 'length'
    ? 2 * DUPLICATE_RULE.tolerance * d.diagonal
    : DUPLICATE_RULE.dimensionShare * Math.min(d.from, d.to) + DUPLICATE_RULE.dimensionFloor;
}

/**
 * Whether two records of one design are one part to the rule's stated precision, though the
 * generator made them as two: every parameter they were built from agrees within the rule's
 * stated tolerance for its kind (a feature's presence, a ratio and a parameter that scales others
 * must be equal) — a dimension
 * edit within its tolerance against the design, two edits of one dimension that landed within it
 * of each other, a feature edit and a variant that changed one dimension to about one value.
 * Records without parameters (B-rep designs): two edits of one parameter to about one value.
 */
function coincide(a: SearchRecord, b: SearchRecord): boolean {
  if (a.design !== b.design || a.partId === b.partId) return false;
  if (a.params && b.params) {
    const x = a.params.values,
      y = b.params.values;
    return [...new Set([...Object.keys(x), ...Object.keys(y)])].every((k) => {
      const u = x[k],
        v = y[k];
      if (u === v) return true;
      if (u === undefined || v === undefined || a.params!.scaling.includes(k)) return false;
      // A dimension edit's own parameter is of its kind at any size (a 0.2 mm leg is a length).
      const edited = [a, b].find((r) => r.changed?.param === k && r.dimension)?.dimension;
      if (!edited && Math.max(u, v) <= 1) return false;
      // A thickness or diameter that changed also moves a face: within both tests' tolerances.
      const diagonal = a.params!.diagonal;
      const kind = edited?.kind ?? dimensionKind(k);
      return (
        Math.abs(u - v) <=
        Math.min(statedTolerance({ kind, from: u, to: v, diagonal }), statedTolerance({ kind: 'length', from: u, to: v, diagonal }))
      );
    });
  }
  if (!a.changed || !b.changed || a.changed.param !== b.changed.param) return false;
  const d = a.dimension ?? b.dimension;
  const x = a.changed.value,
    y = b.changed.value;
  return Math.abs(x - y) <= (d ? statedTolerance({ ...d, from: x, to: y }) : 0);
}

const isSamePart = (a: SearchRecord, b: SearchRecord) => a.partId === b.partId && a.kind !== 'assembly';
const q = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const ratio = (hit: number, n: number) => `${hit}/${n}${n ? ` = ${(hit / n).toFixed(2)}` : ''}`;

export interface PairScores {
  score(i: number, j: number): number;
  relation(i: number, j: number): string | undefined;
  off(i: number, j: number): number | undefined;
  exactPairs: number;
}

export function figures(
  ds: readonly Described[],
  p: PairScores,
  distance: (i: number, j: number) => number,
  pip: (i: number, j: number) => { forward: number; reverse: number },
  geo: (i: number, j: number) => number,
): Figures {
  const n = ds.length;
  const rec = (i: number) => ds[i]!.record;
  const parts = ds.map((_, i) => i).filter((i) => rec(i).kind !== 'assembly');
  const offByKind: Record<string, number[]> = {};
  const distanceByKind: Record<string, number[]> = {};
  let coincident = 0;
  const coincidentPairs: string[] = [];
  const bySource: Figures['bySource'] = {};
  let tp = 0,
    fp = 0,
    fn = 0;
  const falseDup: string[] = [],
    missed: string[] = [];
  const variant: number[] = [],
    edit: number[] = [],
    unrelated: number[] = [],
    dupScores: number[] = [];
  const dimensions: Record<string, { n: number; high: number }> = {};
  const dimensionBeyond: string[] = [];
  let mirrors = 0,
    mirrorsHigh = 0,
    mirrorRel = 0,
    edits = 0,
    editsHigh = 0,
    scaled = 0,
    scaledHigh = 0;
  for (const i of parts) {
    for (const j of parts) {
      if (j <= i) continue;
      const a = rec(i),
        b = rec(j);
      const s = p.score(i, j);
      // Not scored (a run that scores only the pairs within each design).
      if (Number.isNaN(s)) continue;
      // One part to the rule's stated precision and another to the generator: left out, counted.
      const left = coincide(a, b);
      if (left) {
        coincident++;
        coincidentPairs.push(`${a.id}~${b.id} ${s.toFixed(1)} (${a.how} / ${b.how})`);
      } else {
        const same = isSamePart(a, b);
        const off = p.off(i, j);
        if (off !== undefined) {
          const other = a.kind === 'original' || a.kind === 'duplicate' ? b : a;
          const k = same ? 'duplicate' : a.design === b.design ? other.kind : 'other design';
          (offByKind[k] ??= []).push(off);
        }
        if (same) dupScores.push(s);
        const sources = [...new Set([a.source ?? 'unnamed', b.source ?? 'unnamed'])].map((k) => (bySource[k] ??= { tp: 0, fp: 0, fn: 0 }));
        if (s >= 98) {
          for (const c of sources) c[same ? 'tp' : 'fp']++;
          if (same) tp++;
          else {
            fp++;
            falseDup.push(`${a.id}~${b.id} ${s.toFixed(1)} (${b.kind === 'original' ? a.how : b.how})`);
          }
        } else if (same) {
          for (const c of sources) c.fn++;
          fn++;
          missed.push(`${a.id}~${b.id} ${s.toFixed(1)} (${a.kind === 'original' ? b.how : a.how})`);
        }
      }
      // Against the original of the same design.
      const [o, x] = a.kind === 'original' ? [a, b] : b.kind === 'original' ? [b, a] : [undefined, undefined];
      if (o && x && o.design === x.design) (distanceByKind[x.kind] ??= []).push(distance(i, j));
      if (a.kind === 'original' && b.kind === 'original')
        (distanceByKind[a.design.replace(/-\d+$/, '') === b.design.replace(/-\d+$/, '') ? 'same archetype' : 'unrelated'] ??= []).push(
          distance(i, j),
        );
      if (o && x && o.design === x.design) {
        if (x.kind === 'variant') variant.push(s);
        if (x.kind === 'edit') {
          edit.push(s);
          edits++;
          if (s >= 98) editsHigh++;
        }
        if (x.kind === 'dimension' && x.dimension) {
          const d = (dimensions[x.dimension.kind] ??= { n: 0, high: 0 });
          d.n++;
          if (s >= 98) {
            d.high++;
            if (Math.abs(x.dimension.to - x.dimension.from) > statedTolerance(x.dimension))
              dimensionBeyond.push(`${x.id} ${s.toFixed(1)} (${x.how})`);
          }
        }
        if (x.kind === 'mirror') {
          mirrors++;
          if (s >= 98) mirrorsHigh++;
          if (p.relation(i, j) === 'mirrored') mirrorRel++;
        }
        if (x.kind === 'scaled') {
          scaled++;
          if (s >= 98) scaledHigh++;
        }
      }
      if (a.kind === 'original' && b.kind === 'original' && a.design.replace(/-\d+$/, '') !== b.design.replace(/-\d+$/, ''))
        unrelated.push(s);
    }
  }
  // Family retrieval: originals query the originals, variants and details of every design.
  const pool = parts.filter((i) => ['original', 'variant', 'detail'].includes(rec(i).kind));
  let nn = 0,
    apSum = 0,
    queries = 0;
  for (const i of pool.filter((k) => rec(k).kind === 'original')) {
    const others = pool.filter((j) => j !== i).map((j) => ({ rel: rec(j).design === rec(i).design, s: p.score(i, j) }));
    const relevant = others.filter((o) => o.rel).length;
    if (!relevant || others.some((o) => Number.isNaN(o.s))) continue;
    others.sort((x, y) => y.s - x.s);
    if (others[0]!.rel) nn++;
    let hits = 0,
      ap = 0;
    others.forEach((o, k) => {
      if (o.rel) ap += ++hits / (k + 1);
    });
    apSum += ap / relevant;
    queries++;
  }
  // Part-in-part: every original in each assembly, both directions.
  let fwd = 0,
    rev = 0,
    pipN = 0;
  for (let a = 0; a < n; a++) {
    for (const c of rec(a).contains ?? []) {
      const i = ds.findIndex((d) => d.record.partId === c.partId && d.record.kind === 'original');
      if (i < 0) continue;
      pipN++;
      if (pip(i, a).forward >= 90) fwd++;
      if (pip(a, i).reverse >= 90) rev++;
    }
  }
  // Geo-related: a detail's original in the top 10 of everything but its own design's records.
  let geoHit = 0,
    geoN = 0;
  for (const i of parts.filter((k) => rec(k).kind === 'detail')) {
    const target = parts.find((j) => rec(j).kind === 'original' && rec(j).design === rec(i).design);
    if (target === undefined) continue;
    const ranked = parts.filter((j) => j !== i && (rec(j).design !== rec(i).design || j === target)).sort((x, y) => geo(i, y) - geo(i, x));
    geoN++;
    if (ranked.indexOf(target) < 10) geoHit++;
  }
  return {
    records: n,
    families: new Set(ds.filter((d) => d.record.kind !== 'assembly').map((d) => d.record.design)).size,
    dupPrecision: tp + fp ? tp / (tp + fp) : 1,
    dupRecall: tp + fn ? tp / (tp + fn) : 1,
    dupTrue: tp + fn,
    bySource,
    coincidentEdits: coincident,
    coincidentPairs,
    falseDuplicates: falseDup,
    missedDuplicates: missed,
    mirroredAt98: ratio(mirrorsHigh, mirrors),
    editsAt98: ratio(editsHigh, edits),
    dimensionAt98: Object.fromEntries(Object.entries(dimensions).map(([k, d]) => [k, ratio(d.high, d.n)])),
    dimensionBeyondAt98: dimensionBeyond,
    scaledAt98: ratio(scaledHigh, scaled),
    mirrorRelations: ratio(mirrorRel, mirrors),
    variantMedian: q(variant, 0.5),
    variantP10: q(variant, 0.1),
    variantP90: q(variant, 0.9),
    editMedian: q(edit, 0.5),
    unrelatedMedian: q(unrelated, 0.5),
    unrelatedP99: q(unrelated, 0.99),
    duplicateMin: dupScores.length ? Math.min(...dupScores) : NaN,
    familyNN: queries ? nn / queries : NaN,
    familyMAP: queries ? apSum / queries : NaN,
    forward90: ratio(fwd, pipN),
    reverse90: ratio(rev, pipN),
    geoTop10: ratio(geoHit, geoN),
    exactPairs: p.exactPairs,
    offByKind,
    distanceByKind,
  };
}
