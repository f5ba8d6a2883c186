// A compact static 3-D kd-tree over a flat point array (nearest neighbour and radius queries).

export class KdTree {
  readonly points: Float64Array;
  /** Permutation of point indices; node ranges index into it. */
  private readonly order: Uint32Array;
  private readonly n: number;

  constructor(points: Float64Array, count = points.length / 3) {
    this.points = points;
    this.n = count;
    this.order = new Uint32Array(count);
    for (let i = 0; i < count; i++) this.order[i] = i;
    this.build(0, count, 0);
  }

  /** Implicit tree: the median of [lo, hi) splits on `axis`; children are the two halves. */
  private build(lo: number, hi: number, depth: number): void {
    if (hi - lo <= 8) return;
    const axis = depth % 3;
    const mid = (lo + hi) >> 1;
    this.select(lo, hi - 1, mid, axis);
    this.build(lo, mid, depth + 1);
    this.build(mid + 1, hi, depth + 1);
  }

  /** Quickselect so that order[k] holds the k-th smallest coordinate on `axis` within [lo, hi]. */
  private select(lo: number, hi: number, k: number, axis: number): void {
    const o = this.order, p = this.points;
    while (hi > lo) {
      const pivot = p[o[(lo + hi) >> 1]! * 3 + axis]!;
      let i = lo, j = hi;
      while (i <= j) {
        while (p[o[i]! * 3 + axis]! < pivot) i++;
        while (p[o[j]! * 3 + axis]! > pivot) j--;
        if (i <= j) {
          const t = o[i]!;
          o[i] = o[j]!;
          o[j] = t;
          i++;
          j--;
        }
      }
      if (k <= j) hi = j;
      else if (k >= i) lo = i;
      else return;
    }
  }

  /** Index of the nearest point to (x, y, z) within `maxDist` (−1 if none), and its squared distance in `out[0]`. */
  nearest(x: number, y: number, z: number, maxDist = Infinity, out?: Float64Array): number {
    let best = -1;
    let bestD = maxDist * maxDist;
    const o = this.order, p = this.points;
    const q = [x, y, z];
    const visit = (lo: number, hi: number, depth: number): void => {
      if (hi - lo <= 8) {
        for (let k = lo; k < hi; k++) {
          const i = o[k]! * 3;
          const dx = p[i]! - x, dy = p[i + 1]! - y, dz = p[i + 2]! - z;
          const d = dx * dx + dy * dy + dz * dz;
          if (d < bestD) {
            bestD = d;
            best = o[k]!;
          }
        }
        return;
      }
      const axis = depth % 3;
      const mid = (lo + hi) >> 1;
      const m = o[mid]! * 3;
      const diff = q[axis]! - p[m + axis]!;
      {
        const dx = p[m]! - x, dy = p[m + 1]! - y, dz = p[m + 2]! - z;
        const d = dx * dx + dy * dy + dz * dz;
        if (d < bestD) {
          bestD = d;
          best = o[mid]!;
        }
      }
      if (diff < 0) {
        visit(lo, mid, depth + 1);
        if (diff * diff < bestD) visit(mid + 1, hi, depth + 1);
      } else {
        visit(mid + 1, hi, depth + 1);
        if (diff * diff < bestD) visit(lo, mid, depth + 1);
      }
    };
    visit(0, this.n, 0);
    if (out) out[0] = bestD;
    return best;
  }

  /** Calls `fn(index, squaredDistance)` for every point within `radius` of (x, y, z). */
  within(x: number, y: number, z: number, radius: number, fn: (i: number, d2: number) => void): void {
    const r2 = radius * radius;
    const o = this.order, p = this.points;
    const q = [x, y, z];
    const visit = (lo: number, hi: number, depth: number): void => {
      if (hi - lo <= 8) {
        for (let k = lo; k < hi; k++) {
          const i = o[k]! * 3;
          const dx = p[i]! - x, dy = p[i + 1]! - y, dz = p[i + 2]! - z;
          const d = dx * dx + dy * dy + dz * dz;
          if (d <= r2) fn(o[k]!, d);
        }
        return;
      }
      const axis = depth % 3;
      const mid = (lo + hi) >> 1;
      const m = o[mid]! * 3;
      const diff = q[axis]! - p[m + axis]!;
      const dx = p[m]! - x, dy = p[m + 1]! - y, dz = p[m + 2]! - z;
      const d = dx * dx + dy * dy + dz * dz;
      if (d <= r2) fn(o[mid]!, d);
      if (diff <= radius) visit(lo, mid, depth + 1);
      if (diff >= -radius) visit(mid + 1, hi, depth + 1);
    };
    visit(0, this.n, 0);
  }
}
