// Search quality on three sets, side by side: the dev split (settings are chosen on it), the frozen
// test split (seeded apart; never tuned on) and real third-party parts. Every pair is scored by the
// service's own rule (src/service/search/part-to-part-rule.ts) on features computed by the
// ingestion's code from the files as uploaded.
import { describe, geoScore, partInPart, partToPartMatrix, type Described } from './search-data/evaluate';
import { figures, type Figures } from './search-data/metrics';
import { DUPLICATE_RULE, OFF_REPORTED_MAX } from '../geometry/search/duplicate-rule';
import { descriptorDistance } from '../geometry/search/descriptors/global-descriptor';
import type { SearchRecord } from './search-data/split';

export interface SetResult {
  name: string;
  figures: Figures;
}

/**
 * `pairs: 'design'` scores only the pairs within each design (duplicates, edits, mirror images,
 * scaled copies and variants against each other): minutes instead of most of an hour, but precision
 * then counts no false duplicate across designs, and retrieval and the unrelated median are not measured.
 */
export async function evaluateSet(name: string, records: SearchRecord[], pairs: 'all' | 'design' = 'all'): Promise<SetResult> {
  const t0 = performance.now();
  const ds: Described[] = await describe(records);
  const t1 = performance.now();
  const m = await partToPartMatrix(ds, pairs === 'design' ? (i, j) => ds[i]!.record.design === ds[j]!.record.design : undefined);
  const f = figures(
    ds,
    m,
    (i, j) => descriptorDistance(ds[i]!.features.global, ds[j]!.features.global),
    (i, j) => partInPart(ds[i]!, ds[j]!, i, j),
    (i, j) => geoScore(ds[i]!, ds[j]!),
  );
  console.log(
    `${name}: ${ds.length} records described in ${((t1 - t0) / 1000).toFixed(0)} s, scored in ${((performance.now() - t1) / 1000).toFixed(0)} s (${m.exactPairs} exact pairs)`,
  );
  return { name: pairs === 'design' ? `${name} (within designs)` : name, figures: f };
}

type Row = [label: string, target: string, pick: (f: Figures) => string, pass?: (f: Figures) => boolean];
const n2 = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(2));
const n1 = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(1));
const share = (s: string) => {
  const m = /^(\d+)\/(\d+)/.exec(s);
  return m && Number(m[2]) ? Number(m[1]) / Number(m[2]) : NaN;
};

export const ROWS: Row[] = [
  ['records / families', '', (f) => `${f.records} / ${f.families}`],
  ['duplicates ≥ 98: precision', '≥ 0.99', (f) => n2(f.dupPrecision), (f) => f.dupPrecision >= 0.99],
  ['duplicates ≥ 98: recall', '≥ 0.98', (f) => `${n2(f.dupRecall)} of ${f.dupTrue}`, (f) => f.dupRecall >= 0.98],
  ['pairs whose parameters agree within the stated tolerance (left out of both)', '', (f) => String(f.coincidentEdits)],
  ['lowest duplicate score', '≥ 98', (f) => n1(f.duplicateMin), (f) => f.duplicateMin >= 98],
  ['mirrored copies at ≥ 98', '0', (f) => f.mirroredAt98, (f) => f.mirroredAt98.startsWith('0/')],
  [
    'mirrored copies with relation "mirrored"',
    'all',
    (f) => f.mirrorRelations,
    (f) => share(f.mirrorRelations) === 1 || f.mirrorRelations.endsWith('/0'),
  ],
  ['feature edits (1–3 % of size) at ≥ 98', '0', (f) => f.editsAt98, (f) => f.editsAt98.startsWith('0/')],
  ...(['thickness', 'diameter', 'length'] as const).map((k): Row => [
    `dimension edits (4–15 % of the ${k}) at ≥ 98`,
    k === 'length' ? '0 beyond 0.8 % of size' : '0 beyond 3 %',
    (f) => f.dimensionAt98[k] ?? '0/0',
    (f) => !f.dimensionBeyondAt98.some((x) => x.includes(`(${k} `)),
  ]),
  ['scaled copies at ≥ 98', '0', (f) => f.scaledAt98, (f) => f.scaledAt98.startsWith('0/')],
  ['feature edits: median score', '90–98', (f) => n1(f.editMedian), (f) => f.editMedian >= 90 && f.editMedian < 98],
  [
    'family variants: median (p10–p90)',
    '80–97',
    (f) => `${n1(f.variantMedian)} (${n1(f.variantP10)}–${n1(f.variantP90)})`,
    (f) => f.variantMedian >= 80 && f.variantMedian <= 97,
  ],
  ['unrelated designs: median (p99)', '< 50', (f) => `${n1(f.unrelatedMedian)} (${n1(f.unrelatedP99)})`, (f) => f.unrelatedMedian < 50],
  ['family nearest neighbour', '≥ 0.95', (f) => n2(f.familyNN), (f) => f.familyNN >= 0.95],
  ['family mAP', '≥ 0.90', (f) => n2(f.familyMAP), (f) => f.familyMAP >= 0.9],
  ['part → assembly forward ≥ 90', '≥ 0.95', (f) => f.forward90, (f) => share(f.forward90) >= 0.95],
  ['assembly → part reverse ≥ 90', '≥ 0.95', (f) => f.reverse90, (f) => share(f.reverse90) >= 0.95],
  ['geo-related partner in top 10', '≥ 0.9', (f) => f.geoTop10, (f) => share(f.geoTop10) >= 0.9],
];

export function printTable(sets: SetResult[]): void {
  const head = ['figure', 'target', ...sets.map((s) => s.name)];
  // A figure with nothing to count (0/0, —) is not judged.
  const judged = (shown: string) => !/^0\/0|^—/.test(shown);
  const rows = ROWS.map(([label, target, pick, pass]) => [
    label,
    target,
    ...sets.map((s) => `${pick(s.figures)}${pass && judged(pick(s.figures)) ? (pass(s.figures) ? '' : ' ✗') : ''}`),
  ]);
  const w = head.map((_, k) => Math.max(head[k]!.length, ...rows.map((r) => r[k]!.length)));
  const fmt = (r: string[]) => r.map((c, k) => c.padEnd(w[k]!)).join(' | ');
  console.log(`\n${fmt(head)}\n${w.map((x) => '-'.repeat(x)).join('-|-')}`);
  for (const r of rows) console.log(fmt(r));
  console.log('(✗ = target not met; 0/0 and — have nothing to count in that set)');
  console.log('\nduplicates ≥ 98 by source (a pair of two sources counts under both): precision (false) / recall (missed of true)');
  for (const s of sets)
    for (const [source, c] of Object.entries(s.figures.bySource).sort())
      console.log(
        `  ${s.name} ${source.padEnd(20)} precision ${n2(c.tp + c.fp ? c.tp / (c.tp + c.fp) : NaN)} (${c.fp})  recall ${n2(c.tp + c.fn ? c.tp / (c.tp + c.fn) : NaN)} (${c.fn} of ${c.tp + c.fn})`,
      );
  console.log(
    '\nshare of surface off the other after the best proper alignment (the duplicate rule allows ≤ ' +
      DUPLICATE_RULE.outliers +
      '; counted up to ' +
      OFF_REPORTED_MAX +
      ', then the pair has long failed), by pair: p50 / p90 / max, or min for pairs that must fail',
  );
  for (const s of sets) {
    for (const [k, xs] of Object.entries(s.figures.offByKind).sort()) {
      const v = [...xs].sort((a, b) => a - b);
      const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * v.length))]!.toFixed(4);
      console.log(
        `  ${s.name} ${k.padEnd(14)} n=${String(v.length).padStart(4)}  min ${v[0]!.toFixed(4)}  p10 ${at(0.1)}  p50 ${at(0.5)}  p90 ${at(0.9)}  max ${v[v.length - 1]!.toFixed(4)}`,
      );
    }
  }
  console.log("\npart-to-part descriptor distance against the design's original (calibrates the scale below 98): p10 / p50 / p90");
  for (const s of sets) {
    for (const [k, xs] of Object.entries(s.figures.distanceByKind).sort()) {
      const v = [...xs].sort((a, b) => a - b);
      const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * v.length))]!.toFixed(2);
      console.log(`  ${s.name} ${k.padEnd(14)} n=${String(v.length).padStart(5)}  p10 ${at(0.1)}  p50 ${at(0.5)}  p90 ${at(0.9)}`);
    }
  }
  for (const s of sets) {
    const f = s.figures;
    if (f.falseDuplicates.length)
      console.log(`\n${s.name}: false duplicates (${f.falseDuplicates.length}):\n  ${f.falseDuplicates.slice(0, 25).join('\n  ')}`);
    if (f.dimensionBeyondAt98.length)
      console.log(
        `\n${s.name}: dimension edits beyond the stated tolerance (3 % + 0.02 mm; lengths 0.8 % of the diagonal) at ≥ 98 (${f.dimensionBeyondAt98.length}):\n  ${f.dimensionBeyondAt98.join('\n  ')}`,
      );
    if (f.coincidentPairs.length)
      console.log(
        `\n${s.name}: left out, one part to the stated tolerance (${f.coincidentPairs.length}):\n  ${f.coincidentPairs.slice(0, 25).join('\n  ')}`,
      );
    if (f.missedDuplicates.length)
      console.log(`\n${s.name}: missed duplicates (${f.missedDuplicates.length}):\n  ${f.missedDuplicates.slice(0, 25).join('\n  ')}`);
  }
}
