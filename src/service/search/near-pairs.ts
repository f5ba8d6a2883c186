// Every pair of rows of a matrix within an L2 radius, exactly (folder duplicates). A sweep: rows
// sorted by their projection onto one unit direction, each compared only with the rows after it
// whose projection is within the radius — |u·(x − y)| ≤ |x − y| for a unit u, so no pair within
// the radius is skipped. The direction is the data's principal one (power iteration): the one
// along which the rows spread most, so the windows hold fewest rows. A window's candidates are
// then rejected on partial sums over the coordinates of largest spread first (a partial sum of
// squares only grows); the distance of a pair that survives is summed in natural order, the
// same number a plain all-pairs loop computes.

export interface NearPair {
  i: number;
  j: number;
  /** Squared L2 distance (float64 sum over the float32 coordinates, natural order). */
  d2: number;
}

/** Power iterations for the principal direction (any unit direction is exact; this one prunes best). */
const POWER_ITERATIONS = 10;
/** Rows the direction is estimated from (evenly spaced): as good a direction, for a fraction of the passes. */
const DIRECTION_SAMPLE = 512;
/** Relative slack on bounds that only prune: float64 rounding never drops a pair at the radius. */
const SLACK = 1e-9;

/** More pairs are within the radius than the caller can take (a radius that links nearly everything). */
export class TooManyPairs extends Error {
  constructor(readonly maxPairs: number) {
    super(`more than ${maxPairs} pairs within the radius`);
    this.name = 'TooManyPairs';
  }
}

/** Pairs (i, j) of rows at L2 distance ≤ radius; throws {@link TooManyPairs} past `maxPairs`. */
export function pairsWithin(data: Float32Array, n: number, dim: number, radius: number, maxPairs = Infinity): NearPair[] {
  const out: NearPair[] = [];
  if (n < 2 || !(radius >= 0)) return out;
  const r2 = radius * radius;
  const { mean, variance } = moments(data, n, dim);
  const u = principalDirection(data, n, dim, mean, variance);
  const proj = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let p = 0;
    for (let k = 0, o = i * dim; k < dim; k++) p += (data[o + k]! - mean[k]!) * u[k]!;
    proj[i] = p;
  }
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => proj[a]! - proj[b]!);
  // Coordinates by decreasing spread: a far pair's partial sum passes r² after few of them.
  const coords = Int32Array.from({ length: dim }, (_, k) => k).sort((a, b) => variance[b]! - variance[a]!);
  // The rows in sweep order with their coordinates in that order, contiguous: the inner loop
  // reads memory in sequence (a million candidate pairs at 5,000 rows, most rejected in ~4 coordinates).
  const sorted = new Float32Array(n * dim);
  const sortedProj = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    const o = order[p]! * dim;
    for (let c = 0; c < dim; c++) sorted[p * dim + c] = data[o + coords[c]!]!;
    sortedProj[p] = proj[order[p]!]!;
  }
  const window = radius * (1 + SLACK) + SLACK;
  const reject = r2 * (1 + SLACK) + SLACK;
  for (let p = 0; p < n; p++) {
    const op = p * dim;
    const pp = sortedProj[p]!;
    for (let q = p + 1; q < n; q++) {
      if (sortedProj[q]! - pp > window) break;
      const oq = q * dim;
      let s = 0;
      for (let c = 0; c < dim && s <= reject; c++) {
        const d = sorted[op + c]! - sorted[oq + c]!;
        s += d * d;
      }
      if (s > reject) continue;
      const i = order[p]!,
        j = order[q]!;
      const oi = i * dim,
        oj = j * dim;
      let d2 = 0;
      for (let k = 0; k < dim; k++) {
        const d = data[oi + k]! - data[oj + k]!;
        d2 += d * d;
      }
      if (d2 > r2) continue;
      if (out.length >= maxPairs) throw new TooManyPairs(maxPairs);
      out.push({ i, j, d2 });
    }
  }
  return out;
}

function moments(data: Float32Array, n: number, dim: number) {
  const mean = new Float64Array(dim);
  const variance = new Float64Array(dim);
  for (let i = 0; i < n; i++) for (let k = 0, o = i * dim; k < dim; k++) mean[k]! += data[o + k]!;
  for (let k = 0; k < dim; k++) mean[k]! /= n;
  for (let i = 0; i < n; i++) {
    for (let k = 0, o = i * dim; k < dim; k++) {
      const d = data[o + k]! - mean[k]!;
      variance[k]! += d * d;
    }
  }
  for (let k = 0; k < dim; k++) variance[k]! /= n;
  return { mean, variance };
}

/** Unit principal direction of the centred rows (power iteration from the per-coordinate spread, on a sample of rows). */
function principalDirection(data: Float32Array, n: number, dim: number, mean: Float64Array, variance: Float64Array): Float64Array {
  let u = Float64Array.from(variance, (v) => Math.sqrt(v));
  if (!normalise(u)) {
    u = new Float64Array(dim);
    u[0] = 1;
    return u;
  }
  const stride = Math.max(1, Math.floor(n / DIRECTION_SAMPLE));
  for (let it = 0; it < POWER_ITERATIONS; it++) {
    const w = new Float64Array(dim);
    for (let i = 0; i < n; i += stride) {
      const o = i * dim;
      let p = 0;
      for (let k = 0; k < dim; k++) p += (data[o + k]! - mean[k]!) * u[k]!;
      for (let k = 0; k < dim; k++) w[k]! += p * (data[o + k]! - mean[k]!);
    }
    if (!normalise(w)) break;
    u = w;
  }
  return u;
}

function normalise(v: Float64Array): boolean {
  let s = 0;
  for (const x of v) s += x * x;
  const len = Math.sqrt(s);
  if (!(len > 0) || !Number.isFinite(len)) return false;
  for (let k = 0; k < v.length; k++) v[k]! /= len;
  return true;
}
