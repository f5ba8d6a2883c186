// Matching query images against every model's views, in two stages. First, over one flat typed
// array, a model's distance to a query image is its closest view's weighted L1 descriptor distance
// (every COARSE_STEP-th view); several images of one object add their distances (each image must
// be explained by some view of the model), and models that can no longer reach the requested
// page are abandoned early. Then the best RERANK_MODELS are compared again on all their views and
// by aligned polar signatures, which keep the layout the invariant descriptor forgets.
import { alignedDistance, POLAR_LENGTH } from './polar-signature';
import { VIEW_DESCRIPTOR_LENGTH } from './shape-features';
import { FITTED_VIEW_WEIGHTS } from './view-weights';

/** Per-dimension weights of the L1 distance, fitted on a training split of photos (view-weights.ts). */
export const VIEW_WEIGHTS: Float32Array = (() => {
  if (FITTED_VIEW_WEIGHTS.length !== VIEW_DESCRIPTOR_LENGTH)
    throw new Error('view-weights.ts does not fit the view descriptor: refit it (FIT_WEIGHTS=1 npm run bench:image)');
  return Float32Array.from(FITTED_VIEW_WEIGHTS);
})();

/**
 * Weighted descriptor values are held as bytes in steps of VIEW_STEP: a quarter of their float
 * size, so a model's view signature stays under 16 KB with its polar signatures and 20,000
 * models' descriptors fit a tenant's share of the cache (service/images/model-view-cache.ts).
 * The largest weighted value seen on the image benchmark's parts is 0.27; bytes reach 0.32. A
 * step's rounding moves a distance over 87 values by about 0.3 % of a true match's distance
 * (0.59), in either direction.
 */
export const VIEW_STEP = 1 / 800;

/** Models' views packed (weighted, in bytes) for scanning: model k owns views [start[k], start[k + 1]). */
export interface PackedViews {
  ids: string[];
  start: Uint32Array;
  data: Uint8Array;
  dim: number;
}

export function packViews(models: { id: string; count: number; data: Float32Array }[], dim = VIEW_DESCRIPTOR_LENGTH): PackedViews {
  const start = new Uint32Array(models.length + 1);
  for (let k = 0; k < models.length; k++) start[k + 1] = start[k]! + models[k]!.count;
  const data = new Uint8Array(start[models.length]! * dim);
  models.forEach((m, k) => data.set(quantizeViews(m.data.subarray(0, m.count * dim)), start[k]! * dim));
  return { ids: models.map((m) => m.id), start, data, dim };
}

/** A query descriptor as the scan compares it: weighted, in VIEW_STEP units (not rounded). */
export function weighted(descriptor: Float32Array): Float32Array {
  const dim = VIEW_WEIGHTS.length;
  const out = new Float32Array(descriptor.length);
  for (let i = 0; i < descriptor.length; i++) out[i] = (descriptor[i]! * VIEW_WEIGHTS[i % dim]!) / VIEW_STEP;
  return out;
}

/** A model's view descriptors as stored and scanned: weighted, rounded to VIEW_STEP, one byte each. */
export function quantizeViews(descriptors: Float32Array): Uint8Array {
  const dim = VIEW_WEIGHTS.length;
  const out = new Uint8Array(descriptors.length);
  for (let i = 0; i < descriptors.length; i++)
    out[i] = Math.min(255, Math.max(0, Math.round((descriptors[i]! * VIEW_WEIGHTS[i % dim]!) / VIEW_STEP)));
  return out;
}

/**
 * L1 distance (in VIEW_STEP units) between `dim` values of `q` and of `data` from offset `o`,
 * abandoned (some value ≥ `best` returned) once it reaches `best`. Eight terms per step and one
 * test per step: the scan over every view of every model is the cost of a search.
 */
export function l1Abandoning(q: Float32Array, data: Uint8Array, o: number, dim: number, best: number): number {
  let d = 0,
    i = 0;
  for (; i + 8 <= dim; i += 8) {
    const p = o + i;
    d +=
      Math.abs(q[i]! - data[p]!) +
      Math.abs(q[i + 1]! - data[p + 1]!) +
      Math.abs(q[i + 2]! - data[p + 2]!) +
      Math.abs(q[i + 3]! - data[p + 3]!) +
      Math.abs(q[i + 4]! - data[p + 4]!) +
      Math.abs(q[i + 5]! - data[p + 5]!) +
      Math.abs(q[i + 6]! - data[p + 6]!) +
      Math.abs(q[i + 7]! - data[p + 7]!);
    if (d >= best) return d;
  }
  for (; i < dim; i++) d += Math.abs(q[i]! - data[o + i]!);
  return d;
}

/**
 * Views the first stage scans: every COARSE_STEP-th (half of the Fibonacci sphere's, still spread
 * over all of it). The scan over every model is the cost of a search; the candidates it keeps are
 * then compared on every view (see {@link combinedDistances}).
 */
export const COARSE_STEP = 2;

/**
 * Sum over the weighted queries `wq` ({@link weighted}) of the closest view's distance among
 * every `step`-th view `from`..`to`, or Infinity as soon as the total cannot stay below `bound` (images add distances
 * ≥ 0, so a partial total at or above it already loses). With `bests`, a finite result also
 * leaves each image's closest distance there.
 */
export function summedClosestBelow(
  wq: Float32Array[],
  data: Uint8Array,
  from: number,
  to: number,
  dim: number,
  bound: number,
  step = 1,
  bests?: Float64Array,
): number {
  // Distances come and go in descriptor units; the scan runs in VIEW_STEP units.
  const scaledBound = bound / VIEW_STEP;
  let total = 0;
  for (let j = 0; j < wq.length; j++) {
    const q = wq[j]!;
    const limit = scaledBound - total;
    let best = limit;
    for (let v = from; v < to; v += step) {
      const d = l1Abandoning(q, data, v * dim, dim, best);
      if (d < best) best = d;
    }
    if (!(best < limit)) return Infinity;
    if (bests) bests[j] = best * VIEW_STEP;
    total += best;
  }
  return total * VIEW_STEP;
}

/**
 * The order in which a search of several images takes them for each model: the image whose
 * closest views have been farthest so far first, so that a model's partial total reaches the
 * bound, and the model is abandoned, after fewer images. The order comes from the running sums
 * of each image's closest distance over the models compared in full, sorted again every
 * {@link ImageOrder.EVERY} of them. Only the speed depends on it: a total is the same in any order
 * (up to rounding).
 */
export class ImageOrder {
  static readonly EVERY = 16;
  /** The weighted queries in the order to take them now. */
  queries: Float32Array[];
  /** Filled by {@link summedClosestBelow}, in the order of {@link queries}; pass it to {@link record}. */
  readonly bests: Float64Array;
  private readonly sums: Float64Array;
  private order: number[];
  private recorded = 0;

  constructor(private readonly all: Float32Array[]) {
    this.queries = all.slice();
    this.order = all.map((_, j) => j);
    this.bests = new Float64Array(all.length);
    this.sums = new Float64Array(all.length);
  }

  /** After a model was compared in full (a finite total): its per-image distances count towards the order. */
  record(): void {
    if (this.all.length < 2) return;
    for (let i = 0; i < this.order.length; i++) this.sums[this.order[i]!]! += this.bests[i]!;
    if (++this.recorded % ImageOrder.EVERY !== 0) return;
    this.order = this.order.slice().sort((a, b) => this.sums[b]! - this.sums[a]!);
    this.queries = this.order.map((j) => this.all[j]!);
  }
}

/**
 * The `need` smallest of the values offered so far (a binary max-heap): its largest is the bound
 * a model must beat to matter, which lets {@link summedClosestBelow} abandon most models early.
 */
export class SmallestK {
  private readonly heap: Float64Array;
  private size = 0;
  constructor(private readonly need: number) {
    this.heap = new Float64Array(Math.max(1, need));
  }
  /**
   * Models must come in below this to be among the `need` best (Infinity until `need` are in).
   * A hair above the largest kept value, so that a model tying with it (a duplicate part) is kept
   * and ranked by id like the others.
   */
  get bound(): number {
    return this.size < this.need ? Infinity : this.heap[0]! * (1 + 1e-6) + 1e-9;
  }
  offer(value: number): void {
    if (this.need <= 0 || !(value < this.bound)) return;
    if (this.size === this.need && value >= this.heap[0]!) return;
    const h = this.heap;
    if (this.size < this.need) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (h[parent]! >= value) break;
        h[i] = h[parent]!;
        i = parent;
      }
      h[i] = value;
      return;
    }
    // Replace the largest and sift down.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1,
        r = l + 1;
      let big = i,
        bigValue = value;
      if (l < this.size && h[l]! > bigValue) [big, bigValue] = [l, h[l]!];
      if (r < this.size && h[r]! > bigValue) big = r;
      if (big === i) break;
      h[i] = h[big]!;
      i = big;
    }
    h[i] = value;
  }
}

/**
 * Sum over `queries` of each model's closest-view distance (weighted L1), in pack order. With
 * `need`, only the `need` closest models are exact: the others may get Infinity (abandoned once
 * they could no longer be among them). `only` restricts the scan to some models (others get Infinity).
 */
export function modelDistances(pack: PackedViews, queries: Float32Array[], only?: Uint8Array, need = Infinity, step = 1): Float32Array {
  const { start, data, dim } = pack;
  const n = pack.ids.length;
  const out = new Float32Array(n);
  const images = new ImageOrder(queries.map(weighted));
  const top = new SmallestK(Math.min(need, n));
  for (let k = 0; k < n; k++) {
    if (only && !only[k]) {
      out[k] = Infinity;
      continue;
    }
    const d = summedClosestBelow(images.queries, data, start[k]!, start[k + 1]!, dim, top.bound, step, images.bests);
    if (Number.isFinite(d)) images.record();
    out[k] = d;
    top.offer(d);
  }
  return out;
}

/**
 * Distance (mean per image) → 0–100 %: 100 for an identical view, halving every
 * {@link MATCH_HALF_DISTANCE}. On the image benchmark a true match scores about 67 % (median
 * distance 0.59), other parts about 37 % (median 1.45).
 */
export function matchPercentage(distancePerImage: number): number {
  if (!Number.isFinite(distancePerImage)) return 0;
  return Math.round(1000 * 100 * Math.exp((-distancePerImage * Math.LN2) / MATCH_HALF_DISTANCE)) / 1000;
}

/** The distance at which matchPercentage gives 50 (from the image benchmark's distance spread). */
export const MATCH_HALF_DISTANCE = 1;

/** A query image as the search uses it: its weighted descriptor and its polar signature. */
export interface ViewQuery {
  weighted: Float32Array;
  signature: Uint8Array;
}

/** Models (best first by descriptor distance) whose views the polar signatures compare again. */
export const RERANK_MODELS = 20;
/** Per candidate and image: how many of its views closest by descriptor are compared again. */
const RERANK_VIEWS = 10;
/**
 * Weight of the aligned polar distance (per image) in a model's final distance. Chosen with
 * RERANK_VIEWS on the training split of photos (seeds 500,000 + …, as view-weights.ts), not on
 * the benchmark's: λ 0.02 with 10 views gave top-1 0.792 there (0.746 without the polar stage;
 * 16 views 0.796, at 60 % more re-rank work).
 */
export const POLAR_WEIGHT = 0.02;

/**
 * Second stage for one candidate model, summed over the query images: the closest of all its
 * views by descriptor (the first stage saw every COARSE_STEP-th), plus {@link POLAR_WEIGHT} ×
 * the aligned polar distance (polar-signature.ts) of its {@link RERANK_VIEWS} views closest by
 * descriptor, the best of them. `data` holds the model's weighted descriptors (`count` × `dim`),
 * `signatures` its views' polar signatures.
 */
export function refinedModelDistance(queries: ViewQuery[], data: Uint8Array, count: number, dim: number, signatures: Uint8Array): number {
  const d = new Float64Array(count);
  const order = Array.from({ length: count }, (_, v) => v);
  let total = 0;
  for (const q of queries) {
    for (let v = 0; v < count; v++) d[v] = l1Abandoning(q.weighted, data, v * dim, dim, Infinity) * VIEW_STEP;
    order.sort((a, b) => d[a]! - d[b]!);
    let polar = Infinity;
    for (let k = 0; k < Math.min(RERANK_VIEWS, count); k++) {
      const a = alignedDistance(q.signature, 0, signatures, order[k]! * POLAR_LENGTH, polar);
      if (a < polar) polar = a;
    }
    total += d[order[0]!]! + POLAR_WEIGHT * polar;
  }
  return total;
}

/**
 * Final distances from the first stage's `stage1` (any order; Infinity = abandoned): the first
 * {@link RERANK_MODELS} by it get `refinedOf(index)` ({@link refinedModelDistance}); the others
 * keep their first-stage order behind all of those (shifted just past the worst of them, if need
 * be), since their first-stage distance is no better.
 */
export function combinedDistances(stage1: ArrayLike<number>, refinedOf: (index: number) => number): Float64Array {
  const n = stage1.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => stage1[a]! - stage1[b]!);
  const out = new Float64Array(n).fill(NaN);
  let worst = -Infinity;
  for (let r = 0; r < Math.min(RERANK_MODELS, n); r++) {
    const i = order[r]!;
    if (!Number.isFinite(stage1[i]!)) continue;
    // A candidate without signatures (not expected) is ranked like those not compared again.
    const f = refinedOf(i);
    if (!Number.isFinite(f)) continue;
    if (f > worst) worst = f;
    out[i] = f;
  }
  let firstOther = Infinity;
  for (let i = 0; i < n; i++) if (Number.isNaN(out[i]!) && stage1[i]! < firstOther) firstOther = stage1[i]!;
  const shift = Number.isFinite(firstOther) && worst > firstOther ? worst - firstOther : 0;
  for (let i = 0; i < n; i++) if (Number.isNaN(out[i]!)) out[i] = stage1[i]! + shift;
  return out;
}
