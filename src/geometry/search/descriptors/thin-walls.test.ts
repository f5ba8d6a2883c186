import { describe, expect, it } from 'vitest';
import { loadManifold, manifoldToMesh } from '../../testing/fixtures';
import { applyToMesh, type Mesh } from '../../mesh/mesh';
import { meshFacts, weld } from '../../mesh/mesh-facts';
import { computeSearchFeatures, preparedPartFrom } from '../search-features';
import { randomRigid } from '../../testing/benchmark-dataset';
import { partToPartExact } from '../duplicate-rule';
import { prng } from './sampling';

/**
 * A moulded cover: a 90 × 60 × 30 mm box with corners rounded to 12 mm, shelled to 1.2 mm, open
 * below, two holes of 6 mm through its top and one through a wall, its curves cut into `segments`
 * per circle. Its rim and the holes' walls are narrower than the spacing of 4,096 samples on it
 * (about 2.6 mm).
 */
async function cover(o: { segments: number; moved?: number }): Promise<Mesh> {
  const { CrossSection, Manifold } = await loadManifold();
  const t = 1.2,
    r = 12;
  const outline = CrossSection.square([90 - 2 * r, 60 - 2 * r]).translate([r, r]);
  const outer = outline.offset(r, 'Round', 2, o.segments).extrude(30);
  const inner = outline
    .offset(r - t, 'Round', 2, o.segments)
    .extrude(30 - t + 1)
    .translate(0, 0, -1);
  const hole = (x: number, y: number) => Manifold.cylinder(t + 2, 3, 3, o.segments).translate(x, y, 30 - t - 1);
  const side = Manifold.cylinder(t + 2, 3, 3, o.segments)
    .rotate([-90, 0, 0])
    .translate(54, -1, 15);
  const solid = outer
    .subtract(inner)
    .subtract(hole(27 + (o.moved ?? 0), 24))
    .subtract(hole(63, 39))
    .subtract(side);
  return manifoldToMesh(solid);
}

function prepared(mesh: Mesh) {
  const welded = weld(mesh);
  const f = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
  return preparedPartFrom(f.prepared, f.global);
}

describe('thin walls', () => {
  it('finds a coarse re-tessellation of a thin-walled cover the same part, and the cover with a hole moved 1.6 mm (1.8 % of its length) not', async () => {
    const fine = prepared(await cover({ segments: 64 }));
    const coarse = prepared(applyToMesh(await cover({ segments: 8 }), randomRigid(prng(11))));
    const moved = prepared(applyToMesh(await cover({ segments: 64, moved: 1.6 }), randomRigid(prng(12))));
    // Thin-walled: twice the samples, with distances in spacings still those of 4,096.
    expect(fine.analysis.samples.count).toBe(8192);
    expect(fine.surface.spacing).toBeCloseTo(Math.sqrt(fine.analysis.samples.area / 4096), 6);
    expect(partToPartExact(coarse, fine, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(fine, coarse, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(moved, fine, 99).score).toBeLessThan(98);
    expect(partToPartExact(moved, coarse, 99).score).toBeLessThan(98);
  });

  it('gives a package with gull-wing leads twice the samples, and finds two of its tessellations the same part', async () => {
    // A 10 × 10 × 1.4 mm body with 11 leads of 0.15 mm sheet on each side: its mean wall is
    // well above 1.5 spacings (the body is solid); the leads are under one spacing thick.
    const { Manifold } = await loadManifold();
    const leads = (segments: number) => {
      let part = Manifold.cube([10, 10, 1.4]).translate(-5, -5, 0.1);
      const lead = Manifold.cube([1.2, 0.3, 0.15]).translate(0, -0.15, 0);
      for (let k = 0; k < 11; k++)
        for (let side = 0; side < 4; side++) part = part.add(lead.translate(4.8, -4 + 0.8 * k, 0.5).rotate([0, 0, 90 * side]));
      // A rounded top, so the two tessellations differ.
      return part.add(Manifold.cylinder(0.3, 1.5, 1.5, segments).translate(0, 0, 1.5));
    };
    const fine = prepared(manifoldToMesh(leads(64)));
    const coarse = prepared(applyToMesh(manifoldToMesh(leads(12)), randomRigid(prng(21))));
    const plain = prepared(manifoldToMesh(Manifold.cube([10, 10, 1.4])));
    expect(fine.analysis.samples.count).toBe(8192);
    expect(coarse.analysis.samples.count).toBe(8192);
    expect(plain.analysis.samples.count).toBe(4096);
    expect(partToPartExact(coarse, fine, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(fine, coarse, 99).score).toBeGreaterThanOrEqual(98);
  });

  it('gives a ball grid array twice the samples, and finds it the same part against a coarse tessellation of its balls, and balls 20 % larger not', async () => {
    // 100 balls of 0.25 mm radius at 0.8 mm pitch under a 9 × 9 × 1 mm body: the radius is about
    // the spacing of 4,096 samples (0.22 mm), so the nearest sample of the other on a ball faces
    // up to 80° away at 4,096 samples; they hold twice as many at 8,192.
    const { Manifold } = await loadManifold();
    const bga = (segments: number, radius = 0.25) => {
      let part = Manifold.cube([9, 9, 1]).translate(-4.5, -4.5, 0.2);
      for (let i = 0; i < 10; i++)
        for (let j = 0; j < 10; j++) part = part.add(Manifold.sphere(radius, segments).translate(-3.6 + 0.8 * i, -3.6 + 0.8 * j, 0.25));
      return part;
    };
    const fine = prepared(manifoldToMesh(bga(32)));
    const coarse = prepared(applyToMesh(manifoldToMesh(bga(12)), randomRigid(prng(31))));
    const larger = prepared(applyToMesh(manifoldToMesh(bga(32, 0.3)), randomRigid(prng(32))));
    expect(fine.analysis.samples.count).toBe(8192);
    expect(coarse.analysis.samples.count).toBe(8192);
    expect(partToPartExact(coarse, fine, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(fine, coarse, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(larger, fine, 99).score).toBeLessThan(98);
    expect(partToPartExact(larger, coarse, 99).score).toBeLessThan(98);
  });
});
