// Classes proposed from examples: a model without a value for the class key takes the value its
// nearest labelled models (part-to-part descriptor) agree on. Pure: vectors and labels in,
// proposals out (the service reads them, the benchmark computes them).
import { scoreFromDistance } from './descriptors/global-descriptor';

/** Labelled neighbours that vote. */
export const PROPOSAL_NEIGHBOURS = 5;

export interface VectorSet {
  ids: readonly string[];
  dim: number;
  /** Row-major, ids.length × dim: part-to-part vectors (L2 between rows is the descriptor distance). */
  data: Float32Array;
}

export interface Proposal {
  value: string;
  /**
   * 0–1: 0.5 plus how much nearer (in part-to-part score points / 100) the nearest example of the
   * value is than the nearest example of any other value among the neighbours (none: 0). So 0.5
   * means as near to another class, 0.9 an example 40 points nearer. Chosen on the dev split
   * (npm run bench:classes) over the vote share, which says little with one example per class.
   */
  confidence: number;
  /** The labelled neighbours, nearest first, with their part-to-part descriptor score. */
  neighbours: { id: string; value: string; score: number }[];
}

/**
 * A proposal for each row of `vectors` that has no label, from the rows that have one (`labels`,
 * by id). Rows are compared once each against the labelled rows: O(unlabelled × labelled × dim).
 */
export function proposeClasses(vectors: VectorSet, labels: ReadonlyMap<string, string>, k = PROPOSAL_NEIGHBOURS): Map<string, Proposal> {
  const { ids, dim, data } = vectors;
  const labelled: number[] = [];
  ids.forEach((id, i) => labels.has(id) && labelled.push(i));
  const out = new Map<string, Proposal>();
  if (!labelled.length) return out;
  const best: { row: number; d2: number }[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (labels.has(ids[i]!)) continue;
    best.length = 0;
    const a = i * dim;
    for (const j of labelled) {
      const b = j * dim;
      const worst = best.length === k ? best[k - 1]!.d2 : Infinity;
      let s = 0;
      // Partial sums only grow: stop as soon as this row cannot enter the k nearest.
      for (let t = 0; t < dim && s < worst; t++) {
        const d = data[a + t]! - data[b + t]!;
        s += d * d;
      }
      if (s >= worst) continue;
      let at = best.length === k ? k - 1 : best.length;
      if (best.length < k) best.push({ row: j, d2: s });
      while (at > 0 && best[at - 1]!.d2 > s) {
        best[at] = best[at - 1]!;
        at--;
      }
      best[at] = { row: j, d2: s };
    }
    const neighbours = best.map((n) => ({ id: ids[n.row]!, value: labels.get(ids[n.row]!)!, score: scoreFromDistance(Math.sqrt(n.d2)) }));
    // The value takes the neighbours' votes weighted by their scores (a floor, so far ones still count).
    const votes = new Map<string, number>();
    for (const n of neighbours) votes.set(n.value, (votes.get(n.value) ?? 0) + Math.max(n.score, 1) / 100);
    let value = neighbours[0]!.value,
      top = -1;
    for (const [v, w] of votes) if (w > top || (w === top && v < value)) [value, top] = [v, w];
    const own = neighbours.find((n) => n.value === value)!.score;
    const other = neighbours.find((n) => n.value !== value)?.score ?? 0;
    out.set(ids[i]!, { value, confidence: Math.min(1, Math.max(0, 0.5 + (own - other) / 100)), neighbours });
  }
  return out;
}
