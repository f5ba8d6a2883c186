// The one owner of which part-to-part pairs get the exact comparison (duplicate-rule.ts): the
// engine (candidates from the index) and the search benchmark (every pair) both ask here, so the
// benchmark measures the rule the service applies.
import { NOT_SAME_MAX, plausibleRelations, type Size } from '../../geometry/search/duplicate-rule';
import { descriptorDistance, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import { comparePairOffThread } from './pair-pool';
import type { PairAnswer, PairSide } from './pair-worker';

/** Descriptor score of two part-to-part vectors (what the index ranks by). */
export function descriptorScore(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return scoreFromDistance(descriptorDistance(a, b));
}

/** Oriented extents (mm, descending) and outer area (mm²) from a geo-related vector (4 · ln extent first, ln(area) / 2 last). */
export function sizeFromGeo(geo: ArrayLike<number>): Size {
  return { extents: [Math.exp(geo[0]! / 4), Math.exp(geo[1]! / 4), Math.exp(geo[2]! / 4)], area: Math.exp(2 * geo[9]!) };
}

/**
 * Descriptor scores below which the rule never held on the dev split (every pair of it compared):
 * the lowest duplicate scored 92.6, mirror image 82.0, scaled copy 44.1 (the descriptor sees
 * size). Below them a pair is not compared exactly: it keeps its descriptor score.
 */
export const EXACT_FLOOR = { same: 70, scaled: 30 };

/**
 * Whether a candidate needs the exact comparison: only pairs of about one size, or of one
 * proportion, can be the same part, a mirror image or a scaled copy, and only when the descriptor
 * finds them alike enough (EXACT_FLOOR).
 */
export function needsExact(geoA: ArrayLike<number>, geoB: ArrayLike<number>, descriptor: number): boolean {
  const p = plausibleRelations(sizeFromGeo(geoA), sizeFromGeo(geoB), descriptor);
  return p.same ? descriptor >= EXACT_FLOOR.same : p.scale !== undefined && descriptor >= EXACT_FLOOR.scaled;
}

/** A candidate's score before (or without) the exact comparison: never a duplicate. */
export const provisionalScore = (descriptor: number) => Math.min(NOT_SAME_MAX, descriptor);

/** The pair's result by the rule, computed on the pair pool as the service's are (the benchmark scores every pair). */
export async function comparePartToPart(
  a: PairSide,
  b: PairSide,
  geoA: ArrayLike<number>,
  geoB: ArrayLike<number>,
): Promise<PairAnswer & { exact: boolean; score: number }> {
  const descriptor = descriptorScore(a.global, b.global);
  if (!needsExact(geoA, geoB, descriptor)) return { score: provisionalScore(descriptor), transform: [], exact: false };
  const r = await comparePairOffThread({ kind: 'part-to-part', a, b });
  return { ...r, score: r.score ?? 0, exact: true };
}
