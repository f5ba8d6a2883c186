/**
 * `npm run bench:similar`: "what else looks like this part?" — family retrieval below the
 * duplicate rule, per source, by the two signatures the service holds for every model: the
 * part-to-part descriptor and the view set image search renders at ingestion
 * (geometry/search/views/view-set-distance.ts), alone, mixed, and as part-to-part mixes them.
 * Sets, each split by family: the synthetic dev and frozen splits (search-data/split.ts: a
 * family is one design, its variants and details), the real set (CAx-IF, MCAD, KiCad series
 * chosen by hand: real-parts.ts) and KiCad series found by name (search-data/kicad-families.ts,
 * dev and frozen by a hash of the family). Every member of a family queries the rest of its set:
 * nearest neighbour = the closest other model is of its family; mAP over the family's members.
 * Knobs: BENCH_SETS (dev,frozen,real,kicad-dev,kicad-frozen; also real-dev, real-frozen), BENCH_DESIGNS (3),
 * BENCH_MIX (the views' shares of a mix), BENCH_MEAN (the mean view's shares as a descriptor block),
 * BENCH_SHAPE_VIEWS=1 (also the depth views of shape-views.ts), BENCH_RERANK (the descriptor's k nearest by views),
 * BENCH_VIEWS_SHARE (other shares of the views beyond part-to-part's gate).
 * The row "part-to-part" is the service's ranking (geometry/search/similar-distance.ts).
 */
import { pathToFileURL } from 'node:url';
import { meshFacts, weld } from '../geometry/mesh/mesh-facts';
import { computeSearchFeatures } from '../geometry/search/search-features';
import { descriptorDistance, scoreFromDistance } from '../geometry/search/descriptors/global-descriptor';
import { similarDistance, VIEWS_BEYOND } from '../geometry/search/similar-distance';
import { modelViews } from '../geometry/search/views/model-views';
import { quantizeViews, VIEW_STEP } from '../geometry/search/views/view-index';
import { viewSetDistance, type ViewSet } from '../geometry/search/views/view-set-distance';
import { shapeViewDistance, shapeViews, type ShapeViews } from './shape-views';
import { buildKicadFamilies, splitOf } from './search-data/kicad-families';
import { meshOf } from './search-data/gallery';
import { buildRealParts } from './search-data/real-parts';
import { buildSplit, type SearchRecord } from './search-data/split';

export interface Member {
  id: string;
  family: string;
  global: Float32Array | number[];
  views: ViewSet;
  /** Mean of its weighted view descriptors (a fixed-length summary of how it looks from all sides). */
  viewMean: Float64Array;
  /** The probe's shape views (BENCH_SHAPE_VIEWS=1, shape-views.ts). */
  shape?: ShapeViews;
}

/**
 * The set's originals, variants and details, read as ingestion reads them, with their part-to-part
 * descriptor and (unless `views: false`) the view set image search renders.
 */
export async function members(records: SearchRecord[], o: { views?: boolean } = {}): Promise<{ members: Member[]; viewsMs: number }> {
  const out: Member[] = [];
  let viewsMs = 0;
  for (const r of records.filter((x) => ['original', 'variant', 'detail'].includes(x.kind))) {
    const mesh = await meshOf(r);
    if (!mesh) continue;
    const welded = weld(mesh);
    const features = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
    let views: ViewSet = { count: 0, dim: 0, data: new Uint8Array() };
    let viewMean = new Float64Array(0);
    if (o.views !== false) {
      const t = performance.now();
      const v = await modelViews(mesh);
      viewsMs += performance.now() - t;
      views = { count: v.count, dim: v.dim, data: quantizeViews(v.data) };
      viewMean = new Float64Array(v.dim);
      for (let k = 0; k < v.count * v.dim; k++) viewMean[k % v.dim]! += (views.data[k]! * VIEW_STEP) / v.count;
    }
    const shape = process.env.BENCH_SHAPE_VIEWS === '1' ? await shapeViews(mesh) : undefined;
    out.push({ id: r.id, family: r.design, global: features.global, views, viewMean, ...(shape ? { shape } : {}) });
  }
  return { members: out, viewsMs };
}

/**
 * The records of a benchmark set by name (BENCH_SETS): dev, frozen, real, kicad-dev, kicad-frozen,
 * and real-dev / real-frozen (the real set's families split by a hash of their name, as the KiCad
 * series are: real files a setting may be chosen on, and others it is reported on).
 */
export async function setRecords(name: string, perArchetype: number): Promise<SearchRecord[]> {
  if (name === 'real-dev' || name === 'real-frozen')
    return (await buildRealParts()).filter((r) => splitOf(r.design) === (name === 'real-dev' ? 'dev' : 'frozen'));
  return name.startsWith('kicad-')
    ? buildKicadFamilies(name === 'kicad-dev' ? 'dev' : 'frozen')
    : name === 'real'
      ? await buildRealParts()
      : await buildSplit(name as 'dev' | 'frozen', { perArchetype });
}

/** Nearest neighbour and mAP with every member of a family of two or more as a query. */
function retrieval(ms: Member[], distance: (i: number, j: number) => number) {
  let nn = 0,
    ap = 0,
    queries = 0;
  for (let i = 0; i < ms.length; i++) {
    const others = ms.map((m, j) => ({ j, rel: m.family === ms[i]!.family })).filter((o) => o.j !== i);
    const relevant = others.filter((o) => o.rel).length;
    if (!relevant) continue;
    const d = others.map((o) => distance(i, o.j));
    const order = others.map((_, k) => k).sort((a, b) => d[a]! - d[b]!);
    if (others[order[0]!]!.rel) nn++;
    let hits = 0,
      sum = 0;
    order.forEach((k, rank) => {
      if (others[k]!.rel) sum += ++hits / (rank + 1);
    });
    ap += sum / relevant;
    queries++;
  }
  return { nn: nn / queries, map: ap / queries, queries };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main() {
  const sets = process.env.BENCH_SETS?.split(',') ?? ['dev', 'frozen', 'real', 'kicad-dev', 'kicad-frozen'];
  const per = Number(process.env.BENCH_DESIGNS ?? 3);
  const rows: string[] = [];
  for (const name of sets) {
    const records = await setRecords(name, per);
    const { members: ms, viewsMs } = await members(records);
    const n = ms.length;
    const g = new Float64Array(n * n),
      w = new Float64Array(n * n),
      mv = new Float64Array(n * n),
      sv = new Float64Array(n * n);
    const t = performance.now();
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        g[i * n + j] = g[j * n + i] = descriptorDistance(ms[i]!.global, ms[j]!.global);
        w[i * n + j] = w[j * n + i] = viewSetDistance(ms[i]!.views, ms[j]!.views);
        mv[i * n + j] = mv[j * n + i] = descriptorDistance(ms[i]!.viewMean, ms[j]!.viewMean);
        if (ms[i]!.shape && ms[j]!.shape) sv[i * n + j] = sv[j * n + i] = shapeViewDistance(ms[i]!.shape!, ms[j]!.shape!);
      }
    const pairMs = (performance.now() - t) / ((n * (n - 1)) / 2);
    // Each distance over its median between models of the set, so that the mix weighs both alike.
    const upper = (m: Float64Array) =>
      Array.from({ length: n }, (_, i) => Array.from({ length: n - i - 1 }, (_, k) => m[i * n + i + 1 + k]!)).flat();
    const gm = median(upper(g)),
      wm = median(upper(w)),
      mvm = median(upper(mv));
    const by: Record<string, ReturnType<typeof retrieval>> = {
      descriptor: retrieval(ms, (i, j) => g[i * n + j]!),
      views: retrieval(ms, (i, j) => w[i * n + j]!),
    };
    // The views' share of the mix, each distance over its median (BENCH_MIX, comma-separated).
    const shares = (process.env.BENCH_MIX ?? '0.5').split(',').map(Number);
    for (const share of shares)
      by[`mix ${share}`] = retrieval(ms, (i, j) => ((1 - share) * g[i * n + j]!) / gm + (share * w[i * n + j]!) / wm);
    if (ms[0]?.shape) {
      const svm = median(upper(sv));
      by['shape views'] = retrieval(ms, (i, j) => sv[i * n + j]!);
      for (const share of shares)
        by[`descriptor + shape views ${share}`] = retrieval(
          ms,
          (i, j) => ((1 - share) * g[i * n + j]!) / gm + (share * sv[i * n + j]!) / svm,
        );
    }
    // The descriptor's k nearest put in order by the views (BENCH_RERANK, comma-separated k): a
    // re-ranking that never brings in a model the descriptor's index would not return.
    for (const k of (process.env.BENCH_RERANK ?? '').split(',').filter(Boolean).map(Number)) {
      const rank = new Float64Array(n * n);
      for (let i = 0; i < n; i++) {
        const order = [...Array(n).keys()].filter((j) => j !== i).sort((a, b) => g[i * n + a]! - g[i * n + b]!);
        const head = order.slice(0, k).sort((a, b) => w[i * n + a]! - w[i * n + b]!);
        [...head, ...order.slice(k)].forEach((j, r) => (rank[i * n + j] = r));
      }
      by[`descriptor's ${k} nearest by views`] = retrieval(ms, (i, j) => rank[i * n + j]!);
    }
    // As part-to-part ranks below the rule (similar-distance.ts): the views count for pairs the
    // descriptor finds far apart. The scores of those pairs, same design or not, show the bands.
    const served = (i: number, j: number) => similarDistance(g[i * n + j]!, () => w[i * n + j]!);
    by['part-to-part (descriptor, views beyond the gate)'] = retrieval(ms, served);
    // Other shares of the views beyond the gate (BENCH_VIEWS_SHARE, comma-separated).
    for (const share of (process.env.BENCH_VIEWS_SHARE ?? '').split(',').filter(Boolean).map(Number))
      by[`views ${share} beyond the gate`] = retrieval(ms, (i, j) => similarDistance(g[i * n + j]!, () => w[i * n + j]!, share));
    const bands = { descriptor: { same: [] as number[], other: [] as number[] }, served: { same: [] as number[], other: [] as number[] } };
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        if (g[i * n + j]! <= VIEWS_BEYOND) continue;
        const kind = ms[i]!.family === ms[j]!.family ? 'same' : 'other';
        bands.descriptor[kind].push(scoreFromDistance(g[i * n + j]!));
        bands.served[kind].push(scoreFromDistance(served(i, j)));
      }
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))] ?? NaN;
    for (const [label, b] of Object.entries(bands))
      console.log(
        `${name}: pairs beyond ${VIEWS_BEYOND} by ${label}: same design ${b.same.length} (score median ${pct(b.same, 0.5).toFixed(0)}, 90th percentile ${pct(b.same, 0.9).toFixed(0)}), ` +
          `different designs ${b.other.length} (median ${pct(b.other, 0.5).toFixed(0)}, 99th percentile ${pct(b.other, 0.99).toFixed(0)})`,
      );
    // The mean view descriptor as one more block of the L2 descriptor (each over its median), BENCH_MEAN shares.
    by['view mean'] = retrieval(ms, (i, j) => mv[i * n + j]!);
    for (const share of (process.env.BENCH_MEAN ?? '').split(',').filter(Boolean).map(Number))
      by[`L2 + view mean ${share}`] = retrieval(ms, (i, j) =>
        Math.hypot(((1 - share) * g[i * n + j]!) / gm, (share * mv[i * n + j]!) / mvm),
      );
    const fam = new Set(ms.map((m) => m.family)).size;
    for (const [k, r] of Object.entries(by))
      rows.push(`| ${name} | ${n} / ${fam} | ${k} | ${r.nn.toFixed(2)} | ${r.map.toFixed(2)} | ${r.queries} |`);
    console.log(
      `${name}: ${n} models in ${fam} families; views ${(viewsMs / n).toFixed(0)} ms a model, a view-set pair ${pairMs.toFixed(2)} ms; ` +
        `median distances: descriptor ${gm.toFixed(2)}, views ${wm.toFixed(4)} (similar-distance.ts holds dev's)`,
    );
  }
  console.log('\n| set | models / families | ranked by | nearest neighbour | mAP | queries |\n|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
