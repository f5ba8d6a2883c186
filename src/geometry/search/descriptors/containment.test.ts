import { describe, expect, it } from 'vitest';
import { applyToMesh } from '../../mesh/mesh';
import { invertRigidMat4, multiply, transformPoint, type Mat4 } from '../../mesh/transform';
import { buildAssemblies, buildPart, randomRigid } from '../../testing/benchmark-dataset';
import { containment, prepareContainment } from './containment';
import { prng } from './sampling';

/** Largest displacement between two placements over a set of points. */
function placementError(a: Mat4, b: Mat4, pts: [number, number, number][]): number {
  return Math.max(
    ...pts.map((p) => {
      const x = transformPoint(a, p),
        y = transformPoint(b, p);
      return Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
    }),
  );
}

describe('containment', () => {
  it('finds a part in a 2-part assembly: placement, forward ≈ 100, reverse ≈ its area share', async () => {
    const asm = (await buildAssemblies()).find((a) => a.id === 'asm-block-bracket')!;
    const A = prepareContainment(asm.mesh, { samples: 8192 });
    const truth = asm.labels.parts!.find((p) => p.partId === 'bracket-0')!;
    const local = await buildPart('bracket', 0);
    const move = randomRigid(prng(77));
    const Q = prepareContainment(applyToMesh(local, move));
    const r = containment(Q, A);
    // The query was moved by `move`, so the true placement of the query is truth ∘ move⁻¹.
    const expected = multiply(truth.transform, invertRigidMat4(move));
    const corners: [number, number, number][] = [
      [0, 0, 0],
      [50, 0, 0],
      [0, 40, 0],
      [0, 0, 30],
      [50, 40, 30],
    ].map((p) => transformPoint(move, p as [number, number, number]));
    expect(placementError(r.transform, expected, corners)).toBeLessThan(1.5);
    expect(r.forward).toBeGreaterThan(95);
    expect(Math.abs(r.reverse - 100 * truth.areaShare)).toBeLessThan(5);
    // The assembly queried against its part: reverse ≈ 100.
    const back = containment(A, Q);
    expect(back.reverse).toBeGreaterThan(90);
    expect(Math.abs(back.forward - 100 * truth.areaShare)).toBeLessThan(5);
  });

  it('uses a known placement for linked parts of a 3-part assembly', async () => {
    const asm = (await buildAssemblies()).find((a) => a.id === 'asm-plate-bolt-nut')!;
    const A = prepareContainment(asm.mesh, { samples: 8192 });
    for (const p of asm.labels.parts!) {
      const [family, v] = [p.partId.replace(/-\d+$/, ''), Number(p.partId.split('-').pop())];
      const Q = prepareContainment(await buildPart(family as 'plate', v));
      const r = containment(Q, A, { placement: p.transform });
      expect(r.method).toBe('known');
      expect(r.forward).toBeGreaterThan(90);
      expect(Math.abs(r.reverse - 100 * p.areaShare)).toBeLessThan(5);
    }
  });
});
