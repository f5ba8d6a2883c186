import { describe, expect, it } from 'vitest';
import { loadManifold, manifoldToMesh } from '../../testing/fixtures';
import { applyToMesh, mergeMeshes, type Mesh } from '../../mesh/mesh';
import { transformPoint } from '../../mesh/transform';
import { weld } from '../../mesh/mesh-facts';
import { chordErrors } from './chord';
import { randomRigid } from '../../testing/benchmark-dataset';
import { outerSurface, outerSurfaceInGrid } from './outer-surface';
import { prng } from './sampling';
import { partMesh } from '../../../bench/outer-surface';

/** Area of the triangles whose centroid passes `where`. */
function area(m: Mesh, where: (c: [number, number, number]) => boolean): number {
  const p = m.positions,
    idx = m.indices;
  let sum = 0;
  for (let t = 0; t < idx.length; t += 3) {
    const [a, b, c] = [idx[t]! * 3, idx[t + 1]! * 3, idx[t + 2]! * 3];
    const centroid = [0, 1, 2].map((k) => (p[a + k]! + p[b + k]! + p[c + k]!) / 3) as [number, number, number];
    if (!where(centroid)) continue;
    const u = [0, 1, 2].map((k) => p[b + k]! - p[a + k]!),
      v = [0, 1, 2].map((k) => p[c + k]! - p[a + k]!);
    sum += 0.5 * Math.hypot(u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!);
  }
  return sum;
}

describe('outer surface', () => {
  it('keeps the wall of a narrow bore in a part cut into two bodies, turned against the grid', async () => {
    const { Manifold } = await loadManifold();
    // A 2.4 mm blind bore, 30 mm deep, in a 100 × 60 × 40 block: 2–3 cells of the grid across,
    // closed off to the flood by its own rasterised wall.
    const bore = Manifold.cylinder(31, 1.2, 1.2, 32).translate([30, 30, 10]);
    const block = Manifold.cube([100, 60, 40]).subtract(bore);
    const [x, y] = block.splitByPlane([1, 0.3, 0.2], 50);
    const rand = prng(11);
    for (let turn = 0; turn < 4; turn++) {
      const placement = randomRigid(rand, 50);
      const mesh = weld(applyToMesh(mergeMeshes([manifoldToMesh(x), manifoldToMesh(y)]), placement)).mesh;
      // The bore's axis, turned with the part: its wall is every face within 1.3 mm of it, above the bottom.
      const o = transformPoint(placement, [30, 30, 10.05]),
        end = transformPoint(placement, [30, 30, 41]);
      const d = [0, 1, 2].map((k) => (end[k]! - o[k]!) / 30.95);
      const inBore = (c: [number, number, number]) => {
        const v = [0, 1, 2].map((k) => c[k]! - o[k]!);
        const along = v[0]! * d[0]! + v[1]! * d[1]! + v[2]! * d[2]!;
        return along > 0 && Math.hypot(v[0]! - along * d[0]!, v[1]! - along * d[1]!, v[2]! - along * d[2]!) < 1.3;
      };
      const outer = outerSurface(mesh);
      expect(area(outer.mesh, inBore)).toBeGreaterThan(0.95 * 2 * Math.PI * 1.2 * 30 * Math.cos(Math.PI / 32));
      // The cut's two faces are still dropped.
      expect(outer.hiddenShare).toBeGreaterThan(0.15);
    }
    for (const s of [bore, block, x, y]) s.delete();
  });

  it('finds the same outer surface however the file turned the part', async () => {
    // A block cut in two around an inner body (src/bench/outer-surface.ts), turned in space: the
    // grid's cells lie along the file's axes, so without the part's own frame its narrow gaps fell
    // into other cells and each placement dropped another share of the surface.
    const base = await partMesh(2, 1500);
    const rand = prng(5);
    const shares: number[] = [];
    for (let turn = 0; turn < 4; turn++) {
      const mesh = weld(applyToMesh(base, randomRigid(rand, 50))).mesh;
      const o = outerSurface(mesh);
      shares.push(o.hiddenShare);
      expect(area(o.mesh, () => true)).toBeCloseTo(area(mesh, () => true) * (1 - o.hiddenShare), 0);
    }
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThan(0.002);
  });

  it("drops a pin's shank and its hole's wall where two bodies' tessellations of one curve touch, and keeps a thin tube's two walls", async () => {
    const { Manifold } = await loadManifold();
    // A 3 mm plate, 200 mm long (the grid's cells 1.6 mm: the plate two cells thick, so
    // the shank inside is within a cell of the outside), its 10 mm hole in 24 facets; a pin of
    // the same diameter in 17, through it: no vertex of one lies on the other.
    const plate = Manifold.cube([200, 40, 3], true).subtract(Manifold.cylinder(5, 5, 5, 24, true));
    const pin = Manifold.cylinder(16, 5, 5, 17)
      .rotate([0, 0, 180 / 17 + 2])
      .translate([0, 0, -4]);
    const mesh = weld(applyToMesh(mergeMeshes([manifoldToMesh(plate), manifoldToMesh(pin)]), randomRigid(prng(21), 50))).mesh;
    const inHole = (() => {
      const placement = randomRigid(prng(21), 50);
      const o = transformPoint(placement, [0, 0, 0]),
        up = transformPoint(placement, [0, 0, 1]);
      const d = [0, 1, 2].map((k) => up[k]! - o[k]!);
      return (c: [number, number, number]) => {
        const v = [0, 1, 2].map((k) => c[k]! - o[k]!);
        const along = v[0]! * d[0]! + v[1]! * d[1]! + v[2]! * d[2]!;
        return Math.abs(along) < 1.4 && Math.hypot(v[0]! - along * d[0]!, v[1]! - along * d[1]!, v[2]! - along * d[2]!) < 5.3;
      };
    })();
    const wall = 2 * 2 * Math.PI * 5 * 2.8;
    // Without the chord errors the flat faces' tolerance finds neither on the other.
    expect(area(outerSurface(mesh).mesh, inHole)).toBeGreaterThan(0.5 * wall);
    const outer = outerSurface(mesh, chordErrors(mesh));
    expect(area(outer.mesh, inHole)).toBeLessThan(0.05 * wall);
    // Nothing else: the hidden area is the hole's wall and the shank in it (3 mm deep).
    const hidden = outer.hiddenShare * area(mesh, () => true);
    expect(hidden).toBeGreaterThan(0.9 * 2 * 2 * Math.PI * 5 * 3);
    expect(hidden).toBeLessThan(1.1 * 2 * 2 * Math.PI * 5 * 3);
    // One body: a 12-facet tube with a 0.4 mm wall, thinner than its facets' chord errors, keeps both.
    const tube = weld(
      manifoldToMesh(Manifold.cylinder(20, 5, 5, 12).subtract(Manifold.cylinder(22, 4.6, 4.6, 12).translate([0, 0, -1]))),
    ).mesh;
    const kept = outerSurface(tube, chordErrors(tube));
    expect(kept.hiddenShare).toBe(0);
    for (const s of [plate, pin]) s.delete();
  });

  it('gives what the implementation before cell lists sorted by normal direction gave, face for face', async () => {
    // Recorded from that implementation (a bar with a pin, a bar cut in two and turned, a block cut
    // in two around an inner body; src/bench/outer-surface.ts builds them): the lists only skip
    // faces that cannot hold a point, so every output triangle, its source and the hidden share
    // are the same to the last bit.
    const digest = (a: ArrayLike<number>) => {
      let h = 0;
      for (let i = 0; i < a.length; i++) h = (Math.imul(h, 31) + Math.round(a[i]! * 1024)) | 0;
      return h;
    };
    const expected = [
      { family: 0, triangles: 1704, hidden: 0.01569220344314581, out: 1952, source: -324161536, positions: 1787180491 },
      { family: 1, triangles: 1630, hidden: 0.03431260194583033, out: 3097, source: -701777920, positions: 971978705 },
      { family: 2, triangles: 2458, hidden: 0.22443787777739826, out: 2978, source: -2111415296, positions: -1412257465 },
    ];
    for (const e of expected) {
      const mesh = await partMesh(e.family, 1500);
      const o = outerSurfaceInGrid(mesh);
      expect({
        family: e.family,
        triangles: mesh.indices.length / 3,
        hidden: o.hiddenShare,
        out: o.source.length,
        source: digest(o.source),
        positions: digest(o.mesh.positions),
      }).toEqual(e);
    }
  });
});
