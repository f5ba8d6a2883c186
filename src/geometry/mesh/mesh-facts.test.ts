import { describe, expect, it } from 'vitest';
import { box, flange, plateWithHoles } from '../testing/fixtures';
import { applyToMesh, mergeMeshes, type Mesh } from './mesh';
import { translation } from './transform';
import { meshFacts, weld } from './mesh-facts';

/** Every triangle gets its own three vertices, as in STL. */
function soup(mesh: Mesh): Mesh {
  const positions = new Float32Array(mesh.indices.length * 3);
  mesh.indices.forEach((v, i) => positions.set(mesh.positions.subarray(v * 3, v * 3 + 3), i * 3));
  return { positions, indices: Uint32Array.from(mesh.indices, (_, i) => i), units: mesh.units };
}

describe('meshFacts', () => {
  it('measures a box exactly', async () => {
    const { mesh } = await box([10, 20, 30]);
    const f = meshFacts(mesh);
    expect(f.triangleCount).toBe(12);
    expect(f.vertexCount).toBe(8);
    expect(f.bbox.size).toEqual([10, 20, 30]);
    expect(f.surfaceArea).toBeCloseTo(2 * (200 + 600 + 300), 6);
    expect(f.closed).toBe(true);
    expect(f.volume).toBeCloseTo(6000, 6);
    expect(f.shellCount).toBe(1);
    expect(f.genus).toBe(0);
  });

  it('is tessellation-robust: a triangle soup gives the same facts after welding', async () => {
    const part = await plateWithHoles();
    const a = meshFacts(part.mesh);
    const b = meshFacts(soup(part.mesh));
    expect(b.vertexCount).toBe(a.vertexCount);
    expect(b.closed).toBe(true);
    expect(b.volume!).toBeCloseTo(part.volume, 1);
    expect(b.surfaceArea).toBeCloseTo(part.surfaceArea, 1);
    expect(b.genus).toBe(4);
  });

  it('counts shells and withholds the volume of an open mesh', async () => {
    const { mesh } = await box([1, 1, 1]);
    const two = mergeMeshes([mesh, applyToMesh(mesh, translation(5, 0, 0))]);
    expect(meshFacts(two).shellCount).toBe(2);
    expect(meshFacts(two).volume).toBeCloseTo(2, 6);
    const open: Mesh = { ...mesh, indices: mesh.indices.slice(3) };
    const f = meshFacts(open);
    expect(f.closed).toBe(false);
    expect(f.volume).toBeUndefined();
    expect(f.boundaryEdgeCount).toBe(3);
    expect(f.closedShellCount).toBe(0);
    expect(f.closedVolume).toBeUndefined();
  });

  it('sums the closed bodies of an assembly beside an open sheet, leaving the sheet out', async () => {
    const { mesh } = await box([1, 2, 3]);
    const sheet: Mesh = { ...mesh, indices: mesh.indices.slice(3) };
    const asm = mergeMeshes([mesh, applyToMesh(mesh, translation(5, 0, 0)), applyToMesh(sheet, translation(0, 9, 0))]);
    const f = meshFacts(asm);
    expect(f.closed).toBe(false);
    expect(f.volume).toBeUndefined();
    expect(f.shellCount).toBe(3);
    expect(f.closedShellCount).toBe(2);
    expect(f.closedVolume).toBeCloseTo(12, 6);
    // All closed: the volume itself, no partial sum.
    expect(meshFacts(mergeMeshes([mesh, applyToMesh(mesh, translation(5, 0, 0))])).closedVolume).toBeUndefined();
  });

  it('reports inward-facing meshes with a negative volume', async () => {
    const { mesh } = await box([2, 2, 2]);
    const flipped = mesh.indices.slice();
    for (let t = 0; t < flipped.length; t += 3) [flipped[t + 1], flipped[t + 2]] = [flipped[t + 2]!, flipped[t + 1]!];
    expect(meshFacts({ ...mesh, indices: flipped }).volume).toBeCloseTo(-8, 6);
  });

  it('welds within a tolerance and drops collapsed triangles', async () => {
    const { mesh } = await flange();
    const jittered = soup(mesh);
    for (let i = 0; i < jittered.positions.length; i++) jittered.positions[i]! += Math.sin(i * 12.9898) * 1e-5;
    const w = weld(jittered, 1e-3);
    expect(w.mesh.positions.length).toBe(weld(mesh, 0).mesh.positions.length);
    expect(meshFacts(jittered, { weldTolerance: 1e-3 }).closed).toBe(true);
  });
});
