// Scores a benchmark set the way the service does, in process: each file is read by the
// production importers, converted to millimetres as ingestion does, described by the ingestion's
// search bundle, and every pair is scored by the engine's own part-to-part rule (pairs.ts and
// the pair worker) — what a query would list if the candidate index returned every model. Below
// the rule, far pairs' views (similar-distance.ts) are left out here; `npm run bench:similar` measures them.
import { comparePartToPart } from '../../service/search/part-to-part-rule';
import comparePair from '../../service/search/pair-worker';
import { geoRelatedScore } from '../../geometry/search/descriptors/geo-descriptor';
import { importFile } from '../../geometry/import/registry';
import { isImportError } from '../../geometry/import/importer';
import { convertUnits, type Mesh } from '../../geometry/mesh/mesh';
import { meshFacts, weld } from '../../geometry/mesh/mesh-facts';
import { computeSearchFeatures, type SearchFeatures } from '../../geometry/search/search-features';
import type { SearchRecord } from './split';

export interface Described {
  record: SearchRecord;
  features: SearchFeatures;
}

/** Reads and describes each record as ingestion would; records that fail to import are reported and left out. */
export async function describe(records: readonly SearchRecord[], progress?: (done: number) => void): Promise<Described[]> {
  const out: Described[] = [];
  for (const [i, r] of records.entries()) {
    const imported = await importFile(r.file.name, r.file.bytes);
    if (isImportError(imported)) {
      console.log(`  (skipped) ${r.id}: ${imported.reason}`);
      continue;
    }
    let mesh: Mesh = { positions: imported.positions, indices: imported.indices, units: imported.units };
    if (mesh.units && mesh.units !== 'unknown' && mesh.units !== 'mm') mesh = convertUnits(mesh, 'mm');
    const welded = weld(mesh);
    const facts = meshFacts(mesh, { welded });
    out.push({ record: r, features: computeSearchFeatures(mesh, { facts, welded }) });
    if (progress && i % 50 === 49) progress(i + 1);
  }
  return out;
}

const side = (d: Described, i: number) => ({
  key: `${d.record.id}:${i}`,
  prepared: d.features.prepared,
  global: d.features.global,
  components: d.features.components.map((c, idx) => ({ idx, descriptor: c.descriptor, pose: c.pose })),
});

/**
 * Part-to-part results of every pair (i < j), by the service's rule on its pair pool (one row's
 * pairs in flight at a time, so each worker keeps the row's model decoded); with `only`, just the
 * pairs it accepts (the others score NaN and count nowhere).
 */
export async function partToPartMatrix(
  ds: readonly Described[],
  only?: (i: number, j: number) => boolean,
): Promise<{
  score(i: number, j: number): number;
  relation(i: number, j: number): string | undefined;
  off(i: number, j: number): number | undefined;
  exactPairs: number;
}> {
  const n = ds.length;
  const score = new Float64Array(n * n).fill(NaN);
  for (let i = 0; i < n; i++) score[i * n + i] = 100;
  const relation = new Map<number, string>();
  const off = new Map<number, number>();
  let exactPairs = 0;
  const sides = ds.map(side);
  for (let i = 0; i < n; i++) {
    const row: Promise<void>[] = [];
    for (let j = i + 1; j < n; j++) {
      if (only && !only(i, j)) continue;
      row.push(
        comparePartToPart(sides[i]!, sides[j]!, ds[i]!.features.geo, ds[j]!.features.geo).then((r) => {
          if (r.exact) exactPairs++;
          score[i * n + j] = score[j * n + i] = r.score;
          if (r.relation) relation.set(i * n + j, r.relation).set(j * n + i, r.relation);
          if (r.off !== undefined) off.set(i * n + j, r.off).set(j * n + i, r.off);
        }),
      );
    }
    await Promise.all(row);
  }
  return { score: (i, j) => score[i * n + j]!, relation: (i, j) => relation.get(i * n + j), off: (i, j) => off.get(i * n + j), exactPairs };
}

/** Part-in-part of a (the query) against b, as the pair worker computes it. */
export function partInPart(a: Described, b: Described, ia: number, ib: number): { forward: number; reverse: number } {
  const r = comparePair({ kind: 'part-in-part', a: side(a, ia), b: side(b, ib) });
  return { forward: r.forward ?? 0, reverse: r.reverse ?? 0 };
}

export const geoScore = (a: Described, b: Described) => geoRelatedScore(a.features.geo, b.features.geo);
