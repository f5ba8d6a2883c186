/**
 * Budget: listing 100 models by id — `GET /v2/models?filter=id(in(...))&perPage=100` — with
 * 20,000 models stored answers in ≤ 50 ms at p95.
 * Starts the real service (Fastify, PGlite in a throwaway data directory, the identity provider's
 * real signing key for the token), stores the models directly through the store in bulk (as
 * finished ingestion leaves them: facts, thumbnail, one metadata value each), then times
 * sequential requests for random id sets over HTTP, response body read and parsed.
 */
import { sql } from 'kysely';
import { modelListResponseSchema } from '../contract/models';
import { createMetadataKey } from '../service/store/metadata-keys';
import { createFolder } from '../service/store/folders';
import { startTestService } from '../service/testing/start-test-service';

const budgetMs = 50;
const modelCount = Number(process.env.BENCH_MODELS ?? 20_000);
const requests = Number(process.env.BENCH_REQUESTS ?? 200);
const perRequest = 100;

async function main() {
  const t = await startTestService();
  try {
    const user = await t.createUser({ tenantKey: 'bench', roles: ['viewer'] });
    const token = await t.tokenFor(user);
    const { db } = t;
    const folders = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createFolder(db, { tenantId: user.tenantId, name: `bench-${i}` })),
    );
    const key = await createMetadataKey(db, user.tenantId, 'Material');
    if (!key) throw new Error('metadata key not created');

    const t0 = performance.now();
    const ids: string[] = [];
    const batch = 1000;
    for (let start = 0; start < modelCount; start += batch) {
      const rows = Array.from({ length: Math.min(batch, modelCount - start) }, (_, k) => {
        const i = start + k;
        const folder = folders[i % folders.length]!;
        const id = crypto.randomUUID();
        ids.push(id);
        const fileName = `part-${String(i).padStart(5, '0')}.step`;
        const filePath = `${folder.name}/${fileName}`;
        return {
          id,
          tenant_id: user.tenantId,
          folder_id: folder.id,
          name: `Part ${i}`,
          file_path: filePath,
          file_path_lower: filePath.toLowerCase(),
          file_name: fileName,
          file_name_lower: fileName.toLowerCase(),
          file_type: 'step',
          state: 'finished',
          size_bytes: 100_000 + i,
          blob_key: `tenants/${user.tenantId}/models/${id}/source`,
          viewer_key: `tenants/${user.tenantId}/models/${id}/derived-v1/viewer.glb`,
          thumbnail_key: `tenants/${user.tenantId}/models/${id}/derived-v1/thumbnail.png`,
          facts: JSON.stringify({
            triangles: 5000 + i,
            boundingBox: { min: [0, 0, 0], max: [10, 20, 30] },
            surfaceArea: 2200,
            volume: 6000,
            shells: 1,
            units: 'mm',
          }),
        };
      });
      await db.insertInto('models').values(rows).execute();
      await db
        .insertInto('model_metadata')
        .values(rows.map((r, k) => ({ model_id: r.id, metadata_key_id: key.id, value: ['Steel', 'Brass', 'Aluminium'][(start + k) % 3]! })))
        .execute();
    }
    await sql`analyze`.execute(db); // fresh planner statistics after the bulk insert, as autovacuum would gather
    console.log(`stored ${modelCount.toLocaleString('en-US')} models in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const pick = () => {
      const chosen = new Set<string>();
      while (chosen.size < perRequest) chosen.add(ids[Math.floor(Math.random() * ids.length)]!);
      return [...chosen];
    };
    const once = async (set: string[]) => {
      const started = performance.now();
      const response = await t.api(`/v2/models?filter=${encodeURIComponent(`id(in(${set.join(',')}))`)}&perPage=${perRequest}`, { token });
      const body = modelListResponseSchema.parse(await response.json());
      const ms = performance.now() - started;
      if (response.status !== 200 || body.models.length !== perRequest)
        throw new Error(`expected ${perRequest} models, got status ${response.status} with ${body.models.length}`);
      return ms;
    };
    for (let i = 0; i < 20; i++) await once(pick()); // warm-up: JIT, query plans, connection

    const samples: number[] = [];
    for (let i = 0; i < requests; i++) samples.push(await once(pick()));
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]!;
    const p95 = at(0.95);
    console.log(
      `list ${perRequest} models by id(in(...)) of ${modelCount.toLocaleString('en-US')}: p50 ${at(0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms over ${requests} requests (budget p95 ${budgetMs} ms, ratio ${(p95 / budgetMs).toFixed(2)})`,
    );
  } finally {
    await t.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
