import { describe, expect, it } from 'vitest';
import { buildPart, randomRotation } from '../../testing/benchmark-dataset';
import { prng } from '../descriptors/sampling';
import { describeImage } from './describe-image';
import { axisWeights, luminance, normaliseView, resampleSeparable } from './image-view';
import { sphere } from '../../testing/fixtures';
import { inPerspective, modelViews, VIEW_COUNT } from './model-views';
import { alignedDistance, POLAR_LENGTH, polarSignature } from './polar-signature';
import { segmentObject } from './segment';
import { describeView, VIEW_DESCRIPTOR_LENGTH, type ViewImage } from './shape-features';
import { syntheticPhoto } from '../../testing/synthetic-photo';
import {
  combinedDistances,
  ImageOrder,
  modelDistances,
  packViews,
  quantizeViews,
  refinedModelDistance,
  summedClosestBelow,
  VIEW_STEP,
  weighted,
} from './view-index';
import { viewMesh, VIEW_TRIANGLES } from './view-mesh';

/** An L-shaped silhouette with a round hole, drawn at `scale`, rotated by `angle`, optionally mirrored. */
function lShape(size: number, scale: number, angle: number, mirror = false): ViewImage {
  const mask = new Float32Array(size * size);
  const c = size / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      // Back to the shape's own frame.
      let u = (x + 0.5 - c) / scale,
        v = (y + 0.5 - c) / scale;
      [u, v] = [u * Math.cos(-angle) - v * Math.sin(-angle), u * Math.sin(-angle) + v * Math.cos(-angle)];
      if (mirror) u = -u;
      const inL = (u >= -10 && u <= 10 && v >= -10 && v <= -4) || (u >= -10 && u <= -4 && v >= -10 && v <= 10);
      const inHole = Math.hypot(u - 4, v + 7) < 1.5;
      mask[y * size + x] = inL && !inHole ? 1 : 0;
    }
  }
  return { width: size, height: size, mask };
}

function l1(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d;
}

describe('describeView', () => {
  it('does not change with scale, in-plane rotation and mirroring, but tells shapes apart', () => {
    const ref = describeView(lShape(128, 4, 0))!;
    expect(ref).toHaveLength(VIEW_DESCRIPTOR_LENGTH);
    const variants = [lShape(96, 3, 0.7), lShape(160, 6, 2.1), lShape(128, 4, 1.2, true)].map((v) => describeView(v)!);
    const square: ViewImage = {
      width: 64,
      height: 64,
      mask: Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 64 > 10 && i % 64 < 54 && i > 640 && i < 54 * 64 ? 1 : 0)),
    };
    const other = describeView(square)!;
    const far = l1(ref, other);
    for (const v of variants) expect(l1(ref, v)).toBeLessThan(far * 0.25);
  });

  it('is null for an empty view', () => {
    expect(describeView({ width: 8, height: 8, mask: new Uint8Array(64) })).toBeNull();
  });
});

describe('segmentObject', () => {
  it('finds an object with a through-hole on a graded, noisy background', () => {
    const w = 200,
      h = 150;
    const rand = prng(3);
    const px = new Uint8Array(w * h * 3);
    let inside = 0;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 3;
        const bg = 190 + (x / w) * 40 + (y / h) * 15;
        const r = Math.hypot(x - 100, y - 75);
        const obj = r < 50 && r > 15;
        if (obj) inside++;
        for (let c = 0; c < 3; c++) px[i + c] = Math.max(0, Math.min(255, (obj ? [120, 60, 40][c]! : bg) + (rand() - 0.5) * 12));
      }
    }
    const seg = segmentObject(px, w, h, 3);
    expect(seg.method).toBe('background');
    expect(seg.coverage * w * h).toBeGreaterThan(inside * 0.95);
    expect(seg.coverage * w * h).toBeLessThan(inside * 1.05);
    expect(seg.mask[75 * w + 100]).toBe(0); // the hole stays a hole
    expect(seg.mask[75 * w + 130]).toBe(1);
  });

  it('uses the alpha channel of a cut-out image', () => {
    const px = new Uint8Array(20 * 20 * 4);
    for (let i = 0; i < 400; i++) px[i * 4 + 3] = i % 20 > 5 && i % 20 < 15 && i > 100 && i < 300 ? 255 : 0;
    const seg = segmentObject(px, 20, 20, 4);
    expect(seg.method).toBe('alpha');
    expect(seg.coverage).toBeCloseTo(90 / 400, 2);
  });
});

describe('model views and matching', () => {
  it('describes a model from every view and finds a photographed part among others', async () => {
    const meshes = [await buildPart('gear', 0), await buildPart('bracket', 0), await buildPart('shaft', 1), await buildPart('flange', 0)];
    // (Its CPU cost is the image benchmark's figure, not a test's: no timed assertions.)
    const views = await Promise.all(meshes.map((m) => modelViews(m)));
    for (const v of views) {
      expect(v.count).toBe(VIEW_COUNT);
      expect(v.data).toHaveLength(VIEW_COUNT * VIEW_DESCRIPTOR_LENGTH);
      expect(v.signatures).toHaveLength(VIEW_COUNT * POLAR_LENGTH);
    }
    const pack = packViews(views.map((v, k) => ({ id: String(k), ...v })));
    const rand = prng(5);
    let hits = 0;
    for (const [k, mesh] of meshes.entries()) {
      const photo = syntheticPhoto(mesh, {
        width: 320,
        height: 240,
        rotation: randomRotation(rand),
        distance: 4,
        color: [200, 60, 40],
        background: [235, 235, 240],
        gradient: [20, 0],
        size: 0.7,
      });
      const d = describeImage(photo.rgb, photo.width, photo.height, 3);
      expect(d.ok).toBe(true);
      if (!d.ok) continue;
      const stage1 = modelDistances(pack, [d.descriptor]);
      const query = [{ weighted: weighted(d.descriptor), signature: d.signature }];
      const dist = combinedDistances(stage1, (i) =>
        refinedModelDistance(
          query,
          pack.data.subarray(pack.start[i]! * pack.dim, pack.start[i + 1]! * pack.dim),
          views[i]!.count,
          pack.dim,
          views[i]!.signatures,
        ),
      );
      if (dist.indexOf(Math.min(...dist)) === k) hits++;
    }
    expect(hits).toBeGreaterThanOrEqual(3);
  });

  it('ranks the first models exactly when only they are needed, and keeps ties', () => {
    const rand = prng(11);
    const models = Array.from({ length: 60 }, (_, k) => ({
      id: String(k),
      count: 5,
      data: Float32Array.from({ length: 5 * VIEW_DESCRIPTOR_LENGTH }, () => 0.1 * rand()),
    }));
    // A duplicate: the same views as model 7 (ties must survive the pruning).
    models.push({ id: 'dup', count: 5, data: models[7]!.data.slice() });
    const pack = packViews(models);
    const queries = [
      models[7]!.data.slice(0, VIEW_DESCRIPTOR_LENGTH).map((v) => v + 0.001),
      Float32Array.from({ length: VIEW_DESCRIPTOR_LENGTH }, () => 0.1 * rand()),
    ];
    const exact = modelDistances(pack, queries);
    const pruned = modelDistances(pack, queries, undefined, 10);
    const best = [...exact.keys()].sort((a, b) => exact[a]! - exact[b]!).slice(0, 10);
    for (const k of best) expect(pruned[k]).toBe(exact[k]);
    expect(Number.isFinite(pruned[models.length - 1]!)).toBe(true);
    // Most of the others were abandoned: that is the point.
    expect([...pruned].filter((d) => !Number.isFinite(d)).length).toBeGreaterThan(20);
  });

  it('simplifies a large mesh for the views without changing its silhouettes', async () => {
    const ball = (await sphere({ triangles: 50_000 })).mesh;
    const simple = await viewMesh(ball);
    expect(simple.indices.length / 3).toBeLessThanOrEqual(VIEW_TRIANGLES);
    const small = await buildPart('gear', 0);
    expect(await viewMesh(small)).toBe(small);
    const a = await modelViews(ball, 6),
      b = await modelViews(simple, 6);
    for (let v = 0; v < 6; v++) {
      const sa = a.signatures.subarray(v * POLAR_LENGTH, (v + 1) * POLAR_LENGTH),
        sb = b.signatures.subarray(v * POLAR_LENGTH, (v + 1) * POLAR_LENGTH);
      expect(alignedDistance(sa, 0, sb, 0)).toBeLessThan(2);
    }
  });
});

describe('polarSignature', () => {
  it('matches a rotated, rescaled and mirrored view closely and another shape not', () => {
    const ref = polarSignature(lShape(128, 4, 0))!;
    const square: ViewImage = {
      width: 64,
      height: 64,
      mask: Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 64 > 10 && i % 64 < 54 && i > 640 && i < 54 * 64 ? 1 : 0)),
    };
    const far = alignedDistance(ref, 0, polarSignature(square)!, 0);
    for (const v of [lShape(96, 3, Math.PI / 2), lShape(160, 6, (2 * Math.PI * 5) / 32), lShape(128, 4, Math.PI / 4, true)]) {
      expect(alignedDistance(ref, 0, polarSignature(v)!, 0)).toBeLessThan(far * 0.3);
    }
  });

  it('normalises a rendered view to the same size whatever the render resolution', () => {
    const big = lShape(200, 6, 0),
      small = lShape(60, 1.8, 0);
    const lum = (v: ViewImage) => luminance(new Uint8Array(v.width * v.height * 3).fill(128), 3);
    const a = normaliseView(big.mask, lum(big), big.width, big.height)!;
    const b = normaliseView(small.mask, lum(small), small.width, small.height)!;
    expect(Math.max(a.width, a.height)).toBe(Math.max(b.width, b.height));
  });
});

describe('separable resampling of a view', () => {
  /** The 2-D definition: box filter (overlap × scale²) when shrinking, bilinear when enlarging. */
  function direct(
    src: Float32Array,
    width: number,
    height: number,
    x0: number,
    y0: number,
    scale: number,
    ow: number,
    oh: number,
    pad: number,
  ): Float32Array {
    const out = new Float32Array(ow * oh);
    const at = (x: number, y: number) => (x < 0 || y < 0 || x >= width || y >= height ? 0 : src[y * width + x]!);
    for (let y = 0; y < oh; y++) {
      for (let x = 0; x < ow; x++) {
        let s = 0;
        if (scale >= 1) {
          const sx = x0 + (x - pad + 0.5) / scale - 0.5,
            sy = y0 + (y - pad + 0.5) / scale - 0.5;
          const ix = Math.floor(sx),
            iy = Math.floor(sy),
            fx = sx - ix,
            fy = sy - iy;
          s = (at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx) * (1 - fy) + (at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx) * fy;
        } else {
          const sx0 = x0 + (x - pad) / scale,
            sy0 = y0 + (y - pad) / scale;
          for (let yy = Math.floor(sy0); yy < Math.ceil(sy0 + 1 / scale); yy++) {
            for (let xx = Math.floor(sx0); xx < Math.ceil(sx0 + 1 / scale); xx++) {
              const wy = Math.min(sy0 + 1 / scale, yy + 1) - Math.max(sy0, yy),
                wx = Math.min(sx0 + 1 / scale, xx + 1) - Math.max(sx0, xx);
              if (wx > 0 && wy > 0) s += at(xx, yy) * wx * wy * scale * scale;
            }
          }
        }
        out[y * ow + x] = s;
      }
    }
    return out;
  }

  it('equals the 2-D box filter when shrinking and bilinear sampling when enlarging', () => {
    const rand = prng(21);
    const width = 37,
      height = 29;
    const src = Float32Array.from({ length: width * height }, () => rand());
    for (const [x0, y0, scale, ow, oh] of [
      [3, 2, 0.61, 25, 20],
      [0, 0, 0.37, 17, 14],
      [5, 4, 1.7, 40, 33],
      [1, 1, 1, 38, 30],
    ] as const) {
      const got = resampleSeparable(src, width, axisWeights(x0, scale, ow, 3, width), axisWeights(y0, scale, oh, 3, height));
      const want = direct(src, width, height, x0, y0, scale, ow, oh, 3);
      for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i]!, 5);
    }
  });
});

describe('polar signature sampling', () => {
  /** The definition: every pixel split into SUB × SUB sub-samples, each binned by its own ring and sector. */
  function bySubSamples(view: ViewImage): Uint8Array {
    const rings = 8,
      sectors = 32,
      sub = 2,
      cells = rings * sectors;
    const { width, height, mask, edges } = view;
    let area = 0,
      sx = 0,
      sy = 0;
    for (let y = 0, i = 0; y < height; y++)
      for (let x = 0; x < width; x++, i++)
        if (mask[i]! > 0) {
          area += mask[i]!;
          sx += mask[i]! * (x + 0.5);
          sy += mask[i]! * (y + 0.5);
        }
    const cx = sx / area,
      cy = sy / area;
    let r2 = 0;
    for (let y = 0, i = 0; y < height; y++)
      for (let x = 0; x < width; x++, i++)
        if (mask[i]! > 0) {
          const dx = x + 0.5 - cx,
            dy = y + 0.5 - cy;
          r2 += mask[i]! * (dx * dx + dy * dy);
        }
    const reach = 2.2 * Math.sqrt(r2 / area);
    const sums = new Float64Array(2 * cells);
    for (let y = 0, i = 0; y < height; y++) {
      for (let x = 0; x < width; x++, i++) {
        for (let a = 0; a < sub; a++) {
          for (let b = 0; b < sub; b++) {
            const dx = x + (b + 0.5) / sub - cx,
              dy = y + (a + 0.5) / sub - cy;
            const ring = Math.floor(Math.sqrt(dx * dx + dy * dy) * (rings / reach));
            if (ring >= rings) continue;
            let angle = Math.atan2(dy, dx);
            if (angle < 0) angle += 2 * Math.PI;
            const cell = ring * sectors + (Math.floor((angle * sectors) / (2 * Math.PI)) % sectors);
            sums[cell]! += mask[i]!;
            sums[cells + cell]! += edges ? edges[i]! : 0;
          }
        }
      }
    }
    const out = new Uint8Array(2 * cells);
    for (let ring = 0; ring < rings; ring++) {
      const samples = ((Math.PI * reach * reach * (2 * ring + 1)) / (rings * rings * sectors)) * sub * sub;
      for (let s = 0; s < sectors; s++) {
        const c = ring * sectors + s;
        out[c] = Math.min(255, Math.round((255 * sums[c]!) / samples));
        out[cells + c] = Math.min(255, Math.round((255 * sums[cells + c]!) / samples));
      }
    }
    return out;
  }

  it('bins whole pixels like their sub-samples, also for a symmetric view whose samples lie on sector borders', () => {
    const rand = prng(8);
    const blob = lShape(70, 2.7, 0.4);
    const edges = Float32Array.from(blob.mask, (m) => (m > 0 ? rand() : 0));
    // A square centred on a pixel corner: many sub-samples exactly on the 45° and axis borders.
    const square: ViewImage = {
      width: 40,
      height: 40,
      mask: Float32Array.from({ length: 1600 }, (_, i) => (i % 40 >= 10 && i % 40 < 30 && i >= 400 && i < 1200 ? 1 : 0)),
    };
    for (const view of [{ ...blob, edges }, square]) expect(Array.from(polarSignature(view)!)).toEqual(Array.from(bySubSamples(view)));
  });
});

describe('perspective views', () => {
  it('draws the part as a camera at a finite distance sees it: nearer points farther from the axis', () => {
    const mesh = { positions: Float32Array.from([1, 1, 1, -1, -1, -1, 1, -1, 1]), indices: Uint32Array.from([0, 1, 2]) };
    const sphere = { center: [0, 0, 0] as [number, number, number], radius: Math.sqrt(3) };
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const p = inPerspective(mesh, identity, sphere, 4).positions;
    // The camera looks down −z from +z: (1, 1, 1) is nearer than (−1, −1, −1), so it spreads more.
    expect(p[0]!).toBeGreaterThan(1);
    expect(-p[3]!).toBeLessThan(1);
    expect(p[2]).toBe(1);
    const far = inPerspective(mesh, identity, sphere, 1e6).positions;
    for (let i = 0; i < 9; i++) expect(far[i]).toBeCloseTo(mesh.positions[i]!, 4);
  });
});

describe('several images in one search', () => {
  it('takes first the image whose closest views are farthest, and gives the totals of any order', () => {
    const rand = prng(31);
    const dim = VIEW_DESCRIPTOR_LENGTH;
    const models = Array.from({ length: 50 }, (_, k) => ({
      id: String(k),
      count: 6,
      data: Float32Array.from({ length: 6 * dim }, () => 0.1 * rand()),
    }));
    const pack = packViews(models);
    // Image 0 sits on model 3's first view (close to something everywhere it matters); image 2 is far from everything.
    const queries = [
      models[3]!.data.slice(0, dim),
      Float32Array.from({ length: dim }, () => 0.1 * rand()),
      Float32Array.from({ length: dim }, () => 0.5 + 0.1 * rand()),
    ];
    const order = new ImageOrder(queries.map(weighted));
    for (let k = 0; k < ImageOrder.EVERY; k++) {
      const d = summedClosestBelow(order.queries, pack.data, pack.start[k]!, pack.start[k + 1]!, dim, Infinity, 1, order.bests);
      expect(Number.isFinite(d)).toBe(true);
      order.record();
    }
    expect(order.queries[0]).toEqual(weighted(queries[2]!));
    expect(order.queries[2]).toEqual(weighted(queries[0]!));
    // The search's totals are each model's sum of closest distances, whatever order it settled on.
    const got = modelDistances(pack, queries);
    const w = queries.map(weighted);
    for (let k = 0; k < models.length; k++) {
      let want = 0;
      for (const q of w)
        want += Math.min(
          ...Array.from({ length: 6 }, (_, v) => l1(q, pack.data.subarray((pack.start[k]! + v) * dim, (pack.start[k]! + v + 1) * dim))),
        );
      expect(got[k]).toBeCloseTo(want * VIEW_STEP, 3);
    }
  });
});

describe('view descriptors in bytes', () => {
  it('keeps a distance within a step per value of the float one', async () => {
    const views = await modelViews(await buildPart('bracket', 0));
    const bytes = quantizeViews(views.data);
    const dim = VIEW_DESCRIPTOR_LENGTH;
    // Nothing of a real part reaches the top of the byte range.
    expect(Math.max(...bytes)).toBeLessThan(255);
    const q = views.data.slice(3 * dim, 4 * dim).map((v) => v * 1.05);
    const wq = weighted(q);
    for (const v of [0, 10, 40]) {
      const exact = l1(wq, weighted(views.data.slice(v * dim, (v + 1) * dim))) * VIEW_STEP;
      const stored = l1(wq, bytes.subarray(v * dim, (v + 1) * dim)) * VIEW_STEP;
      expect(Math.abs(stored - exact)).toBeLessThan((dim * VIEW_STEP) / 2);
      expect(Math.abs(stored - exact) / exact).toBeLessThan(0.02);
    }
  });
});
