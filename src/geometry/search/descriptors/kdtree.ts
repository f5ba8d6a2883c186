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
    const o = this.order,
      p = this.points;
    while (hi > lo) {
      const pivot = p[o[(lo + hi) >> 1]! * 3 + axis]!;
      let i = lo,
        j = hi;
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

  /**
   * Node ranges of a query still to visit, as (lo, hi, depth) triples, with the squared distance
   * to the splitting plane a far side must beat when it is popped. Queries run millions of times
   * per pair of parts: an explicit stack, reused, instead of a closure and recursion per call.
   */
  private stack = new Int32Array(3 * 64);
  private planeD2 = new Float64Array(64);

  /** Index of the nearest point to (x, y, z) within `maxDist` (−1 if none), and its squared distance in `out[0]`. */
  nearest(x: number, y: number, z: number, maxDist = Infinity, out?: Float64Array): number {
    let best = -1;
    let bestD = maxDist * maxDist;
    const o = this.order,
      p = this.points,
      st = this.stack,
      pl = this.planeD2;
    st[0] = 0;
    st[1] = this.n;
    st[2] = 0;
    pl[0] = -1;
    let top = 1;
    // Near side first, the far side only if the plane is nearer than the best so far when it is
    // reached (the order of the recursive search, so ties resolve alike).
    while (top > 0) {
      top--;
      if (pl[top]! >= bestD) continue;
      const lo = st[top * 3]!,
        hi = st[top * 3 + 1]!,
        depth = st[top * 3 + 2]!;
      if (hi - lo <= 8) {
        for (let k = lo; k < hi; k++) {
          const i = o[k]! * 3;
          const dx = p[i]! - x,
            dy = p[i + 1]! - y,
            dz = p[i + 2]! - z;
          const d = dx * dx + dy * dy + dz * dz;
          if (d < bestD) {
            bestD = d;
            best = o[k]!;
          }
        }
        continue;
      }
      const axis = depth % 3;
      const mid = (lo + hi) >> 1;
      const m = o[mid]! * 3;
      const diff = (axis === 0 ? x : axis === 1 ? y : z) - p[m + axis]!;
      const dx = p[m]! - x,
        dy = p[m + 1]! - y,
        dz = p[m + 2]! - z;
      const d = dx * dx + dy * dy + dz * dz;
      if (d < bestD) {
        bestD = d;
        best = o[mid]!;
      }
      if (diff < 0) {
        top = this.push(top, mid + 1, hi, depth + 1, diff * diff);
        top = this.push(top, lo, mid, depth + 1, -1);
      } else {
        top = this.push(top, lo, mid, depth + 1, diff * diff);
        top = this.push(top, mid + 1, hi, depth + 1, -1);
      }
    }
    if (out) out[0] = bestD;
    return best;
  }

  /**
   * Calls `fn(index, squaredDistance)` for every point within `radius` of (x, y, z), until `fn`
   * returns true (the caller has what it needs).
   */
  within(x: number, y: number, z: number, radius: number, fn: (i: number, d2: number) => boolean | void): void {
    const r2 = radius * radius;
    const o = this.order,
      p = this.points,
      st = this.stack;
    st[0] = 0;
    st[1] = this.n;
    st[2] = 0;
    let top = 1;
    while (top > 0) {
      top--;
      const lo = st[top * 3]!,
        hi = st[top * 3 + 1]!,
        depth = st[top * 3 + 2]!;
      if (hi - lo <= 8) {
        for (let k = lo; k < hi; k++) {
          const i = o[k]! * 3;
          const dx = p[i]! - x,
            dy = p[i + 1]! - y,
            dz = p[i + 2]! - z;
          const d = dx * dx + dy * dy + dz * dz;
          if (d <= r2 && fn(o[k]!, d)) return;
        }
        continue;
      }
      const axis = depth % 3;
      const mid = (lo + hi) >> 1;
      const m = o[mid]! * 3;
      const diff = (axis === 0 ? x : axis === 1 ? y : z) - p[m + axis]!;
      const dx = p[m]! - x,
        dy = p[m + 1]! - y,
        dz = p[m + 2]! - z;
      const d = dx * dx + dy * dy + dz * dz;
      if (d <= r2 && fn(o[mid]!, d)) return;
      // The lower half is visited first, as the recursive search did.
      if (diff >= -radius) top = this.push(top, mid + 1, hi, depth + 1, -1);
      if (diff <= radius) top = this.push(top, lo, mid, depth + 1, -1);
    }
  }

  private push(top: number, lo: number, hi: number, depth: number, planeD2: number): number {
    if (top >= this.planeD2.length) {
      const st = new Int32Array(this.stack.length * 2);
      st.set(this.stack);
      this.stack = st;
      const pl = new Float64Array(this.planeD2.length * 2);
      pl.set(this.planeD2);
      this.planeD2 = pl;
    }
    this.stack[top * 3] = lo;
    this.stack[top * 3 + 1] = hi;
    this.stack[top * 3 + 2] = depth;
    this.planeD2[top] = planeD2;
    return top + 1;
  }
}
