import { describe, expect, it } from 'vitest';
import { buildPart, randomRotation } from '../descriptors/benchmark-dataset';
import { prng } from '../descriptors/sampling';
import { describeImage } from './describe-image';
import { luminance, normaliseView } from './image-view';
import { sphere } from '../fixtures';
import { modelViews, VIEW_COUNT } from './model-views';
import { alignedDistance, POLAR_LENGTH, polarSignature } from './polar-signature';
import { segmentObject } from './segment';
import { describeView, VIEW_DESCRIPTOR_LENGTH, type ViewImage } from './shape-features';
import { syntheticPhoto } from './synthetic-photo';
import { combinedDistances, modelDistances, packViews, refinedModelDistance, weighted } from './view-index';
import { viewMesh, VIEW_TRIANGLES } from './view-mesh';

/** An L-shaped silhouette with a round hole, drawn at `scale`, rotated by `angle`, optionally mirrored. */
function lShape(size: number, scale: number, angle: number, mirror = false): ViewImage {
  const mask = new Float32Array(size * size);
  const c = size / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      // Back to the shape's own frame.
      let u = (x + 0.5 - c) / scale, v = (y + 0.5 - c) / scale;
      [u, v] = [u * Math.cos(-angle) - v * Math.sin(-angle), u * Math.sin(-angle) + v * Math.cos(-angle)];
      if (mirror) u = -u;
      const inL = (u >= -10 && u <= 10 && v >= -10 && v <= -4) || (u >= -10 && u <= -4 && v >= -10 && v <= 10);
      const inHole = Math.hypot(u - 4, v + 7) < 1.5;
      mask[y * size + x] = inL && !inHole ? 1 : 0;
    }
  }
  return { width: size, height: size, mask };
}

function l1(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d;
}

describe('describeView', () => {
  it('does not change with scale, in-plane rotation and mirroring, but tells shapes apart', () => {
    const ref = describeView(lShape(128, 4, 0))!;
    expect(ref).toHaveLength(VIEW_DESCRIPTOR_LENGTH);
    const variants = [lShape(96, 3, 0.7), lShape(160, 6, 2.1), lShape(128, 4, 1.2, true)].map((v) => describeView(v)!);
    const square: ViewImage = { width: 64, height: 64, mask: Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 64 > 10 && i % 64 < 54 && i > 640 && i < 54 * 64 ? 1 : 0)) };
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
    const w = 200, h = 150;
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
      const photo = syntheticPhoto(mesh, { width: 320, height: 240, rotation: randomRotation(rand), distance: 4, color: [200, 60, 40], background: [235, 235, 240], gradient: [20, 0], size: 0.7 });
      const d = describeImage(photo.rgb, photo.width, photo.height, 3);
      expect(d.ok).toBe(true);
      if (!d.ok) continue;
      const stage1 = modelDistances(pack, [d.descriptor]);
      const query = [{ weighted: weighted(d.descriptor), signature: d.signature }];
      const dist = combinedDistances(stage1, (i) => refinedModelDistance(query, pack.data.subarray(pack.start[i]! * pack.dim, pack.start[i + 1]! * pack.dim), views[i]!.count, pack.dim, views[i]!.signatures));
      if (dist.indexOf(Math.min(...dist)) === k) hits++;
    }
    expect(hits).toBeGreaterThanOrEqual(3);
  });

  it('ranks the first models exactly when only they are needed, and keeps ties', () => {
    const rand = prng(11);
    const models = Array.from({ length: 60 }, (_, k) => ({ id: String(k), count: 5, data: Float32Array.from({ length: 5 * VIEW_DESCRIPTOR_LENGTH }, () => rand()) }));
    // A duplicate: the same views as model 7 (ties must survive the pruning).
    models.push({ id: 'dup', count: 5, data: models[7]!.data.slice() });
    const pack = packViews(models);
    const queries = [models[7]!.data.slice(0, VIEW_DESCRIPTOR_LENGTH).map((v) => v + 0.01), Float32Array.from({ length: VIEW_DESCRIPTOR_LENGTH }, () => rand())];
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
    const a = await modelViews(ball, 6), b = await modelViews(simple, 6);
    for (let v = 0; v < 6; v++) {
      const sa = a.signatures.subarray(v * POLAR_LENGTH, (v + 1) * POLAR_LENGTH), sb = b.signatures.subarray(v * POLAR_LENGTH, (v + 1) * POLAR_LENGTH);
      expect(alignedDistance(sa, 0, sb, 0)).toBeLessThan(2);
    }
  });
});

describe('polarSignature', () => {
  it('matches a rotated, rescaled and mirrored view closely and another shape not', () => {
    const ref = polarSignature(lShape(128, 4, 0))!;
    const square: ViewImage = { width: 64, height: 64, mask: Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 64 > 10 && i % 64 < 54 && i > 640 && i < 54 * 64 ? 1 : 0)) };
    const far = alignedDistance(ref, 0, polarSignature(square)!, 0);
    for (const v of [lShape(96, 3, Math.PI / 2), lShape(160, 6, (2 * Math.PI * 5) / 32), lShape(128, 4, Math.PI / 4, true)]) {
      expect(alignedDistance(ref, 0, polarSignature(v)!, 0)).toBeLessThan(far * 0.3);
    }
  });

  it('normalises a rendered view to the same size whatever the render resolution', () => {
    const big = lShape(200, 6, 0), small = lShape(60, 1.8, 0);
    const lum = (v: ViewImage) => luminance(new Uint8Array(v.width * v.height * 3).fill(128), 3);
    const a = normaliseView(big.mask, lum(big), big.width, big.height)!;
    const b = normaliseView(small.mask, lum(small), small.width, small.height)!;
    expect(Math.max(a.width, a.height)).toBe(Math.max(b.width, b.height));
  });
});
