// A second, costlier look at the best candidates of an image search. The view descriptor
// (shape-features.ts) keeps only rotation-invariant magnitudes, which forget where things are
// relative to each other (the phase): two variants of one part family often differ just there.
// The polar signature keeps the layout: coverage and inner-edge strength of the view in rings ×
// sectors about the silhouette's centroid, scaled by its RMS radius (robust to perspective and a
// stray pixel, unlike the farthest point). Two signatures are compared at their best in-plane
// rotation (sector shift) and mirror flip.
import { silhouetteCentroid, type ViewImage } from './shape-features';

const RINGS = 8;
const SECTORS = 32;
/** The outermost ring ends at this many RMS radii of the silhouette (a long part reaches ~2). */
const REACH = 2.2;
/** Weight of the inner-edge half against the coverage half. */
const EDGE_WEIGHT = 0.5;
const CELLS = RINGS * SECTORS;
/** Bytes of a polar signature: coverage cells then edge cells, each 0..255. */
export const POLAR_LENGTH = 2 * CELLS;
/** Sub-samples per pixel side: the inner cells are only a few pixels large. */
const SUB = 2;
/** Farthest a sub-sample lies from its pixel's centre: half the diagonal of the sub-sample grid. */
const HALF_DIAGONAL = Math.SQRT2 * (0.5 - 0.5 / SUB);

/** The view's polar signature (see the module comment), or null when the view is empty. */
export function polarSignature(view: ViewImage, out = new Uint8Array(POLAR_LENGTH)): Uint8Array | null {
  const { width, height, mask, edges } = view;
  const centre = silhouetteCentroid(view);
  if (!centre) return null;
  const { area, cx, cy } = centre;
  let r2 = 0;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      const m = mask[i]!;
      if (m <= 0) continue;
      const dx = x + 0.5 - cx,
        dy = y + 0.5 - cy;
      r2 += m * (dx * dx + dy * dy);
    }
  }
  const reach = REACH * Math.sqrt(r2 / area);
  const sums = new Float64Array(POLAR_LENGTH);
  const ringsPerUnit = RINGS / reach,
    sectorsPerTurn = SECTORS / (2 * Math.PI);
  // Sub-samples lie within HALF_DIAGONAL of their pixel's centre. Most pixels are well inside one
  // cell: then one angle settles all their sub-samples (atan2 per sub-sample was most of the cost
  // of a signature). Pixels that may straddle a ring or sector border are split as the definition says.
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      const m = mask[i]!,
        e = edges ? edges[i]! : 0;
      if (m <= 0 && e <= 0) continue;
      const px = x + 0.5 - cx,
        py = y + 0.5 - cy;
      const r = Math.sqrt(px * px + py * py);
      const inner = Math.floor((r - HALF_DIAGONAL) * ringsPerUnit),
        outer = Math.floor((r + HALF_DIAGONAL) * ringsPerUnit);
      if (inner >= RINGS) continue;
      if (inner === outer && r > 2 * HALF_DIAGONAL) {
        // Angular half-width of the sub-samples seen from the centre: asin(u) ≤ u / √(1 − u²).
        const u = HALF_DIAGONAL / r,
          spread = u / Math.sqrt(1 - u * u) + 1e-9;
        const angle = turn(py, px);
        const s0 = Math.floor((angle - spread) * sectorsPerTurn),
          s1 = Math.floor((angle + spread) * sectorsPerTurn);
        if (s0 === s1 && s0 >= 0 && s1 < SECTORS) {
          const cell = inner * SECTORS + s0;
          sums[cell]! += SUB * SUB * m;
          sums[CELLS + cell]! += SUB * SUB * e;
          continue;
        }
      }
      for (let a = 0; a < SUB; a++) {
        const dy = y + (a + 0.5) / SUB - cy;
        for (let b = 0; b < SUB; b++) {
          const dx = x + (b + 0.5) / SUB - cx;
          const ring = Math.floor(Math.sqrt(dx * dx + dy * dy) * ringsPerUnit);
          if (ring >= RINGS) continue;
          const cell = ring * SECTORS + (Math.floor(turn(dy, dx) * sectorsPerTurn) % SECTORS);
          sums[cell]! += m;
          sums[CELLS + cell]! += e;
        }
      }
    }
  }
  // Means over each cell's full area (not just the pixels the crop holds: beyond it is background).
  for (let ring = 0; ring < RINGS; ring++) {
    const samples = ((Math.PI * reach * reach * (2 * ring + 1)) / (RINGS * RINGS * SECTORS)) * SUB * SUB;
    for (let s = 0; s < SECTORS; s++) {
      const c = ring * SECTORS + s;
      out[c] = Math.min(255, Math.round((255 * sums[c]!) / samples));
      out[CELLS + c] = Math.min(255, Math.round((255 * sums[CELLS + c]!) / samples));
    }
  }
  return out;
}

/** atan2(y, x) in [0, 2π). */
function turn(y: number, x: number): number {
  const a = Math.atan2(y, x);
  return a < 0 ? a + 2 * Math.PI : a;
}

/**
 * Distance of two polar signatures (at `qo` in `q` and `vo` in `v`) at their best sector shift
 * and mirror flip: weighted L1 of the cells, in cell units (0..1 each). Abandons a shift once it
 * is worse than the best so far, or than `below` (a distance the caller already has): then a
 * value ≥ `below` comes back.
 */
export function alignedDistance(q: Uint8Array, qo: number, v: Uint8Array, vo: number, below = Infinity): number {
  const bound = below * 255;
  let best = bound;
  for (let mirror = 0; mirror < 2; mirror++) {
    for (let shift = 0; shift < SECTORS; shift++) {
      let d = 0;
      for (let ring = 0; ring < RINGS && d < best; ring++) {
        const r = ring * SECTORS;
        for (let a = 0; a < SECTORS; a++) {
          const b = r + (mirror ? (2 * SECTORS - a + shift) % SECTORS : (a + shift) % SECTORS);
          d += Math.abs(q[qo + r + a]! - v[vo + b]!) + EDGE_WEIGHT * Math.abs(q[qo + CELLS + r + a]! - v[vo + CELLS + b]!);
        }
      }
      if (d < best) best = d;
    }
  }
  return best < bound ? best / 255 : below;
}

/** Levels a stored polar signature keeps: coverage in 16 (0..15), inner-edge strength in 8 (0..7, weighted half as much). */
const COVERAGE_LEVELS = 15;
const EDGE_LEVELS = 7;

/**
 * Polar signatures as a model's view signature stores them: one byte a cell, its coverage in the
 * low four bits and its inner-edge strength in the high three (`views` signatures of
 * POLAR_LENGTH values 0..255 in, `views` × POLAR_LENGTH / 2 bytes out). A coverage level is 17
 * of the 255 and an edge level 36: a photo's cell differs from its true view's by far more, and
 * the signature is only a second look, at POLAR_WEIGHT, after the descriptors.
 */
export function packPolar(signatures: Uint8Array): Uint8Array {
  const views = signatures.length / POLAR_LENGTH;
  const out = new Uint8Array(views * CELLS);
  for (let v = 0; v < views; v++)
    for (let c = 0; c < CELLS; c++) {
      const at = v * POLAR_LENGTH + c;
      out[v * CELLS + c] =
        Math.round((signatures[at]! * COVERAGE_LEVELS) / 255) | (Math.round((signatures[at + CELLS]! * EDGE_LEVELS) / 255) << 4);
    }
  return out;
}

/** The inverse of {@link packPolar}: the signatures of `views` views, values 0..255 as polarSignature makes them. */
export function unpackPolar(packed: Uint8Array, views: number): Uint8Array {
  const out = new Uint8Array(views * POLAR_LENGTH);
  for (let v = 0; v < views; v++)
    for (let c = 0; c < CELLS; c++) {
      const b = packed[v * CELLS + c]!;
      out[v * POLAR_LENGTH + c] = Math.round(((b & 15) * 255) / COVERAGE_LEVELS);
      out[v * POLAR_LENGTH + CELLS + c] = Math.round(((b >> 4) * 255) / EDGE_LEVELS);
    }
  return out;
}
