// The one owner of how a part-to-part pair is scored: which pairs get the exact geometric
// comparison and how its outcome and the descriptor's combine. The engine (candidates from the
// index) and the search benchmark (every pair) both call it, so the benchmark measures the rule
// the service applies.
import { descriptorDistance, scoreFromDistance } from '../../geometry/descriptors/global-descriptor';
import comparePair, { type PairSide } from './pair-worker';

/** Part-to-part: candidates at or above this descriptor score get the exact comparison. */
export const EXACT_FLOOR = 98;

export interface PartToPartPair {
  score: number;
  relation?: 'mirrored' | 'scaled';
  scale?: number;
  transform?: number[];
  /** Whether the exact comparison ran. */
  exact: boolean;
}

/** Descriptor score of two part-to-part vectors (what the index ranks by). */
export function descriptorScore(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return scoreFromDistance(descriptorDistance(a, b));
}

/** Whether a candidate needs the exact comparison. */
export function needsExact(score: number): boolean {
  return score >= EXACT_FLOOR;
}

/** The pair's result by the rule, computed in this thread (the benchmark; the service uses the pair pool). */
export function comparePartToPart(a: PairSide, b: PairSide): PartToPartPair {
  const score = descriptorScore(a.global, b.global);
  if (!needsExact(score)) return { score, exact: false };
  const r = comparePair({ kind: 'part-to-part', a, b });
  return { score: r.score ?? score, transform: r.transform, exact: true };
}
