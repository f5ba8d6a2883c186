// Retrieval metrics over a labelled benchmark (pure; used by evaluate.test.ts and experiments).
import type { BenchmarkRecord } from './benchmark-dataset';

export interface PairScores {
  /** score(i, j) for records i ≠ j, symmetric. */
  score(i: number, j: number): number;
}

/** Whether two records are the same part for part-to-part purposes (duplicates; mirrors of achiral parts). */
export function samePart(a: BenchmarkRecord, b: BenchmarkRecord): boolean {
  if (a.labels.partId !== b.labels.partId) return false;
  const ok = (r: BenchmarkRecord) => r.labels.kind === 'original' || r.labels.kind === 'duplicate' || (r.labels.kind === 'mirror' && !r.labels.chiral);
  return ok(a) && ok(b);
}

export interface DuplicateMetrics {
  precision: number;
  recall: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  /** Lowest score of a true duplicate pair and highest of a non-duplicate pair. */
  worstDuplicate: { score: number; a: string; b: string };
  bestNonDuplicate: { score: number; a: string; b: string };
}

/** Precision/recall of "score ≥ threshold ⇔ same part" over all pairs of part records (assemblies excluded). */
export function duplicateMetrics(records: readonly BenchmarkRecord[], s: PairScores, threshold = 98): DuplicateMetrics {
  let tp = 0, fp = 0, fn = 0;
  let worst = { score: Infinity, a: '', b: '' };
  let best = { score: -Infinity, a: '', b: '' };
  for (let i = 0; i < records.length; i++) {
    const a = records[i]!;
    if (a.labels.kind === 'assembly') continue;
    for (let j = i + 1; j < records.length; j++) {
      const b = records[j]!;
      if (b.labels.kind === 'assembly') continue;
      const sc = s.score(i, j);
      const same = samePart(a, b);
      if (same && sc < worst.score) worst = { score: sc, a: a.id, b: b.id };
      if (!same && sc > best.score) best = { score: sc, a: a.id, b: b.id };
      if (sc >= threshold) {
        if (same) tp++;
        else fp++;
      } else if (same) fn++;
    }
  }
  return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, truePositives: tp, falsePositives: fp, falseNegatives: fn, worstDuplicate: worst, bestNonDuplicate: best };
}

/**
 * Family retrieval over the originals: nearest-neighbour accuracy and mean average precision,
 * relevant = other variants of the same family.
 */
export function familyMetrics(records: readonly BenchmarkRecord[], s: PairScores): { nn: number; map: number; queries: number } {
  const q = records.map((r, i) => [r, i] as const).filter(([r]) => r.labels.kind === 'original');
  let nnHits = 0, apSum = 0, count = 0;
  for (const [r, i] of q) {
    const others = q.filter(([, j]) => j !== i).map(([o, j]) => ({ rel: o.family === r.family, sc: s.score(i, j) }));
    const nRel = others.filter((o) => o.rel).length;
    if (!nRel) continue;
    others.sort((a, b) => b.sc - a.sc);
    if (others[0]!.rel) nnHits++;
    let hits = 0, ap = 0;
    others.forEach((o, k) => {
      if (o.rel) {
        hits++;
        ap += hits / (k + 1);
      }
    });
    apSum += ap / nRel;
    count++;
  }
  return { nn: count ? nnHits / count : 0, map: count ? apSum / count : 0, queries: count };
}

/**
 * Geo-related: for each `geo-related` record, is its original within the top k of the ranking
 * by `s` over every part record except itself and its own duplicates-of-the-same-record?
 */
export function geoTopK(records: readonly BenchmarkRecord[], s: PairScores, k = 10): { rate: number; queries: number; misses: string[] } {
  let hits = 0, n = 0;
  const misses: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (r.labels.kind !== 'geo-related') continue;
    const target = records.findIndex((o) => o.labels.kind === 'original' && o.labels.partId === r.labels.partId);
    if (target < 0) continue;
    const ranked = records
      .map((o, j) => ({ j, o }))
      .filter(({ j, o }) => j !== i && o.labels.kind !== 'assembly' && !(o.labels.partId === r.labels.partId && o.labels.kind !== 'original'))
      .map(({ j }) => ({ j, sc: s.score(i, j) }))
      .sort((a, b) => b.sc - a.sc);
    const rank = ranked.findIndex((x) => x.j === target);
    n++;
    if (rank >= 0 && rank < k) hits++;
    else misses.push(`${r.id}@${rank + 1}`);
  }
  return { rate: n ? hits / n : 0, queries: n, misses };
}
