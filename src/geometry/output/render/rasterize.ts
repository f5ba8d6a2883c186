// Z-buffered triangle rasterization in fixed point: the core of every software render.

/** Sub-pixel precision: vertices snap to 1/16 pixel, so edge functions are exact integers. */
const SHIFT = 4;
export const SUBPIXELS = 1 << SHIFT;
const SUB = SUBPIXELS;
const HALF = SUB / 2;
const LIMIT = 1 << 24;

/**
 * Vertices on screen: `x`, `y` in fixed point ({@link SUBPIXELS} per pixel, y pointing down;
 * pixel (i, j) is sampled at its centre, x = i + 0.5) and `z`, smaller = nearer.
 */
export interface ScreenVertices {
  x: Int32Array;
  y: Int32Array;
  z: Float64Array;
}

/**
 * Pixel coordinate → fixed point. Clamping keeps far off-screen vertices inside int32 and edge
 * function products below 2^53, where doubles are exact integers.
 */
export function snap(pixels: number): number {
  const f = pixels * SUB + 0.5; // Math.floor(f) rounds; it is faster than Math.round in V8
  return f >= LIMIT ? LIMIT : f <= -LIMIT ? -LIMIT : Math.floor(f);
}

/** Which triangles to skip, by their facing as seen on screen. */
export type Culling = 'none' | 'back';

/**
 * Rasterizes `indices` into a depth buffer (and optionally a triangle-id buffer).
 *
 * - `depth`: the z-buffer, `width × height`, initialised by the caller (e.g. to `Infinity`).
 * - `ids`: receives the index of the nearest triangle per pixel (callers fill it with −1).
 * - Front faces are those counter-clockwise as seen (the mesh convention); in y-down
 *   coordinates their signed area is negative. With `cull: 'back'` the others are skipped.
 *
 * Coverage follows the top-left rule on exact integer edge functions, so a pixel centre on an
 * edge shared by two triangles is drawn exactly once and closed meshes have no cracks.
 */
export function rasterize(
  screen: ScreenVertices,
  indices: Uint32Array,
  width: number,
  height: number,
  depth: Float32Array,
  ids: Int32Array | null,
  cull: Culling = 'none',
): void {
  const nt = (indices.length / 3) | 0;
  const { x: fx, y: fy, z: sz } = screen;
  const maxPx = width - 1;
  const maxPy = height - 1;
  for (let t = 0; t < nt; t++) {
    const i0 = indices[t * 3]!;
    const i1 = indices[t * 3 + 1]!;
    const i2 = indices[t * 3 + 2]!;
    const x0 = fx[i0]!,
      y0 = fy[i0]!;
    let x1 = fx[i1]!,
      y1 = fy[i1]!;
    let x2 = fx[i2]!,
      y2 = fy[i2]!;
    // Bounding box in pixel indices whose centres (p·SUB + HALF) can be covered.
    const minX = x0 < x1 ? (x0 < x2 ? x0 : x2) : x1 < x2 ? x1 : x2;
    const maxX = x0 > x1 ? (x0 > x2 ? x0 : x2) : x1 > x2 ? x1 : x2;
    const minY = y0 < y1 ? (y0 < y2 ? y0 : y2) : y1 < y2 ? y1 : y2;
    const maxY = y0 > y1 ? (y0 > y2 ? y0 : y2) : y1 > y2 ? y1 : y2;
    // ceil((m − HALF) / SUB) = floor((m + HALF − 1) / SUB); >> floors.
    let px0 = (minX + HALF - 1) >> SHIFT;
    let px1 = (maxX - HALF) >> SHIFT;
    let py0 = (minY + HALF - 1) >> SHIFT;
    let py1 = (maxY - HALF) >> SHIFT;
    if (px0 < 0) px0 = 0;
    if (py0 < 0) py0 = 0;
    if (px1 > maxPx) px1 = maxPx;
    if (py1 > maxPy) py1 = maxPy;
    if (px0 > px1 || py0 > py1) continue; // covers no pixel centre (most tiny triangles end here)

    let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
    if (area === 0) continue;
    let z1 = sz[i1]!,
      z2 = sz[i2]!;
    if (area > 0) {
      // Clockwise as seen: a back face.
      if (cull === 'back') continue;
    } else {
      // Swap two corners so the edge functions below are positive inside.
      const tx = x1;
      x1 = x2;
      x2 = tx;
      const ty = y1;
      y1 = y2;
      y2 = ty;
      const tz = z1;
      z1 = z2;
      z2 = tz;
      area = -area;
    }
    const z0 = sz[i0]!;
    const inv = 1 / area;

    // Edge functions: w0 for edge 1→2 (weight of corner 0), w1 for 2→0, w2 for 0→1.
    const a0 = -(y2 - y1) * SUB,
      b0 = (x2 - x1) * SUB;
    const a1 = -(y0 - y2) * SUB,
      b1 = (x0 - x2) * SUB;
    const a2 = -(y1 - y0) * SUB,
      b2 = (x1 - x0) * SUB;
    // Top-left rule: a pixel centre exactly on an edge belongs to the triangle only if that edge
    // is a top or a left edge; for the others require w ≥ 1 (values are integers).
    const bias0 = topLeft(x2 - x1, y2 - y1) ? 0 : 1;
    const bias1 = topLeft(x0 - x2, y0 - y2) ? 0 : 1;
    const bias2 = topLeft(x1 - x0, y1 - y0) ? 0 : 1;
    const sx = px0 * SUB + HALF,
      sy = py0 * SUB + HALF;
    let r0 = (x2 - x1) * (sy - y1) - (y2 - y1) * (sx - x1);
    let r1 = (x0 - x2) * (sy - y2) - (y0 - y2) * (sx - x2);
    let r2 = (x1 - x0) * (sy - y0) - (y1 - y0) * (sx - x0);
    const zs0 = z0 * inv,
      zs1 = z1 * inv,
      zs2 = z2 * inv;

    const dz = a0 * zs0 + a1 * zs1 + a2 * zs2;
    const span = px1 - px0;
    if (span < 8) {
      // Small triangles (most of them at descriptor sizes): test each pixel centre.
      for (let py = py0; py <= py1; py++, r0 += b0, r1 += b1, r2 += b2) {
        let w0 = r0,
          w1 = r1,
          w2 = r2;
        for (let i = py * width + px0, end = i + span; i <= end; i++, w0 += a0, w1 += a1, w2 += a2) {
          if (w0 < bias0 || w1 < bias1 || w2 < bias2) continue;
          const z = w0 * zs0 + w1 * zs1 + w2 * zs2;
          if (z < depth[i]!) {
            depth[i] = z;
            if (ids) ids[i] = t;
          }
        }
      }
      continue;
    }
    for (let py = py0; py <= py1; py++, r0 += b0, r1 += b1, r2 += b2) {
      // The covered run of this row, solved exactly from the three edge functions (integers
      // below 2^53, so the quotients round to the right side of every integer).
      let lo = 0,
        hi = span;
      if (a0 > 0) lo = Math.max(lo, Math.ceil((bias0 - r0) / a0));
      else if (a0 < 0) hi = Math.min(hi, Math.floor((r0 - bias0) / -a0));
      else if (r0 < bias0) continue;
      if (a1 > 0) lo = Math.max(lo, Math.ceil((bias1 - r1) / a1));
      else if (a1 < 0) hi = Math.min(hi, Math.floor((r1 - bias1) / -a1));
      else if (r1 < bias1) continue;
      if (a2 > 0) lo = Math.max(lo, Math.ceil((bias2 - r2) / a2));
      else if (a2 < 0) hi = Math.min(hi, Math.floor((r2 - bias2) / -a2));
      else if (r2 < bias2) continue;
      if (lo > hi) continue;
      let z = (r0 + a0 * lo) * zs0 + (r1 + a1 * lo) * zs1 + (r2 + a2 * lo) * zs2;
      const row = py * width + px0;
      for (let i = row + lo, end = row + hi; i <= end; i++, z += dz) {
        if (z < depth[i]!) {
          depth[i] = z;
          if (ids) ids[i] = t;
        }
      }
    }
  }
}

/** With y down and positive-area winding: a top edge runs in +x, a left edge runs up (−y). */
function topLeft(dx: number, dy: number): boolean {
  return dy < 0 || (dy === 0 && dx > 0);
}
