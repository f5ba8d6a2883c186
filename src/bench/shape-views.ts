// A probe for bench:similar (BENCH_SHAPE_VIEWS=1), not used by the service: views made for shape
// rather than for photos. Depth images from 42 directions, orthographic, all at the model's
// bounding-sphere scale (proportions between views are kept), each described about the sphere's
// centre by rings × sectors of coverage and nearness, reduced to the sectors' Fourier magnitudes
// per ring (in-plane rotation and mirroring drop out). Two models compare as the light field
// descriptor does: each view's closest view of the other, averaged both ways.
import type { Mesh } from '../geometry/mesh/mesh';
import { renderDepth } from '../geometry/output/render/render-view';
import { boundingSphere, viewpoints } from '../geometry/output/render/view';
import { viewMesh } from '../geometry/search/views/view-mesh';

const DIRECTIONS = 42;
const SIZE = 64;
const RINGS = 8;
const SECTORS = 16;
const HARMONICS = 5;
export const SHAPE_VIEW_DIM = RINGS * (HARMONICS + 1) * 2;

export interface ShapeViews {
  count: number;
  data: Float32Array;
}

export async function shapeViews(model: Mesh): Promise<ShapeViews> {
  const mesh = await viewMesh(model);
  const sphere = boundingSphere(mesh);
  const dirs = viewpoints(DIRECTIONS);
  const data = new Float32Array(dirs.length * SHAPE_VIEW_DIM);
  const cov = new Float64Array(RINGS * SECTORS),
    near = new Float64Array(RINGS * SECTORS),
    cnt = new Float64Array(RINGS * SECTORS);
  dirs.forEach((dir, v) => {
    const img = renderDepth(mesh, dir, SIZE, { sphere });
    cov.fill(0);
    near.fill(0);
    cnt.fill(0);
    const c = SIZE / 2;
    for (let y = 0; y < SIZE; y++)
      for (let x = 0; x < SIZE; x++) {
        const dx = x + 0.5 - c,
          dy = y + 0.5 - c;
        const r = Math.hypot(dx, dy) / c;
        if (r >= 1) continue;
        const ring = Math.floor(r * RINGS);
        let a = Math.atan2(dy, dx);
        if (a < 0) a += 2 * Math.PI;
        const cell = ring * SECTORS + (Math.floor((a / (2 * Math.PI)) * SECTORS) % SECTORS);
        const i = y * SIZE + x;
        cnt[cell]!++;
        if (img.mask[i]) {
          cov[cell]!++;
          near[cell]! += 1 - img.depth[i]!;
        }
      }
    const out = data.subarray(v * SHAPE_VIEW_DIM, (v + 1) * SHAPE_VIEW_DIM);
    let o = 0;
    for (const grid of [cov, near])
      for (let ring = 0; ring < RINGS; ring++)
        for (let h = 0; h <= HARMONICS; h++) {
          let re = 0,
            im = 0;
          for (let s = 0; s < SECTORS; s++) {
            const cell = ring * SECTORS + s;
            const val = cnt[cell]! ? grid[cell]! / cnt[cell]! : 0;
            re += val * Math.cos((2 * Math.PI * h * s) / SECTORS);
            im += val * Math.sin((2 * Math.PI * h * s) / SECTORS);
          }
          out[o++] = Math.hypot(re, im) / SECTORS;
        }
  });
  return { count: dirs.length, data };
}

function directed(a: ShapeViews, b: ShapeViews): number {
  const d = SHAPE_VIEW_DIM;
  let sum = 0;
  for (let i = 0; i < a.count; i++) {
    let best = Infinity;
    for (let j = 0; j < b.count; j++) {
      let s = 0;
      for (let k = 0; k < d && s < best; k++) s += Math.abs(a.data[i * d + k]! - b.data[j * d + k]!);
      if (s < best) best = s;
    }
    sum += best;
  }
  return sum / a.count;
}

export const shapeViewDistance = (a: ShapeViews, b: ShapeViews) => (directed(a, b) + directed(b, a)) / 2;
