// Every change a split makes to a design must change its geometry: a detail, a feature or a
// dimension edit that cuts nothing (a ribbed plate's chamfer once lay wholly outside the plate)
// is the original under another name, and the benchmark would count its matches as false.
import { describe, expect, it } from 'vitest';
import { loadManifold } from '../../geometry/testing/fixtures';
import { prng } from '../../geometry/search/descriptors/sampling';
import { ARCHETYPES } from './designs';

describe('search benchmark designs', () => {
  it('each detail, feature and dimension edit of every archetype changes the volume or the surface area', async () => {
    const m = await loadManifold();
    const unchanged: string[] = [];
    for (const a of ARCHETYPES) {
      const p = a.draw(prng([...a.name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 11)));
      const measure = (q: Record<string, number>) => {
        const s = a.build(m, q, 32);
        const out = [s.volume(), s.surfaceArea()];
        s.delete();
        return out;
      };
      const [v0, s0] = measure(p) as [number, number];
      const changes: [string, Record<string, number>][] = [
        [`detail ${a.detail}`, { ...p, [a.detail]: 1 }],
        ...a.features.map((f): [string, Record<string, number>] => [`feature ${f}`, { ...p, [f]: 1 }]),
        ...a.edits.map((k): [string, Record<string, number>] => [`edit ${k}`, { ...p, [k]: p[k]! * 1.04 }]),
      ];
      for (const [what, q] of changes) {
        const [v, s] = measure(q) as [number, number];
        if (Math.abs(v - v0) <= 1e-4 * v0 && Math.abs(s - s0) <= 1e-4 * s0) unchanged.push(`${a.name}: ${what}`);
      }
    }
    expect(unchanged).toEqual([]);
  }, 120_000);
});
