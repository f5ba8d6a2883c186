// Part-in-part on the original benchmark's assemblies and the descriptor's cost. The duplicate
// rule's small benchmark is src/bench/search-data/search-quality.test.ts; the full one is
// `npm run bench:search`. Run alone with:
// npx vitest run src/geometry/search/descriptors/evaluate.test.ts
import { describe, expect, it } from 'vitest';
import { sphere } from '../../testing/fixtures';
import { meshFacts } from '../../mesh/mesh-facts';
import { analyseShape } from './analysis';
import { buildDataset, buildPart, randomRigid } from '../../testing/benchmark-dataset';
import { containment, prepareContainment } from './containment';
import { geoDescriptorFromAnalysis } from './geo-descriptor';
import { globalDescriptorFromAnalysis } from './global-descriptor';
import { applyToMesh } from '../../mesh/mesh';
import { prng } from './sampling';

describe('descriptor benchmark (small)', () => {
  it('part-in-part on assemblies (registration unknown)', async () => {
    const asms = (await buildDataset({ families: [], assemblies: true })).filter((r) => r.labels.kind === 'assembly');
    const rand = prng(5);
    const rows: string[] = [];
    let fwdOk = 0,
      revAsmOk = 0,
      total = 0,
      maxRevErr = 0,
      sumRevErr = 0,
      ms = 0;
    for (const a of asms) {
      const A = prepareContainment(a.mesh, { samples: 8192 });
      for (const p of a.labels.parts!) {
        const [family, v] = [p.partId.replace(/-\d+$/, ''), Number(p.partId.split('-').pop())];
        const Q = prepareContainment(applyToMesh(await buildPart(family as 'plate', v), randomRigid(rand)));
        const t = performance.now();
        const r = containment(Q, A);
        ms += performance.now() - t;
        // The assembly as the query: the same registration seen from the other side.
        const asmFwd = r.reverse,
          asmRev = r.forward;
        const err = Math.abs(r.reverse - 100 * p.areaShare);
        total++;
        if (r.forward >= 90) fwdOk++;
        if (asmRev >= 90) revAsmOk++;
        maxRevErr = Math.max(maxRevErr, err);
        sumRevErr += err;
        rows.push(
          `  ${a.id} ∋ ${p.partId}: share ${(100 * p.areaShare).toFixed(1)}, forward ${r.forward.toFixed(1)}, reverse ${r.reverse.toFixed(1)}; assembly→part forward ${asmFwd.toFixed(1)}, reverse ${asmRev.toFixed(1)}`,
        );
      }
    }
    console.log(
      [
        `part-in-part: forward ≥ 90 in ${fwdOk}/${total}; |reverse − true share| mean ${(sumRevErr / total).toFixed(2)}, max ${maxRevErr.toFixed(2)} points; assembly finds part with reverse ≥ 90 in ${revAsmOk}/${total}; ${(ms / total).toFixed(0)} ms/pair`,
        ...rows,
      ].join('\n'),
    );
    expect(fwdOk / total).toBeGreaterThan(0.7);
  }, 120_000);

  it('descriptor cost for 50k-triangle parts', async () => {
    const meshes = [(await sphere({ triangles: 50_000 })).mesh, await buildPart('flange', 0, { segments: 400 })];
    for (const mesh of meshes) {
      analyseShape(mesh); // warm-up
      const t = performance.now();
      const a = analyseShape(mesh);
      const g = globalDescriptorFromAnalysis(a);
      const t1 = performance.now();
      const facts = meshFacts(mesh);
      const t2 = performance.now();
      geoDescriptorFromAnalysis(a, facts);
      const t3 = performance.now();
      console.log(
        `${mesh.indices.length / 3} triangles: analysis + global descriptor ${(t1 - t).toFixed(0)} ms, meshFacts ${(t2 - t1).toFixed(0)} ms, geo ${(t3 - t2).toFixed(1)} ms (wall clock on a shared machine)`,
      );
      expect(g.every(Number.isFinite)).toBe(true);
    }
  }, 60_000);
});
