import { describe, expect, it } from 'vitest';
import { flange, sphere } from '../testing/fixtures';
import { clusterMesh, isClosedChain } from './cluster';
import { areaAndVolume, boundingBox, meshFacts, signedVolume } from './mesh-facts';
import type { Mesh } from './mesh';

function simplify(mesh: Mesh, target: number) {
  const { area } = areaAndVolume(mesh);
  return clusterMesh(mesh, boundingBox(mesh), area, target);
}

describe('vertex clustering (meshes too fine for the features and pictures)', () => {
  it('keeps a closed part closed, its volume and size, with about the triangles asked for', async () => {
    const part = await flange({ segments: 256 });
    const before = meshFacts(part.mesh);
    const target = Math.round(before.triangleCount / 2);
    const { mesh, grid } = simplify(part.mesh, target);
    const after = meshFacts(mesh);
    expect(after.triangleCount).toBeGreaterThan(target * 0.2);
    expect(after.triangleCount).toBeLessThan(target * 1.3);
    // closed: every edge walked both ways as often, so the volume is the part's
    expect(isClosedChain(mesh.indices)).toBe(true);
    expect(Math.abs(signedVolume(mesh)) / Math.abs(before.volume!)).toBeCloseTo(1, 1);
    const tolerance = grid.cell * Math.sqrt(3);
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(after.bbox.min[k]! - before.bbox.min[k]!)).toBeLessThanOrEqual(tolerance);
      expect(Math.abs(after.bbox.max[k]! - before.bbox.max[k]!)).toBeLessThanOrEqual(tolerance);
    }
  });

  it('moves no corner farther than a cell diagonal from the surface (a sphere stays round)', async () => {
    const radius = 20;
    const part = await sphere({ radius, triangles: 80_000 });
    const { mesh, grid } = simplify(part.mesh, 5_000);
    const tolerance = grid.cell * Math.sqrt(3);
    const p = mesh.positions;
    let worst = 0;
    for (let i = 0; i < p.length; i += 3) worst = Math.max(worst, Math.abs(Math.hypot(p[i]!, p[i + 1]!, p[i + 2]!) - radius));
    expect(worst).toBeLessThanOrEqual(tolerance);
    expect(meshFacts(mesh).shellCount).toBe(1);
  });

  it('lets two opposite faces closer than a cell cancel instead of stacking', () => {
    // a 10 × 10 sheet, both sides, 0.01 apart: one cell thick
    const a = [0, 0, 0, 10, 0, 0, 10, 10, 0, 0, 10, 0];
    const positions = new Float32Array([...a, ...a.map((v, i) => (i % 3 === 2 ? 0.01 : v))]);
    const indices = new Uint32Array([0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6]);
    const { mesh } = clusterMesh({ positions, indices }, { min: [0, 0, 0], max: [10, 10, 0.01] }, 400, 8);
    expect(mesh.indices.length).toBe(0);
    // one side alone stays
    expect(
      clusterMesh({ positions, indices: indices.slice(0, 6) }, { min: [0, 0, 0], max: [10, 10, 0.01] }, 200, 8).mesh.indices.length,
    ).toBe(6);
  });
});
