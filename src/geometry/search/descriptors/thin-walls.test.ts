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
});
