// A small in-memory version of the descriptor benchmark (two variants per family, all four kinds
// of duplicate: finer tessellation + STL, subdivided + OBJ, GLB, coarser tessellation + PLY).
// Prints the figures and holds them to issue 5's targets. The full-size run, through the real
// service, is `npm run bench:search`. Run alone with:
// npx vitest run src/geometry/descriptors/evaluate.test.ts
import { describe, expect, it } from 'vitest';
import { sphere } from '../fixtures';
import { meshFacts } from '../mesh-facts';
import { analyseShape } from './analysis';
import { buildDataset, buildPart, randomRigid, type BenchmarkRecord } from './benchmark-dataset';
import { containment, prepareContainment } from './containment';
import { duplicateMetrics, familyMetrics, geoTopK } from './evaluation';
import { geoDescriptorFromAnalysis, geoRelatedScore } from './geo-descriptor';
import { globalDescriptorFromAnalysis, partToPartScore } from './global-descriptor';
import { partToPartRescore, preparePart, type PreparedPart } from './rescore';
import { applyToMesh } from '../mesh';
import { prng } from './sampling';

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

describe('descriptor benchmark (small)', () => {
  it('part-to-part, family retrieval and geo-related', async () => {
    const records = (await buildDataset({ variants: 2, duplicates: 4, assemblies: false })).filter((r) => r.labels.kind !== 'assembly');
    const t0 = performance.now();
    const prepared: PreparedPart[] = records.map((r) => preparePart(r.mesh));
    const geo = records.map((r, i) => geoDescriptorFromAnalysis(prepared[i]!.analysis, meshFacts(r.mesh)));
    const perModel = (performance.now() - t0) / records.length;
    const n = records.length;
    const desc = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) desc[i * n + j] = i === j ? 100 : partToPartScore(prepared[i]!.descriptor, prepared[j]!.descriptor);
    // Exact rescoring of index candidates: pairs the descriptor puts at ≥ 97.
    const final = Float64Array.from(desc);
    const lifted = Float64Array.from(desc);
    let rescored = 0;
    const t1 = performance.now();
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        // Below 97 the rescored score (never above the descriptor's) cannot reach 98: skip the ICP.
        if (desc[i * n + j]! < 97) continue;
        const r = partToPartRescore(prepared[i]!, prepared[j]!);
        final[i * n + j] = final[j * n + i] = r.score;
        const up = r.alignmentScore >= 98 ? Math.max(r.descriptorScore, r.alignmentScore) : r.score;
        lifted[i * n + j] = lifted[j * n + i] = up;
        rescored++;
      }
    }
    const rescoreMs = (performance.now() - t1) / Math.max(1, rescored);
    const D = { score: (i: number, j: number) => desc[i * n + j]! };
    const F = { score: (i: number, j: number) => final[i * n + j]! };
    const G = { score: (i: number, j: number) => geoRelatedScore(geo[i]!, geo[j]!) };
    const dupD = duplicateMetrics(records, D);
    const dupF = duplicateMetrics(records, F);
    const dupL = duplicateMetrics(records, { score: (i: number, j: number) => lifted[i * n + j]! });
    const fam = familyMetrics(records, D);
    const geoRes = geoTopK(records, G, 10);
    const byId = new Map(records.map((r, i) => [r.id, i]));
    const against = (r: BenchmarkRecord, i: number) => final[i * n + byId.get(r.labels.partId)!]!;
    const mirrors = records.map((r, i) => [r, i] as const).filter(([r]) => r.labels.kind === 'mirror' && r.labels.chiral).map(([r, i]) => against(r, i));
    const achiral = records.map((r, i) => [r, i] as const).filter(([r]) => r.labels.kind === 'mirror' && !r.labels.chiral).map(([r, i]) => against(r, i));
    const scaled = (f: string) => records.map((r, i) => [r, i] as const).filter(([r]) => r.labels.kind === 'scaled' && r.labels.variation === f).map(([r, i]) => against(r, i));
    const line = (name: string, v: number[]) => `${name}: min ${Math.min(...v).toFixed(1)}, max ${Math.max(...v).toFixed(1)} (n=${v.length})`;
    console.log(
      [
        `records ${n}; analysis + descriptors ${perModel.toFixed(0)} ms/model; rescoring ${rescored} pairs at ${rescoreMs.toFixed(0)} ms/pair`,
        `duplicates @98, descriptor only: precision ${pct(dupD.precision)}, recall ${pct(dupD.recall)} (worst dup ${dupD.worstDuplicate.score.toFixed(1)} ${dupD.worstDuplicate.a}~${dupD.worstDuplicate.b}; best non-dup ${dupD.bestNonDuplicate.score.toFixed(1)} ${dupD.bestNonDuplicate.a}~${dupD.bestNonDuplicate.b})`,
        `duplicates @98, rescored:        precision ${pct(dupF.precision)}, recall ${pct(dupF.recall)} (worst dup ${dupF.worstDuplicate.score.toFixed(1)} ${dupF.worstDuplicate.a}~${dupF.worstDuplicate.b}; best non-dup ${dupF.bestNonDuplicate.score.toFixed(1)} ${dupF.bestNonDuplicate.a}~${dupF.bestNonDuplicate.b})`,
        `duplicates @98, confirmDuplicates: precision ${pct(dupL.precision)}, recall ${pct(dupL.recall)} (best non-dup ${dupL.bestNonDuplicate.score.toFixed(1)} ${dupL.bestNonDuplicate.a}~${dupL.bestNonDuplicate.b})`,
        `family retrieval (${fam.queries} queries): NN ${pct(fam.nn)}, mAP ${pct(fam.map)}`,
        line('mirrored chiral vs original (rescored)', mirrors),
        line('mirrored achiral vs original (rescored)', achiral),
        line('scaled x1.1 vs original', scaled('1.1')),
        line('scaled x2 vs original', scaled('2')),
        `geo-related top-10: ${pct(geoRes.rate)} of ${geoRes.queries}${geoRes.misses.length ? ` (misses ${geoRes.misses.join(', ')})` : ''}`,
      ].join('\n'),
    );
    // Issue 5's targets on this labelled set (the production score is the rescored one).
    expect(Math.max(...scaled('2'))).toBeLessThan(98);
    expect(Math.max(...scaled('1.1'))).toBeLessThan(98);
    expect(Math.max(...mirrors)).toBeLessThan(98);
    expect(dupF.precision).toBeGreaterThanOrEqual(0.99);
    expect(dupF.recall).toBeGreaterThanOrEqual(0.98);
    expect(fam.nn).toBeGreaterThanOrEqual(0.95);
    expect(fam.map).toBeGreaterThanOrEqual(0.85);
    expect(geoRes.rate).toBeGreaterThanOrEqual(0.9);
  }, 300_000);

  it('part-in-part on assemblies (registration unknown)', async () => {
    const asms = (await buildDataset({ families: [], assemblies: true })).filter((r) => r.labels.kind === 'assembly');
    const rand = prng(5);
    const rows: string[] = [];
    let fwdOk = 0, revAsmOk = 0, total = 0, maxRevErr = 0, sumRevErr = 0, ms = 0;
    for (const a of asms) {
      const A = prepareContainment(a.mesh, { samples: 8192 });
      for (const p of a.labels.parts!) {
        const [family, v] = [p.partId.replace(/-\d+$/, ''), Number(p.partId.split('-').pop())];
        const Q = prepareContainment(applyToMesh(await buildPart(family as 'plate', v), randomRigid(rand)));
        const t = performance.now();
        const r = containment(Q, A);
        ms += performance.now() - t;
        // The assembly as the query: the same registration seen from the other side.
        const asmFwd = r.reverse, asmRev = r.forward;
        const err = Math.abs(r.reverse - 100 * p.areaShare);
        total++;
        if (r.forward >= 90) fwdOk++;
        if (asmRev >= 90) revAsmOk++;
        maxRevErr = Math.max(maxRevErr, err);
        sumRevErr += err;
        rows.push(`  ${a.id} ∋ ${p.partId}: share ${(100 * p.areaShare).toFixed(1)}, forward ${r.forward.toFixed(1)}, reverse ${r.reverse.toFixed(1)}; assembly→part forward ${asmFwd.toFixed(1)}, reverse ${asmRev.toFixed(1)}`);
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
      console.log(`${mesh.indices.length / 3} triangles: analysis + global descriptor ${(t1 - t).toFixed(0)} ms, meshFacts ${(t2 - t1).toFixed(0)} ms, geo ${(t3 - t2).toFixed(1)} ms (wall clock on a shared machine)`);
      expect(g.every(Number.isFinite)).toBe(true);
    }
  }, 60_000);
});
