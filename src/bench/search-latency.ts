/**
 * Budget: every match endpoint answers in ≤ 150 ms at p95 with 20,000 models of one tenant in the
 * embedded store; `GET /v2/folders/{id}/duplicates` of a 5,000-model folder in ≤ 2 s.
 *
 * Starts the real service (PGlite with pgvector in a throwaway data directory), stores generated
 * models with generated search features directly through the store (bulk), then times sequential
 * requests over HTTP for distinct query models (cold: nothing cached), and the same again (warm).
 * Generated descriptors: the real features of a few benchmark parts plus Gaussian noise of a
 * random size per model, so that each query has near neighbours at every score level, duplicates
 * included (which get exact rescoring). Blobs carry BENCH_BLOB_SAMPLES real samples (default
 * 4096, as ingestion stores for single-shell parts).
 *
 * `npx tsx src/bench/search-latency.ts` (BENCH_MODELS, BENCH_QUERIES, BENCH_FOLDER_MODELS).
 */
import os from 'node:os';
import { sql } from 'kysely';
import { pathToFileURL } from 'node:url';
import { buildPart, FAMILIES } from '../geometry/descriptors/benchmark-dataset';
import { analyseShape } from '../geometry/descriptors/analysis';
import { prng } from '../geometry/descriptors/sampling';
import { meshFacts, weld } from '../geometry/mesh-facts';
import { computeSearchFeatures, encodePrepared, type SearchFeatures } from '../geometry/search-features';
import { searchDb } from '../service/search/tables';
import { createFolder } from '../service/store/folders';
import { startTestService } from '../service/testing/start-test-service';

export interface LatencyFigures {
  models: number;
  queries: number;
  /** Per endpoint: p50/p95/max in ms, cold (first query of each model) and warm (repeated). */
  endpoints: Record<string, { cold: Stats; warm: Stats }>;
  duplicates: { folderModels: number; ms: number; clusters: number };
  loadMs: number;
  loadavg: number[];
}
interface Stats {
  p50: number;
  p95: number;
  max: number;
}

export async function measureSearchLatency(o: { models?: number; queries?: number; folderModels?: number; blobSamples?: number } = {}): Promise<LatencyFigures> {
  const modelCount = o.models ?? 20_000;
  const queries = o.queries ?? 40;
  const folderModels = Math.min(o.folderModels ?? 5_000, modelCount);
  const blobSamples = o.blobSamples ?? 4096;
  const bases = await baseFeatures(blobSamples);
  const t = await startTestService();
  try {
    const user = await t.createUser({ tenantKey: 'bench', roles: ['viewer'] });
    const token = await t.tokenFor(user);
    const { db } = t;
    const folders = await Promise.all(Array.from({ length: 16 }, (_, i) => createFolder(db, { tenantId: user.tenantId, name: `bench-${i}` })));
    const rand = prng(4242);
    const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    const t0 = performance.now();
    // A bulk load: HNSW indexes are built once afterwards (as one would for an import), not per row.
    const hnsw = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where indexdef like '%hnsw%'`.execute(db);
    for (const i of hnsw.rows) await sql.raw(`drop index ${i.indexname}`).execute(db);
    const ids: string[] = [];
    const batch = 500;
    for (let start = 0; start < modelCount; start += batch) {
      const n = Math.min(batch, modelCount - start);
      const models = [];
      const features = [];
      const components = [];
      for (let k = 0; k < n; k++) {
        const i = start + k;
        // The first `folderModels` go to folder 0 (the duplicates figure), the rest spread.
        const folder = i < folderModels ? folders[0]! : folders[1 + (i % (folders.length - 1))]!;
        const id = crypto.randomUUID();
        ids.push(id);
        const fileName = `part-${String(i).padStart(5, '0')}.stl`;
        models.push({ id, tenant_id: user.tenantId, folder_id: folder.id, name: fileName, file_path: `${folder.name}/${fileName}`, file_path_lower: `${folder.name}/${fileName}`, file_name: fileName, file_name_lower: fileName, file_type: 'stl', state: 'finished' });
        const base = bases[i % bases.length]!;
        // Noise from duplicate-level (σ·√139 ≈ 0.3) to other-part-level (≈ 20).
        const sigma = 0.025 * Math.exp(rand() * Math.log(70));
        const global = Array.from(base.global, (v) => v + sigma * gauss());
        const geo = Array.from(base.geo, (v) => v + 0.1 * sigma * gauss());
        features.push({ model_id: id, tenant_id: user.tenantId, version: base.version, global_desc: global, geo_desc: geo, area: base.area, shells: 1, prepared: base.prepared });
        components.push({ model_id: id, idx: 0, tenant_id: user.tenantId, descriptor: global, area_share: 1, copies: 1, pose: JSON.stringify(base.components[0]!.pose) });
      }
      const s = searchDb(db);
      await db.insertInto('models').values(models).execute();
      await s.insertInto('search_features').values(features).execute();
      await s.insertInto('search_components').values(components).execute();
    }
    await sql`set maintenance_work_mem = '256MB'`.execute(db);
    for (const i of hnsw.rows) await sql.raw(i.indexdef).execute(db);
    const loadMs = performance.now() - t0;

    const get = async (path: string) => {
      const s = performance.now();
      const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      await res.json();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return performance.now() - s;
    };
    const pick = prng(7);
    const sample = Array.from({ length: queries }, () => ids[Math.floor(pick() * ids.length)]!);
    const endpoints: LatencyFigures['endpoints'] = {};
    for (const kind of ['part-to-part', 'geo-related', 'part-in-part']) {
      await get(`/v2/models/${ids[0]}/${kind}-matches`); // JIT and connection warm-up, not counted
      const cold: number[] = [];
      const warm: number[] = [];
      for (const id of sample) cold.push(await get(`/v2/models/${id}/${kind}-matches?threshold=50`));
      for (const id of sample) warm.push(await get(`/v2/models/${id}/${kind}-matches?threshold=50&page=2`));
      endpoints[kind] = { cold: stats(cold), warm: stats(warm) };
    }
    const d0 = performance.now();
    const res = await fetch(`${t.baseUrl}/v2/folders/${folders[0]!.id}/duplicates`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { clusters: unknown[]; modelCount: number };
    const duplicates = { folderModels: body.modelCount, ms: performance.now() - d0, clusters: body.clusters.length };
    return { models: modelCount, queries, endpoints, duplicates, loadMs, loadavg: os.loadavg() };
  } finally {
    await t.stop();
  }
}

async function baseFeatures(blobSamples: number): Promise<SearchFeatures[]> {
  const out: SearchFeatures[] = [];
  for (const family of FAMILIES) {
    const mesh = await buildPart(family, 0);
    const welded = weld(mesh);
    const f = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
    if (blobSamples !== 4096) f.prepared = encodePrepared(analyseShape(mesh, { samples: blobSamples }));
    out.push(f);
  }
  return out;
}

function stats(values: number[]): Stats {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(s[s.length - 1] ?? 0) };
}

const round = (v: number) => Math.round(v * 10) / 10;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await measureSearchLatency({
    models: Number(process.env.BENCH_MODELS ?? 20_000),
    queries: Number(process.env.BENCH_QUERIES ?? 40),
    folderModels: Number(process.env.BENCH_FOLDER_MODELS ?? 5_000),
    blobSamples: Number(process.env.BENCH_BLOB_SAMPLES ?? 4096),
  });
  console.log(`loaded ${figures.models} models with search features in ${(figures.loadMs / 1000).toFixed(1)} s`);
  for (const [kind, f] of Object.entries(figures.endpoints)) {
    console.log(`${kind.padEnd(13)} cold p50 ${f.cold.p50} ms  p95 ${f.cold.p95} ms  max ${f.cold.max} ms | warm p50 ${f.warm.p50} ms  p95 ${f.warm.p95} ms ${f.cold.p95 <= 150 ? '✓' : '✗'} (budget 150 ms)`);
  }
  console.log(`duplicates of a ${figures.duplicates.folderModels}-model folder: ${figures.duplicates.ms.toFixed(0)} ms, ${figures.duplicates.clusters} clusters ${figures.duplicates.ms <= 2000 ? '✓' : '✗'} (budget 2 s)`);
  console.log(`load average ${figures.loadavg.map((l) => l.toFixed(2)).join(' ')} (wall-clock figures on a shared 2-core machine)`);
}
