import { describe, expect, it } from 'vitest';
import { applyToMesh, mergeMeshes, type Mesh } from '../../mesh/mesh';
import { determinant3, multiply, rotationZ, scaling, translation } from '../../mesh/transform';
import { analyseShape } from './analysis';
import { buildPart, randomRigid, randomRotation, roundTrip, subdivide } from '../../testing/benchmark-dataset';
import { geoDescriptor, geoRelatedScore } from './geo-descriptor';
import {
  GLOBAL_DESCRIPTOR_LENGTH,
  SCALE_DISTANCE,
  SCALE_EXPONENT,
  axisNormalHistograms,
  distanceForScore,
  globalDescriptor,
  partToPartScore,
  rawGlobalFeatures,
  scoreFromDistance,
} from './global-descriptor';
import { alignParts, preparePart, type PreparedPart } from './rescore';
import { partToPartExact } from '../duplicate-rule';
import { computeSearchFeatures, preparedPartFrom } from '../search-features';
import { meshFacts, weld } from '../../mesh/mesh-facts';
import type { Manifold } from 'manifold-3d';
import { loadManifold, manifoldToMesh } from '../../testing/fixtures';

import { prng, sampleSurface } from './sampling';

/** A part as the service prepares it for the duplicate rule: outer surface, chord errors, stored and read back. */
function ruled(mesh: Mesh): PreparedPart {
  const welded = weld(mesh);
  const f = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
  return preparedPartFrom(f.prepared, f.global);
}
const exact = (a: PreparedPart, b: PreparedPart) => partToPartExact(a, b, partToPartScore(a.descriptor, b.descriptor));
/** The solid's mesh; the solid (wasm memory) is freed. */
function meshFrom(solid: Manifold): Mesh {
  const mesh = manifoldToMesh(solid);
  solid.delete();
  return mesh;
}

describe('sampling', () => {
  it('is deterministic per seed and area-weighted', async () => {
    const m = await buildPart('plate', 0);
    const a = sampleSurface(m, { count: 1000, seed: 4 });
    const b = sampleSurface(m, { count: 1000, seed: 4 });
    expect(Array.from(a.points)).toEqual(Array.from(b.points));
    expect(a.count).toBe(1000);
    // Unit normals.
    for (let i = 0; i < a.count; i++) expect(Math.hypot(a.normals[i * 3]!, a.normals[i * 3 + 1]!, a.normals[i * 3 + 2]!)).toBeCloseTo(1, 6);
    // Share of samples on the top face (z = 8) ≈ its share of the area.
    const top = Array.from({ length: a.count }, (_, i) => a.points[i * 3 + 2]!).filter((z) => Math.abs(z - 8) < 1e-4).length / a.count;
    const topArea = 100 * 60 - 4 * Math.PI * 16 * 0.99;
    expect(top).toBeCloseTo(topArea / a.area, 1);
  });
});

describe('axis-normal histograms', () => {
  it('do not depend on the arbitrary in-plane axes of a part with equal eigenvalues, nor on its tessellation', async () => {
    // A hex nut's two larger eigenvalues are equal: PCA picks any pair of axes in that plane.
    const nut = analyseShape(await buildPart('nut', 0));
    expect(nut.pose.gaps[0]).toBeLessThan(0.02);
    const rand = prng(8);
    for (const turn of [0.1, 0.37, 1.2]) {
      const other = analyseShape(applyToMesh(await buildPart('nut', 0, { segments: 48 }), multiply(randomRigid(rand), rotationZ(turn))));
      expect(distance(axisNormalHistograms(nut), axisNormalHistograms(other))).toBeLessThan(0.01);
    }
  });

  it('tell which way the surface faces: a plate faces its thin axis, a pipe faces across its long one', async () => {
    const bins = 8;
    const top = (h: number[], axis: number) => h[axis * bins + bins - 1]!;
    const plate = axisNormalHistograms(analyseShape(await buildPart('plate', 0)));
    const pipe = axisNormalHistograms(analyseShape(await buildPart('pipe', 1)));
    // Plate: most area faces e3 (top and bottom), little faces e1. Pipe (long axis e1): walls parallel to e1.
    expect(top(plate, 2)).toBeGreaterThan(0.6);
    expect(top(plate, 0)).toBeLessThan(0.3);
    expect(top(pipe, 0)).toBeLessThan(0.3);
    expect(pipe[0]!).toBeGreaterThan(0.6);
  });
});

function distance(a: number[], b: number[]): number {
  return Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]!) ** 2, 0));
}

describe('pose', () => {
  it('is a proper rotation and flips handedness for a mirrored chiral part', async () => {
    const m = await buildPart('step-block', 0);
    const a = analyseShape(m);
    const b = analyseShape(applyToMesh(m, multiply(randomRigid(prng(1)), scaling(-1, 1, 1))));
    for (const p of [a.pose, b.pose]) expect(determinant3(p.toCanonical)).toBeCloseTo(1, 9);
    // The skewness product is a pseudo-scalar: same magnitude, opposite sign for the mirror image.
    const prod = (s: readonly number[]) => s[0]! * s[1]! * s[2]!;
    expect(Math.abs(prod(a.pose.skewness))).toBeGreaterThan(1e-3);
    expect(prod(b.pose.skewness)).toBeCloseTo(-prod(a.pose.skewness), 2);
    if (a.pose.handedness !== 0 && b.pose.handedness !== 0) expect(b.pose.handedness).toBe(-a.pose.handedness);
  });
});

describe('part-to-part descriptor', () => {
  it(`has ${GLOBAL_DESCRIPTOR_LENGTH} dimensions and a monotone calibrated score`, () => {
    expect(GLOBAL_DESCRIPTOR_LENGTH).toBeGreaterThanOrEqual(64);
    expect(GLOBAL_DESCRIPTOR_LENGTH).toBeLessThanOrEqual(256);
    expect(scoreFromDistance(0)).toBe(100);
    expect(scoreFromDistance(SCALE_DISTANCE)).toBeCloseTo(100 / Math.E, 9);
    expect(distanceForScore(90)).toBeCloseTo(SCALE_DISTANCE * Math.pow(Math.log(100 / 90), 1 / SCALE_EXPONENT), 9);
    expect(scoreFromDistance(distanceForScore(73))).toBeCloseTo(73, 9);
  });

  it('is invariant to rotation, translation, tessellation and file format (≥ 98)', async () => {
    const rand = prng(42);
    for (const [family, v] of [
      ['bracket', 1],
      ['flange', 0],
      ['gear', 1],
    ] as const) {
      const base = await buildPart(family, v, { segments: 32 });
      const d0 = globalDescriptor(base);
      const moved = applyToMesh(base, randomRigid(rand));
      const retess = applyToMesh(await buildPart(family, v, { segments: 48 }), randomRigid(rand));
      const sub = await roundTrip(applyToMesh(subdivide(base), randomRigid(rand)), 'stl');
      const glb = await roundTrip(applyToMesh(base, randomRigid(rand)), 'glb');
      // The descriptor puts copies at the top of its scale; whether they are the same part is the duplicate rule's call.
      for (const m of [moved, retess, sub, glb]) expect(partToPartScore(d0, globalDescriptor(m))).toBeGreaterThanOrEqual(98);
    }
  });

  it('scores scaled copies lower the more they are scaled, and stays high for a z-rotation', async () => {
    const base = await buildPart('plate', 1);
    const d0 = globalDescriptor(base);
    expect(partToPartScore(d0, globalDescriptor(applyToMesh(base, rotationZ(33))))).toBeGreaterThanOrEqual(98);
    const s11 = partToPartScore(d0, globalDescriptor(applyToMesh(base, scaling(1.1))));
    const s2 = partToPartScore(d0, globalDescriptor(applyToMesh(base, scaling(2))));
    expect(s2).toBeLessThan(s11);
    expect(s2).toBeLessThan(80);
  });

  it('scores a different family low', async () => {
    const a = globalDescriptor(await buildPart('flange', 0));
    for (const [f, v] of [
      ['bolt', 0],
      ['plate', 0],
      ['pipe', 1],
    ] as const)
      expect(partToPartScore(a, globalDescriptor(await buildPart(f, v)))).toBeLessThan(50);
  });

  it('the duplicate rule keeps duplicates ≥ 98 and calls a mirrored chiral part a mirror image below 98', async () => {
    const rand = prng(8);
    for (const [family, v] of [
      ['bracket', 0],
      ['bracket', 1],
      ['step-block', 3],
    ] as const) {
      const base = ruled(await buildPart(family, v));
      const dup = ruled(applyToMesh(await buildPart(family, v, { segments: 48 }), randomRigid(rand)));
      const mirror = ruled(applyToMesh(await buildPart(family, v), multiply(randomRigid(rand), scaling(-1, 1, 1))));
      const d = exact(dup, base);
      expect(d.score).toBeGreaterThanOrEqual(98);
      expect(d.relation).toBeUndefined();
      const m = exact(mirror, base);
      expect(m.score).toBeLessThan(98);
      expect(m.relation).toBe('mirrored');
    }
    // A mirror-symmetric part is identical to its mirror image.
    const plate = await buildPart('plate', 0);
    expect(exact(ruled(applyToMesh(plate, multiply(translation(5, 5, 5), scaling(1, -1, 1)))), ruled(plate)).score).toBeGreaterThanOrEqual(
      98,
    );
  });

  it('a hole moved by 2 % of the size is another part; the same part cut into two bodies is not', async () => {
    const { Manifold } = await loadManifold();
    const plate = (x: number) => meshFrom(Manifold.cube([100, 60, 8]).subtract(Manifold.cylinder(10, 5, 5, 32).translate(x, 30, -1)));
    const base = ruled(plate(30));
    expect(exact(ruled(applyToMesh(plate(32.3), randomRigid(prng(3)))), base).score).toBeLessThan(98);
    const solid = Manifold.cube([100, 60, 8]).subtract(Manifold.cylinder(10, 5, 5, 32).translate(30, 30, -1));
    const [a, b] = solid.splitByPlane([1, 0.2, 0], 50);
    const twoBodies = mergeMeshes([manifoldToMesh(a), manifoldToMesh(b)]);
    for (const m of [solid, a, b]) m.delete();
    expect(exact(ruled(applyToMesh(twoBodies, randomRigid(prng(4)))), base).score).toBeGreaterThanOrEqual(98);
  });

  it('a thin-walled part cut apart, each side meshed on its own, is still the same part', async () => {
    const { Manifold } = await loadManifold();
    // An open box with 2 mm walls and a bored boss on its floor.
    const boss = Manifold.cylinder(28, 4.8, 4.8, 32)
      .subtract(Manifold.cylinder(30, 2.2, 2.2, 32))
      .translate(7.8, 7.8, 1.99);
    const box = Manifold.cube([100, 60, 30])
      .subtract(Manifold.cube([96, 56, 30]).translate(2, 2, 2))
      .add(boss);
    const base = ruled(manifoldToMesh(box));
    // The cut faces share no vertices with each other, and across the walls they lie within a
    // cell or two of the skin.
    const rand = prng(14);
    const n = [rand() - 0.5, rand() - 0.5, rand() - 0.5] as [number, number, number];
    const [a, b] = box.splitByPlane(n, (n[0] * 50 + n[1] * 30 + n[2] * 15) / Math.hypot(...n));
    const twoBodies = mergeMeshes([manifoldToMesh(a), manifoldToMesh(b)]);
    for (const m of [boss, box, a, b]) m.delete();
    expect(exact(ruled(applyToMesh(twoBodies, randomRigid(rand))), base).score).toBeGreaterThanOrEqual(98);
  });

  it('keeps a coarse swept elbow (8 facets around, 45°) ≥ 98 against a fine one', async () => {
    const m = await loadManifold();
    const elbow = (seg: number) => {
      const ring = (r: number) =>
        Array.from(
          { length: seg },
          (_, k) => [40 + r * Math.cos((2 * Math.PI * k) / seg), r * Math.sin((2 * Math.PI * k) / seg)] as [number, number],
        );
      const section = new m.CrossSection([ring(10), ring(7).reverse()], 'EvenOdd');
      const bend = section.revolve(seg * 2, 90);
      const leg = m.Manifold.cylinder(20, 10, 10, seg)
        .subtract(m.Manifold.cylinder(22, 7, 7, seg).translate(0, 0, -1))
        .rotate([90, 0, 0])
        .translate(40, 0.01, 0);
      const solid = bend.add(leg);
      const mesh = manifoldToMesh(solid);
      for (const x of [section, bend, leg, solid]) x.delete();
      return mesh;
    };
    const coarse = elbow(8);
    expect(coarse.indices.length / 3).toBeLessThan(700);
    expect(exact(ruled(applyToMesh(coarse, randomRigid(prng(15)))), ruled(elbow(32))).score).toBeGreaterThanOrEqual(98);
  });

  it('keeps small holes meshed with few facets ≥ 98 against finely meshed ones (a few samples around each)', async () => {
    const { Manifold } = await loadManifold();
    // A long flanged tube with eight 3 mm bolt holes (about 3 samples on each wall); the holes
    // get 10 facets around on one side, 40 on the other.
    const flange = (holeSegments: number) => {
      let s = Manifold.cylinder(4, 60, 60, 96)
        .add(Manifold.cylinder(150, 14, 14, 96))
        .subtract(Manifold.cylinder(170, 11, 11, 96).translate(0, 0, -10));
      for (let k = 0; k < 8; k++)
        s = s.subtract(
          Manifold.cylinder(10, 1.5, 1.5, holeSegments).translate(45 * Math.cos((k * Math.PI) / 4), 45 * Math.sin((k * Math.PI) / 4), -2),
        );
      return meshFrom(s);
    };
    expect(exact(ruled(applyToMesh(flange(10), randomRigid(prng(21)))), ruled(flange(40))).score).toBeGreaterThanOrEqual(98);
  });

  it('puts a 2 mm hole moved by 1.5 mm (1.3 % of the size) below 98, though its wall is under 0.15 % of the surface', async () => {
    const { Manifold } = await loadManifold();
    // A 2.5 mm plate with five 2 mm holes; in the edit the middle one sits 1.5 mm to the side. Its
    // wall is 0.12 % of the surface (about 4 samples on each part), so the share off passes: the
    // surface off lies in one place on both parts (the old hole on one, the new one on the other).
    const plate = (moved: number) => {
      let s = Manifold.cube([100, 60, 2.5]);
      for (const [k, [x, y]] of [
        [12, 10],
        [85, 14],
        [20, 48],
        [70, 45],
        [50, 30],
      ].entries())
        s = s.subtract(Manifold.cylinder(10, 1, 1, 24).translate(x! + (k === 4 ? moved : 0), y!, -2));
      return meshFrom(s);
    };
    const base = ruled(plate(0));
    expect(exact(ruled(applyToMesh(plate(0), randomRigid(prng(22)))), base).score).toBeGreaterThanOrEqual(98);
    expect(exact(ruled(applyToMesh(plate(1.5), randomRigid(prng(23)))), base).score).toBeLessThan(98);
  });

  it("puts a plate's corner cut off by a chamfer below 98, though the chamfer is under 0.15 % of the surface and the cut corner lies within the samples' reach", async () => {
    const { Manifold } = await loadManifold();
    // A 140 × 85 × 3 mm plate with three 14 mm ribs; the corner cut 45° across, 10 mm along each
    // edge. Every point of the cut-off corner lies within 7 mm (2.5 spacings) of the plate's faces
    // that remain, so only where those faces end tells it apart.
    const plate = (chamfer: boolean) => {
      let s = Manifold.cube([140, 85, 3]);
      for (const y of [17, 38, 72]) s = s.add(Manifold.cube([126, 2, 14]).translate(7, y, 2.99));
      s = s.subtract(Manifold.cylinder(10, 4, 4, 32).translate(10, 50, -2));
      if (chamfer) s = s.subtract(Manifold.cube([14, 14, 5], true).rotate([0, 0, 45]).translate(140, 85, 1.5));
      return meshFrom(s);
    };
    const base = ruled(plate(false));
    expect(exact(ruled(applyToMesh(plate(false), randomRigid(prng(24)))), base).score).toBeGreaterThanOrEqual(98);
    expect(exact(ruled(applyToMesh(plate(true), randomRigid(prng(25)))), base).score).toBeLessThan(98);
  });

  it('relates a scaled copy as scaled, with its factor, below 98', async () => {
    const base = ruled(await buildPart('bracket', 0));
    const twice = exact(ruled(applyToMesh(await buildPart('bracket', 0), multiply(randomRigid(prng(5)), scaling(2)))), base);
    expect(twice.relation).toBe('scaled');
    expect(twice.scale).toBeCloseTo(0.5, 2);
    expect(twice.score).toBeLessThan(98);
  });
});

describe('noise and registration', () => {
  it('computes the chirality block from exact moments: no sampling noise', async () => {
    const m = await buildPart('step-block', 0);
    const a = rawGlobalFeatures(analyseShape(m, { seed: 1 }));
    const b = rawGlobalFeatures(analyseShape(m, { seed: 2 }));
    a.chirality.forEach((v, i) => expect(b.chirality[i]!).toBeCloseTo(v, 9));
    // …and a mirror image negates it.
    const c = rawGlobalFeatures(analyseShape(applyToMesh(m, multiply(randomRigid(prng(3)), scaling(-1, 1, 1)))));
    expect(Math.abs(a.chirality[0]!)).toBeGreaterThan(1e-3);
    a.chirality.forEach((v, i) => expect(c.chirality[i]!).toBeCloseTo(-v, 6));
  });

  it('keeps a coarse re-export ≥ 98 and puts a small added detail (chamfered nut) below 98', async () => {
    const rand = prng(12);
    const base = ruled(await buildPart('nut', 0));
    const coarse = ruled(await roundTrip(applyToMesh(await buildPart('nut', 0, { segments: 24 }), randomRigid(rand)), 'ply'));
    const chamfered = ruled(applyToMesh(await buildPart('nut', 0, { segments: 32 }, true), randomRigid(rand)));
    expect(exact(coarse, base).score).toBeGreaterThanOrEqual(98);
    expect(exact(chamfered, base).score).toBeLessThan(98);
  });

  it('aligns a small part placed far from the origin (ICP linearised about the part)', async () => {
    const nut = await buildPart('nut', 2, { segments: 32 });
    const far = applyToMesh(await buildPart('nut', 2, { segments: 24 }), multiply(translation(-800, 420, 650), randomRotation(prng(21))));
    const al = alignParts(preparePart(far), preparePart(nut));
    expect(Math.min(al.coverageAB, al.coverageBA)).toBeGreaterThan(0.98);
  });
});

describe('geo-related descriptor', () => {
  it('ranks the same-size detail variant above another size of the family', async () => {
    const a = geoDescriptor(await buildPart('flange', 0));
    const detail = geoDescriptor(applyToMesh(await buildPart('flange', 0, { segments: 32 }, true), randomRigid(prng(2))));
    const other = geoDescriptor(await buildPart('flange', 1));
    expect(geoRelatedScore(a, detail)).toBeGreaterThan(geoRelatedScore(a, other));
    expect(geoRelatedScore(a, detail)).toBeGreaterThan(70);
  });
});
