import { describe, expect, it } from 'vitest';
import { box, plateWithHoles, sphere } from '../../testing/fixtures';
import { mergeMeshes, applyToMesh, type Mesh, type Vec3 } from '../../mesh/mesh';
import { translation } from '../../mesh/transform';
import { renderDepth, renderView, type DepthImage } from './render-view';
import { boundingSphere, ISOMETRIC, lookFrom, viewpoints } from './view';

const count = (mask: Uint8Array) => mask.reduce((s, v) => s + v, 0);

/** The world point seen at pixel (x, y) with its depth: the inverse of the projection. */
function unproject(img: DepthImage, x: number, y: number): Vec3 {
  const { rotation: R, sphere, scale, depthRange } = img.view;
  const vx = (x + 0.5 - img.width / 2) / scale;
  const vy = (img.height / 2 - (y + 0.5)) / scale;
  const vz = sphere.radius - img.depth[y * img.width + x]! * depthRange;
  // R is orthonormal: world = centre + Rᵀ · view; R's rows sit at R[c * 4 + r].
  return [
    sphere.center[0] + R[0]! * vx + R[1]! * vy + R[2]! * vz,
    sphere.center[1] + R[4]! * vx + R[5]! * vy + R[6]! * vz,
    sphere.center[2] + R[8]! * vx + R[9]! * vy + R[10]! * vz,
  ];
}

describe('renderView', () => {
  it('sees a box along an axis as a rectangle of the expected pixel area', async () => {
    const { mesh } = await box([10, 20, 30]);
    for (const [direction, w, h] of [
      [[0, 0, 1], 10, 20],
      [[1, 0, 0], 20, 30],
      [[0, -1, 0], 10, 30],
    ] as const) {
      const r = renderView(mesh, { width: 256, height: 256, direction: [...direction] });
      const expected = w * h * r.view.scale ** 2;
      expect(Math.abs(count(r.mask) / expected - 1)).toBeLessThan(0.02);
    }
  });

  it('puts every covered pixel back on the surface (depth is true distance), nothing outside the mask', async () => {
    const { mesh } = await box([10, 20, 30]);
    const r = renderView(mesh, { width: 128, height: 128, direction: ISOMETRIC });
    const tol = 1.5 / r.view.scale; // a pixel and a half in model units
    let covered = 0;
    for (let y = 0; y < r.height; y++) {
      for (let x = 0; x < r.width; x++) {
        const i = y * r.width + x;
        if (!r.mask[i]) {
          expect(r.rgba[i * 4 + 3]).toBe(0);
          expect(r.depth[i]).toBe(1);
          expect(r.triangle[i]).toBe(-1);
          continue;
        }
        covered++;
        expect(r.rgba[i * 4 + 3]).toBe(255);
        expect(r.depth[i]).toBeGreaterThanOrEqual(0);
        expect(r.depth[i]).toBeLessThan(1);
        // The isometric eye sees the faces x = 10, y = 0 and z = 30.
        const [px, py, pz] = unproject(r, x, y);
        const onFace = Math.min(Math.abs(px - 10), Math.abs(py), Math.abs(pz - 30));
        expect(onFace).toBeLessThan(tol);
        expect(px).toBeGreaterThan(-tol);
        expect(py).toBeLessThan(20 + tol);
        expect(pz).toBeGreaterThan(-tol);
      }
    }
    expect(covered).toBeGreaterThan(2000);
  });

  it('orders depth by distance from the eye', async () => {
    // Three columns of different heights side by side, seen from above.
    const parts: Mesh[] = [];
    for (const [k, height] of [10, 20, 30].entries()) parts.push(applyToMesh((await box([8, 8, height])).mesh, translation(k * 10, 0, 0)));
    const mesh = mergeMeshes(parts);
    const r = renderView(mesh, { width: 200, height: 200, direction: [0, 0, 1] });
    const { sphere, depthRange, scale } = r.view;
    const at = (x: number, y: number) => {
      const px = Math.floor(r.width / 2 + (x - sphere.center[0]) * scale);
      const py = Math.floor(r.height / 2 - (y - sphere.center[1]) * scale);
      return r.depth[py * r.width + px]!;
    };
    const d = [at(4, 4), at(14, 4), at(24, 4)];
    expect(d[0]).toBeGreaterThan(d[1]!);
    expect(d[1]).toBeGreaterThan(d[2]!);
    [10, 20, 30].forEach((top, k) => expect(d[k]! * depthRange).toBeCloseTo(sphere.radius - (top - sphere.center[2]), 4));
  });

  it('shows the holes of a plate seen along their axis', async () => {
    const segments = 32;
    const part = await plateWithHoles({ length: 100, width: 60, thickness: 8, holes: [2, 2], holeDiameter: 8, segments });
    const r = renderView(part.mesh, { width: 256, height: 256, direction: [0, 0, 1] });
    const { sphere, scale } = r.view;
    const toPixel = (x: number, y: number) =>
      [Math.floor(r.width / 2 + (x - sphere.center[0]) * scale), Math.floor(r.height / 2 - (y - sphere.center[1]) * scale)] as const;
    const [x0, y1] = toPixel(0, 0);
    const [x1, y0] = toPixel(100, 60);
    let holePixels = 0;
    for (let y = y0 + 1; y < y1 - 1; y++) for (let x = x0 + 1; x < x1 - 1; x++) if (!r.mask[y * r.width + x]) holePixels++;
    const polygon = (segments / 2) * 4 * 4 * Math.sin((2 * Math.PI) / segments); // area of one 32-gon hole
    expect(Math.abs(holePixels / (4 * polygon * scale ** 2) - 1)).toBeLessThan(0.05);
    for (const [hx, hy] of [
      [100 / 3, 20],
      [200 / 3, 20],
      [100 / 3, 40],
      [200 / 3, 40],
    ]) {
      const [px, py] = toPixel(hx!, hy!);
      expect(r.mask[py * r.width + px], `hole at ${hx},${hy}`).toBe(0);
    }
    const [mx, my] = toPixel(50, 30);
    expect(r.mask[my * r.width + mx]).toBe(1);
  });

  it('culling back faces changes nothing for a closed part; open parts show their inside, darker', async () => {
    const { mesh } = await box([10, 10, 10]);
    const a = renderView(mesh, { width: 96, height: 96, direction: [1, 2, 3] });
    const b = renderView(mesh, { width: 96, height: 96, direction: [1, 2, 3], backFaces: 'cull' });
    expect(b.mask).toEqual(a.mask);
    expect(b.depth).toEqual(a.depth);

    // An open box: drop the two triangles of the top face (z = 10).
    const keep: number[] = [];
    for (let t = 0; t < mesh.indices.length; t += 3) {
      const top = [0, 1, 2].every((k) => mesh.positions[mesh.indices[t + k]! * 3 + 2] === 10);
      if (!top) keep.push(mesh.indices[t]!, mesh.indices[t + 1]!, mesh.indices[t + 2]!);
    }
    const open: Mesh = { positions: mesh.positions, indices: Uint32Array.from(keep) };
    const drawn = renderView(open, { width: 96, height: 96, direction: [0, 0, 1] });
    const culled = renderView(open, { width: 96, height: 96, direction: [0, 0, 1], backFaces: 'cull' });
    const closed = renderView(mesh, { width: 96, height: 96, direction: [0, 0, 1] });
    expect(count(drawn.mask)).toBe(count(closed.mask));
    expect(count(culled.mask)).toBeLessThan(count(closed.mask) / 10);
    const c = 48 * 96 + 48;
    expect(drawn.rgba[c * 4]!).toBeLessThan(closed.rgba[c * 4]!); // the inside of the bottom
    expect(drawn.depth[c]!).toBeGreaterThan(closed.depth[c]!);
  });

  it('smooth shading changes colours only: same triangles, depth and mask as flat', async () => {
    const { mesh } = await plateWithHoles();
    const flat = renderView(mesh, { width: 128, height: 128 });
    const smooth = renderView(mesh, { width: 128, height: 128, shading: 'smooth' });
    expect(smooth.triangle).toEqual(flat.triangle);
    expect(smooth.depth).toEqual(flat.depth);
    expect(smooth.rgba).not.toEqual(flat.rgba); // the hole walls
  });

  it('renders a 50k-triangle sphere watertight; timings printed', async () => {
    const part = await sphere({ radius: 25, triangles: 50_000 });
    const mesh = part.mesh;
    const tris = mesh.indices.length / 3;
    const d = renderDepth(mesh, [0.3, -0.5, 0.8], 256);
    const R = 25 * d.view.scale;
    let holes = 0;
    for (let y = 0; y < 256; y++) {
      for (let x = 0; x < 256; x++) {
        const rr = Math.hypot(x + 0.5 - 128, y + 0.5 - 128);
        if (rr < R - 1.5 && !d.mask[y * 256 + x]) holes++;
      }
    }
    expect(holes).toBe(0);
    expect(Math.abs(count(d.mask) / (Math.PI * R * R) - 1)).toBeLessThan(0.02);

    const best = (fn: () => unknown, n = 10) => {
      fn();
      let min = Infinity;
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        fn();
        min = Math.min(min, performance.now() - t0);
      }
      return min;
    };
    const plate = (await plateWithHoles({ holes: [8, 6], segments: 256 })).mesh;
    const s = boundingSphere(plate);
    const lines = [];
    for (const [name, m] of [
      ['sphere', mesh],
      ['plate with 48 holes', plate],
    ] as const) {
      const view = best(() => renderView(m, { width: 256, height: 256 }));
      const depth64 = best(() => renderDepth(m, [1, 2, 3], 64));
      const ms = m === plate ? s : boundingSphere(m);
      const depth64s = best(() => renderDepth(m, [1, 2, 3], 64, { sphere: ms }));
      lines.push(
        `${name} (${m.indices.length / 3} triangles): renderView 256² ${view.toFixed(1)} ms, renderDepth 64² ${depth64.toFixed(1)} ms (${depth64s.toFixed(1)} ms with the sphere given)`,
      );
    }
    console.log(`best of 10, ${tris} triangles:\n  ${lines.join('\n  ')}`);
  });
});

describe('renderDepth', () => {
  it('equals renderView with the same rotation', async () => {
    const { mesh } = await box([10, 20, 30]);
    const R = lookFrom([1, 2, 3]);
    const a = renderDepth(mesh, R, 64);
    const b = renderDepth(mesh, [1, 2, 3], 64);
    const c = renderView(mesh, { width: 64, height: 64, rotation: R, margin: 0 });
    expect(a.depth).toEqual(b.depth);
    expect(a.depth).toEqual(c.depth);
    expect(a.mask).toEqual(c.mask);
  });

  it('keeps one scale for all views of a part (the bounding sphere fills the image)', async () => {
    const { mesh } = await box([10, 20, 30]);
    const scales = viewpoints(20).map((v) => renderDepth(mesh, v, 64).view.scale);
    expect(new Set(scales).size).toBe(1);
    expect(scales[0]! * 2 * Math.hypot(5, 10, 15)).toBeCloseTo(64, 6);
  });
});

describe('viewpoints', () => {
  const minAngle = (v: Vec3[]) => {
    let m = Math.PI;
    for (let i = 0; i < v.length; i++) {
      for (let j = i + 1; j < v.length; j++) {
        const d = v[i]![0] * v[j]![0] + v[i]![1] * v[j]![1] + v[i]![2] * v[j]![2];
        m = Math.min(m, Math.acos(Math.max(-1, Math.min(1, d))));
      }
    }
    return (m * 180) / Math.PI;
  };

  it('gives unit directions, well spread', () => {
    for (const n of [6, 20, 42, 100]) {
      const v = viewpoints(n);
      expect(v).toHaveLength(n);
      for (const d of v) expect(Math.hypot(...d)).toBeCloseTo(1, 9);
      // The ideal spacing for n points is about sqrt(4π / n); well spread = not far below it.
      expect(minAngle(v)).toBeGreaterThan((0.75 * Math.sqrt((4 * Math.PI) / n) * 180) / Math.PI);
    }
    expect(minAngle(viewpoints(20))).toBeCloseTo(41.81, 1); // dodecahedron vertices
  });
});
