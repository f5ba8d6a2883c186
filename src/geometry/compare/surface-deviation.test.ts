import { describe, expect, it } from 'vitest';
import { applyToMesh } from '../mesh/mesh';
import { identity, translation } from '../mesh/transform';
import { subdivide } from '../testing/benchmark-dataset';
import { plateWithHoles } from '../testing/fixtures';
import { deviationStats, surfaceDeviation } from './surface-deviation';

describe('surface deviation', () => {
  it('is zero for the same surface, and the placement that undoes a move brings it back', async () => {
    const plate = (await plateWithHoles()).mesh;
    const same = deviationStats(surfaceDeviation(plate, identity(), plate), 0.01, 1);
    expect(same.max).toBeLessThan(1e-4);
    expect(same.within).toBe(1);
    const moved = applyToMesh(plate, translation(5, 0, 0));
    const back = deviationStats(surfaceDeviation(moved, translation(-5, 0, 0), plate), 0.01, 1);
    expect(back.max).toBeLessThan(1e-3);
  });

  it('signs distances by the other surface: a plate lifted by 0.5 is +0.5 at its top face and −0.5 at its bottom, area-weighted', async () => {
    // Subdivided, so the faces have vertices inside them and not only at their edges.
    const plate = subdivide(subdivide((await plateWithHoles()).mesh));
    const lifted = surfaceDeviation(plate, translation(0, 0, 0.5), plate);
    const s = deviationStats(lifted, 0.1, 1, 4);
    expect(s.max).toBeCloseTo(0.5, 3);
    // The top face lies 0.5 outside, the bottom face 0.5 inside; the walls mostly slide along themselves.
    expect(s.within).toBeLessThan(0.6);
    expect(s.rms).toBeGreaterThan(0.3);
    expect(s.rms).toBeLessThanOrEqual(0.5);
    const positive = s.histogram.shares.slice(2).reduce((a, b) => a + b, 0);
    const negative = s.histogram.shares.slice(0, 2).reduce((a, b) => a + b, 0);
    expect(positive + negative).toBeCloseTo(1, 6);
    expect(positive).toBeGreaterThan(0.3);
    expect(negative).toBeGreaterThan(0.3);
  });
});
