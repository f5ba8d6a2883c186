import { describe, expect, it } from 'vitest';
import { applyToMesh, convertUnits, mergeMeshes, type Mesh } from './mesh';
import { scaling, translation } from './transform';
import { signedVolume } from './mesh-facts';
import { box } from '../testing/fixtures';

const tri: Mesh = { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), indices: new Uint32Array([0, 1, 2]), units: 'mm' };

describe('applyToMesh', () => {
  it('applyToMesh keeps normals outward under a mirror', async () => {
    const { mesh } = await box([1, 2, 3]);
    const v = signedVolume(mesh);
    expect(v).toBeCloseTo(6, 4);
    expect(signedVolume(applyToMesh(mesh, scaling(-1, 1, 1)))).toBeCloseTo(6, 4);
    expect(signedVolume(applyToMesh(mesh, scaling(2)))).toBeCloseTo(48, 3);
  });
});

describe('mergeMeshes / convertUnits', () => {
  it('offsets indices and keeps agreeing units', () => {
    const m = mergeMeshes([tri, applyToMesh(tri, translation(5, 0, 0))]);
    expect(Array.from(m.indices)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(m.positions[9]).toBe(5);
    expect(m.units).toBe('mm');
    expect(mergeMeshes([tri, { ...tri, units: 'in' }]).units).toBe('unknown');
  });

  it('scales coordinates between units', () => {
    const inches = convertUnits({ ...tri, units: 'in' }, 'mm');
    expect(inches.units).toBe('mm');
    expect(inches.positions[3]).toBeCloseTo(25.4, 4);
  });
});
