// Part-to-part below the duplicate rule: how far apart two parts are for "what else looks like
// this part?". The part-to-part descriptor decides alone while it finds the pair close; beyond
// VIEWS_BEYOND, where it is unsure, the views a designer would see (view-set-distance.ts) count
// half. A function of the pair alone, so a pair has one score whichever of its models asks.
// Measured by `npm run bench:similar` (src/bench/README.md); the duplicate rule (≥ 98) is
// duplicate-rule.ts's and is never decided here.

/**
 * Descriptor distance beyond which views count: 17 is a score of 62, the 90th percentile of
 * family variants on dev. Chosen on dev and real-dev together: gates of 12, 17 and 25 per pair
 * left dev at 0.85 · 0.84 (nearest neighbour · mAP) at 17 and 25, and took real-dev from
 * 0.84 · 0.86 to 0.89 · 0.89 at 12 and 17 (0.86 · 0.88 at 25; 0.89 · 0.88 at 17 with the mixed
 * distance kept at 17 or more); mixed for every pair, dev fell to 0.80 · 0.82.
 */
export const VIEWS_BEYOND = 17;

/**
 * Median distances between dev's models (300 models of 66 designs): the descriptor's and the
 * view sets'. Their ratio puts the view distance in descriptor units, so that the score curve
 * (global-descriptor.ts scoreFromDistance) keeps its anchor: unrelated designs at their median
 * distance still score 15.
 */
export const DESCRIPTOR_MEDIAN = 45.44;
export const VIEW_SET_MEDIAN = 1.0605;

/** The views' share of a pair's distance beyond VIEWS_BEYOND. */
export const VIEWS_SHARE = 0.5;

/**
 * The pair's distance in descriptor units from its descriptor distance and its view-set distance
 * (asked only beyond VIEWS_BEYOND; a model without views keeps the descriptor's distance).
 */
export function similarDistance(descriptor: number, views: () => number, share = VIEWS_SHARE): number {
  if (descriptor <= VIEWS_BEYOND) return descriptor;
  const v = views();
  if (!Number.isFinite(v)) return descriptor;
  // Never nearer than the gate: alike views reorder what the descriptor finds far apart, but do not
  // lift a pair above pairs it finds close (nor above 62, where the folder duplicates' descriptor
  // alone answers the same).
  return Math.max(VIEWS_BEYOND, (1 - share) * descriptor + (share * v * DESCRIPTOR_MEDIAN) / VIEW_SET_MEDIAN);
}
