/**
 * npm run bench:scan — match candidates on a PostgreSQL server without pgvector (the exact scan of
 * search/vector-index.ts) at 100,000 models of one tenant: the first read, steady queries, and
 * queries right after models changed (each change bumps the tenant's generation, and the scan
 * reads only the changed rows; rows written in the last 10 s are read again, so right after a bulk
 * load of N rows each change re-reads them). Budget: p95 ≤ 150 ms. Descriptors are random (their values do not
 * change the work); the rows are real rows of the service's schema.
 *
 * Knobs: BENCH_SCAN_MODELS (default 100000).
 */
import { sql } from 'kysely';
import { GEO_DESCRIPTOR_LENGTH } from '../geometry/search/descriptors/geo-descriptor';
import { GLOBAL_DESCRIPTOR_LENGTH } from '../geometry/search/descriptors/global-descriptor';
import { nearest, vectorIndexAvailable, type VectorSpace } from '../service/search/vector-index';
import { openStore } from '../service/store/database';
import { createFolder } from '../service/store/folders';
import { ensureTenant } from '../service/store/users';
import { startThrowawayPostgres } from '../service/testing/postgres-server';

const MODELS = Number(process.env.BENCH_SCAN_MODELS ?? 100_000);
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? NaN;

async function main() {
  const postgres = await startThrowawayPostgres();
  if (!postgres) throw new Error('needs PostgreSQL (Debian package postgresql)');
  const store = await openStore({ databaseUrl: postgres.url, dataDir: '/nonexistent' });
  try {
    const { db } = store;
    if (await vectorIndexAvailable(db, () => {})) throw new Error('this PostgreSQL has pgvector: the bench is for the exact scan');
    const tenant = await ensureTenant(db, 'scan');
    const folder = await createFolder(db, { tenantId: tenant.id, name: 'parts' });
    const t0 = performance.now();
    for (let start = 0; start < MODELS; start += 10_000) {
      const n = Math.min(10_000, MODELS - start);
      await sql`
        with made as (
          insert into models (id, tenant_id, folder_id, name, file_path, file_path_lower, file_name, file_name_lower, file_type, state, version)
          select gen_random_uuid(), ${tenant.id}, ${folder.id}, 'p' || g, 'parts/p' || g || '.stl', 'parts/p' || g || '.stl', 'p' || g || '.stl', 'p' || g || '.stl', 'stl', 'finished', 1
          from generate_series(${start}::int, ${start + n - 1}::int) g
          returning id)
        insert into search_features (model_id, tenant_id, version, global_desc, geo_desc, area, shells, prepared)
        select id, ${tenant.id}, 1,
          array(select random()::real from generate_series(1, ${GLOBAL_DESCRIPTOR_LENGTH}::int) k where k > 0 * length(id::text)),
          array(select random()::real from generate_series(1, ${GEO_DESCRIPTOR_LENGTH}::int) k where k > 0 * length(id::text)),
          1, 1, '\\x00'::bytea
        from made`.execute(db);
      await sql`
        insert into search_components (model_id, idx, tenant_id, descriptor, area_share, copies, pose)
        select f.model_id, 0, f.tenant_id, f.global_desc, 1, 1, '{}'::jsonb from search_features f
        where f.tenant_id = ${tenant.id} and not exists (select 1 from search_components c where c.model_id = f.model_id)`.execute(db);
    }
    console.log(
      `bench:scan — ${MODELS.toLocaleString('en-US')} models (${GLOBAL_DESCRIPTOR_LENGTH}-value descriptors) written in ${((performance.now() - t0) / 1000).toFixed(0)} s; PostgreSQL without pgvector`,
    );

    const ids = (await db.selectFrom('models').select('id').where('tenant_id', '=', tenant.id).limit(200).execute()).map((r) => r.id);
    const vector = (len: number) => Float32Array.from({ length: len }, () => Math.random());
    let generation = 1;
    const ask = async (space: VectorSpace, i: number) => {
      const s = performance.now();
      const found = await nearest(db, {
        space,
        tenantId: tenant.id,
        vector: vector(space === 'geo' ? GEO_DESCRIPTOR_LENGTH : GLOBAL_DESCRIPTOR_LENGTH),
        excludeModelId: ids[i % ids.length]!,
        limit: space === 'component' ? 64 : 200,
        generation: String(generation),
      });
      if (found.length === 0) throw new Error('no neighbours');
      return performance.now() - s;
    };
    // Rows written in the last 10 s are read again at every change (a transaction still open at a
    // read may commit rows with an older timestamp): let the bulk load fall behind that margin.
    await new Promise((r) => setTimeout(r, 12_000));
    for (const space of ['global', 'geo', 'component'] as const) {
      const first = await ask(space, 0);
      const steady: number[] = [];
      for (let i = 1; i <= 40; i++) steady.push(await ask(space, i));
      const changed: number[] = [];
      for (let i = 0; i < 20; i++) {
        // One model reprocessed: new descriptors, updated_at now, the generation moves on.
        const id = ids[i]!;
        await sql`update search_features set global_desc = array(select random()::real from generate_series(1, ${GLOBAL_DESCRIPTOR_LENGTH}::int)) where model_id = ${id}`.execute(
          db,
        );
        await sql`update models set updated_at = now() where id = ${id}`.execute(db);
        generation++;
        changed.push(await ask(space, i));
      }
      console.log(
        `  ${space.padEnd(9)} first read ${first.toFixed(0)} ms; steady p50 ${p(steady, 0.5).toFixed(1)} ms, p95 ${p(steady, 0.95).toFixed(1)} ms (${(p(steady, 0.95) / 150).toFixed(2)} of 150 ms); right after a change p50 ${p(changed, 0.5).toFixed(1)} ms, p95 ${p(changed, 0.95).toFixed(1)} ms (${(p(changed, 0.95) / 150).toFixed(2)})`,
      );
    }
    const mem = process.memoryUsage();
    console.log(
      `  process memory after all three spaces: ${(mem.rss / 2 ** 20).toFixed(0)} MiB resident, ${(mem.arrayBuffers / 2 ** 20).toFixed(0)} MiB in typed arrays (matrices are capped at 512 MiB per process)`,
    );
  } finally {
    await store.close();
    await postgres.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
