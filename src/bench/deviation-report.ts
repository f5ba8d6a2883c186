/**
 * `npm run bench:deviation-report`: the deviation report of two 100k-triangle models ≤ 5 s (issue
 * 36). Two variants of a generated part, subdivided to about 100,000 triangles each, are written
 * as viewer files (as ingestion stores them; not timed); then timed as the route runs them: both
 * viewer files read, the deviation both ways, four heat maps, the PDF. Median of BENCH_RUNS (3).
 */
import os from 'node:os';
import { importFile } from '../geometry/import/registry';
import { isImportError } from '../geometry/import/importer';
import { convertUnits, type Mesh } from '../geometry/mesh/mesh';
import { toViewerGlb } from '../geometry/output/viewer-file';
import { buildPart, subdivide } from '../geometry/testing/benchmark-dataset';
import { deviationPdf, type ReportModel } from '../service/reports/deviation-pdf';
import { heatMaps, measureDeviation } from '../service/reports/deviation-report';

const budgetMs = 5000;
const runs = Number(process.env.BENCH_RUNS ?? 3);

async function part(variant: number): Promise<Mesh> {
  // ~6,000 triangles with 208 segments on its circles, each split in four twice: ~100,000.
  return subdivide(subdivide(await buildPart('flange', variant, { segments: 208 })));
}

const facts = (name: string, mesh: Mesh): ReportModel => ({
  name,
  path: `Bench/${name}.stl`,
  fileType: 'stl',
  units: 'mm',
  triangles: mesh.indices.length / 3,
  size: null,
  area: null,
  volume: null,
});

async function main() {
  const [a, b] = [await part(0), await part(1)];
  const [glbA, glbB] = [await toViewerGlb(a), await toViewerGlb(b)];
  console.log(`A ${(a.indices.length / 3).toLocaleString('en')} triangles, B ${(b.indices.length / 3).toLocaleString('en')}`);
  const times: Record<string, number[]> = { read: [], measure: [], heatMaps: [], pdf: [], total: [] };
  let bytes = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const meshes = await Promise.all(
      [glbA, glbB].map(async (glb) => {
        const m = await importFile('viewer.glb', glb);
        if (isImportError(m)) throw new Error(m.reason);
        return convertUnits({ positions: m.positions, indices: m.indices, units: m.units }, 'mm');
      }),
    );
    const t1 = performance.now();
    const measured = measureDeviation(meshes[0]!, meshes[1]!, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 0.2);
    const t2 = performance.now();
    const maps = heatMaps(meshes[0]!, measured, 0.2);
    const t3 = performance.now();
    const pdf = await deviationPdf({
      a: facts('A', a),
      b: facts('B', b),
      placement: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
      placementSource: 'bench',
      toleranceMm: 0.2,
      units: 'mm',
      figures: measured.figures,
      heatMaps: maps,
      createdAt: new Date(),
    });
    const t4 = performance.now();
    bytes = pdf.length;
    times.read!.push(t1 - t0);
    times.measure!.push(t2 - t1);
    times.heatMaps!.push(t3 - t2);
    times.pdf!.push(t4 - t3);
    times.total!.push(t4 - t0);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  console.log(
    Object.entries(times)
      .map(([k, v]) => `${k} ${(median(v) / 1000).toFixed(2)} s`)
      .join(', '),
  );
  const total = median(times.total!);
  console.log(
    `deviation report of two ~100k-triangle models: ${(total / 1000).toFixed(2)} s median of ${runs} (budget 5 s, ratio ${(total / budgetMs).toFixed(2)}); PDF ${(bytes / 1024).toFixed(0)} KiB; load ${os.loadavg()[0]!.toFixed(1)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
