import { describe, expect, it } from 'vitest';
import { loadManifold, manifoldToMesh } from '../../testing/fixtures';
import { applyToMesh, type Mesh } from '../../mesh/mesh';
import { meshFacts, weld } from '../../mesh/mesh-facts';
import { computeSearchFeatures, preparedPartFrom } from '../search-features';
import { randomRigid } from '../../testing/benchmark-dataset';
import { checkDuplicate, partToPartExact } from '../duplicate-rule';
import { prng } from './sampling';
import { sampleThickness } from './thickness';

/** A washer: outer diameter 30 mm, hole `hole` mm, `thickness` thick, curves in `segments`. */
async function washer(o: { thickness: number; hole?: number; segments: number }): Promise<Mesh> {
  const { Manifold } = await loadManifold();
  const outer = Manifold.cylinder(o.thickness, 15, 15, o.segments);
  const bore = Manifold.cylinder(o.thickness + 2, (o.hole ?? 12) / 2, (o.hole ?? 12) / 2, o.segments).translate(0, 0, -1);
  return manifoldToMesh(outer.subtract(bore));
}

function prepared(mesh: Mesh) {
  const welded = weld(mesh);
  const f = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
  return preparedPartFrom(f.prepared, f.global);
}

describe('thickness and clearance at each sample', () => {
  it('measures a washer: its thickness behind the faces, its bore across the hole', async () => {
    const mesh = await washer({ thickness: 1.5, segments: 96 });
    const p = prepared(mesh);
    const t = p.analysis.thickness!;
    const n = p.analysis.samples;
    let flat = 0,
      bore = 0;
    for (let i = 0; i < n.count; i++) {
      const nz = Math.abs(n.normals[i * 3 + 2]!);
      // Flat faces: 1.5 mm of material behind, nothing in front.
      if (nz > 0.99) {
        flat++;
        expect(t.inward[i]).toBeCloseTo(1.5, 2);
        expect(t.outward[i]).toBe(0);
      }
      // The bore's wall (normal towards the axis): the hole's diameter in front.
      const x = n.points[i * 3]!,
        y = n.points[i * 3 + 1]!;
      if (nz < 0.01 && Math.hypot(x, y) < 7 && t.outward[i]! > 0) {
        bore++;
        expect(t.outward[i]).toBeGreaterThan(11.9);
        expect(t.outward[i]).toBeLessThanOrEqual(12.001);
      }
    }
    expect(flat).toBeGreaterThan(n.count * 0.5);
    expect(bore).toBeGreaterThan(20);
    // The same measures from the mesh directly, in metres.
    const metres = sampleThickness({ ...mesh, positions: mesh.positions.map((v) => v / 1000), units: 'm' }, p.analysis.samples);
    expect(metres.inward.filter((v) => Math.abs(v - 1.5) < 0.01).length).toBeGreaterThan(n.count * 0.5);
  });

  it('corrects each measure for tessellation: a bore and a ring wall measure their designed sizes at 16 and 48 segments', async () => {
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    for (const segments of [16, 48]) {
      const mesh = await washer({ thickness: 5, segments });
      const p = prepared(mesh);
      const t = p.analysis.thickness!;
      const n = p.analysis.samples;
      const bore: number[] = [],
        wall: number[] = [],
        raw: number[] = [];
      const uncorrected = sampleThickness(mesh, n);
      for (let i = 0; i < n.count; i++) {
        if (Math.abs(n.normals[i * 3 + 2]!) > 0.01) continue;
        const r = Math.hypot(n.points[i * 3]!, n.points[i * 3 + 1]!);
        if (r < 7 && t.outward[i]! > 0) {
          bore.push(t.outward[i]!);
          raw.push(uncorrected.outward[i]!);
        }
        // Rays straight at the axis (a facet's middle): off it, a ray crosses the ring on a chord.
        const radial = (n.points[i * 3]! * n.normals[i * 3]! + n.points[i * 3 + 1]! * n.normals[i * 3 + 1]!) / r;
        if (r > 14 && t.inward[i]! > 0 && radial > Math.cos((2 * Math.PI) / 180)) wall.push(t.inward[i]!);
      }
      expect(bore.length).toBeGreaterThan(10);
      expect(wall.length).toBeGreaterThan(3);
      // The facets across a 16-segment bore stand 2 % inside its 12 mm; corrected, it is 12 mm.
      if (segments === 16) expect(median(raw)).toBeLessThan(11.8);
      expect(median(bore)).toBeCloseTo(12, 1);
      expect(Math.abs(median(bore) - 12)).toBeLessThan(0.02);
      // From the rim inwards to the bore: 15 − 6 = 9 mm, both curves' facets corrected.
      expect(Math.abs(median(wall) - 9)).toBeLessThan(0.03);
    }
  });

  it('measures an 8-segment bore and wall across parallel facets of concentric curves, where facets bend 45°, and keeps a tenth of their chord errors as the allowance', async () => {
    const mesh = await washer({ thickness: 5, segments: 8 });
    const p = prepared(mesh);
    const t = p.analysis.thickness!;
    const n = p.analysis.samples;
    const bore: number[] = [],
      allowance: number[] = [];
    for (let i = 0; i < n.count; i++) {
      const r = Math.hypot(n.points[i * 3]!, n.points[i * 3 + 1]!);
      if (Math.abs(n.normals[i * 3 + 2]!) > 0.01 || r > 7 || !(t.outward[i]! > 0)) continue;
      bore.push(t.outward[i]!);
      allowance.push(t.outwardError![i]!);
    }
    // A side of the octagon stands 6 × (1 − cos 22.5°) = 0.46 mm inside the circle.
    expect(bore.length).toBeGreaterThan(10);
    for (const v of bore) expect(Math.abs(v - 12)).toBeLessThan(0.03);
    for (const e of allowance) expect(e).toBeCloseTo(0.1 * 2 * 0.4567, 1);
    // The wall from the rim in to the bore, where the rim's facet faces one of the bore's: 9 mm,
    // the two curves concentric, a tenth of their chord errors (1.14 and 0.46 mm) allowed.
    const wall: number[] = [];
    for (let i = 0; i < n.count; i++) {
      const r = Math.hypot(n.points[i * 3]!, n.points[i * 3 + 1]!);
      if (Math.abs(n.normals[i * 3 + 2]!) > 0.01 || r < 12 || !(t.inward[i]! > 0) || t.inwardError![i]! > 0.2) continue;
      wall.push(t.inward[i]!);
      expect(t.inwardError![i]!).toBeCloseTo(0.1 * (15 * (1 - Math.cos(Math.PI / 8)) + 0.4567), 1);
    }
    expect(wall.length).toBeGreaterThan(10);
    for (const v of wall) expect(Math.abs(v - 9)).toBeLessThan(0.05);
    // The same wall from the bore out to the rim: the ray leaves the bore's centre, and the rim's
    // centre lies as far behind the start; concentric too, a tenth allowed.
    const outwards: number[] = [];
    for (let i = 0; i < n.count; i++) {
      const r = Math.hypot(n.points[i * 3]!, n.points[i * 3 + 1]!);
      if (Math.abs(n.normals[i * 3 + 2]!) > 0.01 || r > 7 || !(t.inward[i]! > 0) || t.inwardError![i]! > 0.2) continue;
      outwards.push(t.inward[i]!);
      expect(t.inwardError![i]!).toBeCloseTo(0.1 * (15 * (1 - Math.cos(Math.PI / 8)) + 0.4567), 1);
    }
    expect(outwards.length).toBeGreaterThan(10);
    for (const v of outwards) expect(Math.abs(v - 9)).toBeLessThan(0.05);
    // The same octagon against a 64-segment washer and one with a bore 5 % wider.
    const fine = prepared(applyToMesh(await washer({ thickness: 5, segments: 64 }), randomRigid(prng(6))));
    const wider = prepared(applyToMesh(await washer({ thickness: 5, hole: 12.6, segments: 64 }), randomRigid(prng(7))));
    const coarse = prepared(applyToMesh(mesh, randomRigid(prng(8))));
    expect(partToPartExact(coarse, fine, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(coarse, wider, 99).score).toBeLessThan(98);
  });

  it('takes 3 % of the thinner of two walls, whichever model asks: 40 mm against 38.8 mm (1.2 mm, beyond 3 % of 38.8 + 0.02, within 3 % of 40 + 0.02) is another part', async () => {
    const { Manifold } = await loadManifold();
    const plate = (t: number) => manifoldToMesh(Manifold.cube([200, 180, t], true));
    const thick = prepared(plate(40)),
      thin = prepared(applyToMesh(plate(38.8), randomRigid(prng(9)))),
      same = prepared(applyToMesh(plate(40), randomRigid(prng(10))));
    for (const [a, b] of [
      [thick, thin],
      [thin, thick],
    ] as const) {
      const o = checkDuplicate(a, b);
      // The surfaces agree (the alignment splits 1.2 mm between the faces); the wall does not.
      expect(Math.max(o.offAB, o.offBA)).toBeLessThanOrEqual(0.0015);
      expect(o.dimensionOff).toBeGreaterThan(0.3);
      expect(o.agrees).toBe(false);
    }
    expect(checkDuplicate(thick, same).agrees).toBe(true);
  });

  it('tells a washer 10 % thicker (0.15 mm, inside the surface tolerance) and a bore 6 % wider from the washer, and its coarse re-export not', async () => {
    const base = prepared(await washer({ thickness: 1.5, segments: 64 }));
    const coarse = prepared(applyToMesh(await washer({ thickness: 1.5, segments: 24 }), randomRigid(prng(3))));
    const thicker = prepared(applyToMesh(await washer({ thickness: 1.65, segments: 64 }), randomRigid(prng(4))));
    const wider = prepared(applyToMesh(await washer({ thickness: 1.5, hole: 12.7, segments: 64 }), randomRigid(prng(5))));
    // The surface alone agrees: each face moved by 0.075 mm against a tolerance of 0.17 mm.
    const surface = checkDuplicate(thicker, base);
    expect(Math.max(surface.offAB, surface.offBA)).toBeLessThan(0.0015);
    expect(surface.dimensionOff).toBeGreaterThan(0.5);
    expect(partToPartExact(thicker, base, 99).score).toBeLessThan(98);
    expect(partToPartExact(base, thicker, 99).score).toBeLessThan(98);
    expect(partToPartExact(wider, base, 99).score).toBeLessThan(98);
    expect(partToPartExact(coarse, base, 99).score).toBeGreaterThanOrEqual(98);
    expect(partToPartExact(base, coarse, 99).score).toBeGreaterThanOrEqual(98);
  });
});
