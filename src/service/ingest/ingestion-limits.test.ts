import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { strToU8, zipSync } from 'three/examples/jsm/libs/fflate.module.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { box, sphere, toStlBinary } from '../../geometry/testing/fixtures';
import { modelBlobKeys } from '../files/blob-store';
import { LocalBlobStore } from '../files/local-blob-store';
import { openStore, type Store } from '../store/database';
import { createFolder } from '../store/folders';
import { ensureTenant } from '../store/users';
import { quietLog, startIngestTestService, type IngestTestService } from './ingest-test-helpers';
import { modelsWithOutdatedDescriptors } from './outdated-models';
import { VIEW_METHOD } from '../../geometry/search/views/shape-features';
import { VIEW_STEP, VIEW_WEIGHTS } from '../../geometry/search/views/view-index';
import { imageDb } from '../images/image-store';
import { decodeDescriptors, decodeSignatures, VIEW_SIGNATURE_METHOD } from '../images/view-signature';
import { convertOlderLayout } from '../store/migrations/0018-view-signatures';
import { INGEST_QUEUE, openJobQueue } from './job-queue';
import { startIngestion, type Ingestion } from './start-ingestion';
import { registerWorker } from './worker-leases';
import { ModelLifecycle, type IngestJob } from '../store/model-lifecycle';

/** A tiny 3MF whose components fan out 10× per level: 10^depth placements of one triangle. */
function componentBomb3mf(depth = 9): Uint8Array {
  const objects = [
    '<object id="1" type="model"><mesh><vertices><vertex x="0" y="0" z="0"/><vertex x="1" y="0" z="0"/><vertex x="0" y="1" z="0"/></vertices><triangles><triangle v1="0" v2="1" v3="2"/></triangles></mesh></object>',
  ];
  for (let level = 2; level <= depth + 1; level++) {
    const comps = Array.from({ length: 10 }, (_, i) => `<component objectid="${level - 1}" transform="1 0 0 0 1 0 0 0 1 ${i} 0 0"/>`).join(
      '',
    );
    objects.push(`<object id="${level}" type="model"><components>${comps}</components></object>`);
  }
  const model = `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources>${objects.join('')}</resources><build><item objectid="${depth + 1}"/></build></model>`;
  return zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
    ),
    _rels: {
      '.rels': strToU8(
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="r0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>',
      ),
    },
    '3D': { '3dmodel.model': strToU8(model) },
  });
}

describe('hostile files hit the limits and end failed; the service keeps working', () => {
  let svc: IngestTestService;
  beforeAll(async () => {
    svc = await startIngestTestService({ timeoutMs: 6000, maxOldGenerationSizeMb: 256 });
  });
  afterAll(() => svc?.stop());

  it('a component bomb, an absurd triangle count and an absurd vertex count', async () => {
    const lyingStl = toStlBinary((await box()).mesh);
    new DataView(lyingStl.buffer).setUint32(80, 0xffffffff, true); // claims 4 billion triangles
    const cases: [string, Uint8Array, RegExp][] = [
      ['hostile/bomb.3mf', componentBomb3mf(), /longer than 6 s|more than the 256 MB/],
      ['hostile/huge-count.stl', lyingStl, /4,294,967,295 triangles/],
      ['hostile/huge-header.off', new TextEncoder().encode('OFF\n2000000000 1 0\n0 0 0\n'), /./],
    ];
    const ids = await Promise.all(cases.map(([p, bytes]) => svc.upload(p, bytes)));
    for (const [i, [p, , reason]] of cases.entries()) {
      const m = await svc.settled(ids[i]!);
      expect(m.state, `${p}: ${m.stateReason ?? ''}`).toBe('failed');
      expect(m.stateReason, p).toMatch(reason);
    }
    // the pool replaced its thread: a normal part still goes through
    const ok = await svc.upload('hostile/after.stl', toStlBinary((await box()).mesh));
    expect((await svc.settled(ok)).state).toBe('finished');
  });
});

describe('restarts', () => {
  let dataDir: string;
  let store: Store | undefined;
  let ingestion: Ingestion | undefined;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-ingest-restart-'));
  });
  afterAll(async () => {
    await ingestion?.stop();
    await store?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const open = async () => {
    store = await openStore({ dataDir });
    ingestion = await startIngestion({
      store,
      blobs,
      config: { exclusiveDatabase: true, pollIntervalMs: 500, retryDelaySeconds: 1, drainMs: 0, upgradeDelaySeconds: 0, log: quietLog },
    });
    return { store, ingestion };
  };
  const close = async () => {
    await ingestion?.stop();
    await store?.close();
    ingestion = undefined;
    store = undefined;
  };
  let blobs: LocalBlobStore;

  it('a job running at shutdown is handed back, jobs held by a crashed worker are taken over; both end finished after the next start, nothing stays processing', async () => {
    blobs = new LocalBlobStore(path.join(dataDir, 'blobs'));
    let { store: s, ingestion: ing } = await open();
    const tenant = await ensureTenant(s.db, 'restart', 'Restart Inc.');
    const folder = await createFolder(s.db, { tenantId: tenant.id, name: 'parts' });
    const insert = async (fileName: string, bytes: Uint8Array) => {
      const id = crypto.randomUUID();
      const key = modelBlobKeys(tenant.id, id).source;
      await blobs.put(key, bytes);
      await s.db
        .insertInto('models')
        .values({
          id,
          tenant_id: tenant.id,
          folder_id: folder.id,
          name: fileName,
          file_path: `parts/${fileName}`,
          file_path_lower: `parts/${fileName}`.toLowerCase(),
          file_name: fileName,
          file_name_lower: fileName.toLowerCase(),
          file_type: 'stl',
          state: 'processing',
          blob_key: key,
          size_bytes: bytes.byteLength,
        })
        .execute();
      return id;
    };
    const big = toStlBinary((await sphere({ triangles: 600_000 })).mesh);
    const slow = await insert('big-sphere.stl', big);
    await ing.lifecycle.reprocess(slow, { reason: 'uploaded' });
    // wait until a worker holds the job, then shut down in the middle of it
    for (let i = 0; ; i++) {
      if (await s.db.selectFrom('queue_leases').select('job_id').executeTakeFirst()) break;
      if (i > 200) throw new Error('the job never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    await close();

    // A crash: a worker that held jobs (this one, and the one handed back at the shutdown above) is gone.
    ({ store: s } = await reopenWithoutIngestion());
    const crashed = await insert('crashed.stl', toStlBinary((await box()).mesh));
    const queue = await openJobQueue(s);
    await new ModelLifecycle(s.db, queue).reprocess(crashed);
    const dead = await registerWorker(s.db);
    const taken = await queue.boss.fetch<IngestJob>(INGEST_QUEUE, { batchSize: 10 });
    for (const job of taken) await dead.hold(INGEST_QUEUE, job.id);
    expect(taken.map((j) => j.data.modelId).sort()).toEqual([crashed, slow].sort());
    await queue.stop();
    await store!.close();
    store = undefined;

    ({ store: s, ingestion: ing } = await open());
    await ing.idle();
    const rows = await s.db.selectFrom('models').select(['id', 'state', 'state_reason']).execute();
    expect(rows.find((r) => r.id === slow)?.state).toBe('finished');
    expect(rows.find((r) => r.id === crashed)?.state).toBe('finished');
    expect(rows.filter((r) => r.state === 'processing')).toEqual([]);
  });

  it('a job that keeps failing for reasons outside the file ends the model failed with a plain reason', async () => {
    await close();
    store = await openStore({ dataDir });
    const s = store;
    const model = await s.db
      .selectFrom('models')
      .select(['id', 'blob_key'])
      .where('file_name', '=', 'big-sphere.stl')
      .executeTakeFirstOrThrow();
    const broken: LocalBlobStore = Object.assign(Object.create(blobs) as LocalBlobStore, {
      get: async (key: string) => (key === model.blob_key ? Promise.reject(new Error('disk unavailable')) : blobs.get(key)),
    });
    ingestion = await startIngestion({
      store: s,
      blobs: broken,
      config: { exclusiveDatabase: true, pollIntervalMs: 500, retryLimit: 1, retryDelaySeconds: 1, upgradeDelaySeconds: 0, log: quietLog },
    });
    await ingestion.lifecycle.reprocess(model.id);
    await ingestion.idle();
    const row = await s.db.selectFrom('models').select(['state', 'state_reason']).where('id', '=', model.id).executeTakeFirstOrThrow();
    expect(row.state).toBe('failed');
    expect(row.state_reason).toMatch(/given up/);
  });

  it('models described by an older recipe are reprocessed at the next start and come back current', async () => {
    await close();
    const { store: s } = await reopenWithoutIngestion();
    const model = await s.db.selectFrom('models').select('id').where('file_name', '=', 'crashed.stl').executeTakeFirstOrThrow();
    await sql`update search_features set version = 1 where model_id = ${model.id}`.execute(s.db);
    await sql`update model_views set method = 'an-older-recipe' where model_id = ${model.id}`.execute(s.db);
    expect((await modelsWithOutdatedDescriptors(s.db)).map((m) => m.id)).toEqual([model.id]);
    await close();

    const { store: again, ingestion: ing } = await open();
    await ing.idle();
    expect(await modelsWithOutdatedDescriptors(again.db)).toEqual([]);
    const row = await again.db.selectFrom('models').select('state').where('id', '=', model.id).executeTakeFirstOrThrow();
    expect(row.state).toBe('finished');
  });

  it('views stored before view signatures are converted in place, not reprocessed', async () => {
    await close();
    const { store: s } = await reopenWithoutIngestion();
    const db = imageDb(s.db);
    const model = await s.db.selectFrom('models').select('id').where('file_name', '=', 'crashed.stl').executeTakeFirstOrThrow();
    const row = await db.selectFrom('model_views').selectAll().where('model_id', '=', model.id).executeTakeFirstOrThrow();
    const bytes = decodeDescriptors(row.data, row.view_count * row.dim);
    // The older layout: float32 descriptors (the values these bytes stand for), then the 8-bit signatures.
    const floats = Float32Array.from(bytes, (b, i) => (b * VIEW_STEP) / VIEW_WEIGHTS[i % row.dim]!);
    const signatures = decodeSignatures(row.signatures!, row.view_count);
    const older = new Uint8Array(floats.byteLength + signatures.byteLength);
    older.set(new Uint8Array(floats.buffer));
    older.set(signatures, floats.byteLength);
    await db
      .updateTable('model_views')
      .set({ method: VIEW_METHOD, data: older, signatures: null })
      .where('model_id', '=', model.id)
      .execute();
    expect((await modelsWithOutdatedDescriptors(s.db)).map((m) => m.id)).toEqual([model.id]);

    await convertOlderLayout(s.db);
    const after = await db.selectFrom('model_views').selectAll().where('model_id', '=', model.id).executeTakeFirstOrThrow();
    expect(after.method).toBe(VIEW_SIGNATURE_METHOD);
    expect(decodeDescriptors(after.data, row.view_count * row.dim)).toEqual(bytes);
    expect(decodeSignatures(after.signatures!, row.view_count)).toEqual(signatures);
    expect(await modelsWithOutdatedDescriptors(s.db)).toEqual([]);
  });

  async function reopenWithoutIngestion() {
    store = await openStore({ dataDir });
    return { store };
  }
});
