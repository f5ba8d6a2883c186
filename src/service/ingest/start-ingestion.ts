import { CompiledQuery, sql, type Kysely } from 'kysely';
import PgBoss from 'pg-boss';
import type { ServiceConfig } from '../config';
import type { ServiceMetrics } from '../metrics';
import type { BlobStore } from '../files/blob-store';
import type { Store } from '../store/database';
import type { Database } from '../store/schema';
import { ingestModel, type IngestResult } from './ingest-job';
import type { IngestQueue } from './ingest-queue';
import { modelsWithOutdatedDescriptors } from './outdated-models';
import { createWorkerPool, defaultPoolSize, type WorkerPool } from './worker-pool';
import { log as serviceLog } from '../log';

export const INGEST_QUEUE = 'model-ingest';
export const INGEST_DEAD_LETTERS = 'model-ingest-dead';

export interface IngestionConfig {
  /** Worker threads and models processed at once (default: cores, at most 2). */
  concurrency?: number;
  /** Wall-clock limit of processing one model (default 120 s). */
  timeoutMs?: number;
  /** Heap limit of a worker thread (default 1024 MB). */
  maxOldGenerationSizeMb?: number;
  maxTriangles?: number;
  /** Most bytes a packed file (3MF, glTF) may unpack to (UNPACKED_MAX_BYTES). */
  unpackedMaxBytes?: number;
  /** Memory the worker threads may add to the process, native and typed-array memory included (INGEST_MEMORY_MB). */
  memoryLimitMb?: number;
  /** Attempts after the first when processing breaks for reasons outside the file (default 2). */
  retryLimit?: number;
  /** Seconds before such a retry (default 10). */
  retryDelaySeconds?: number;
  /** How often an idle dispatcher looks for jobs queued by other processes (default 1000 ms). */
  pollIntervalMs?: number;
  /**
   * The database belongs to this process alone (embedded PGlite): a job left `active` at start
   * was interrupted by a crash and is retried at once instead of after its expiry.
   */
  exclusiveDatabase?: boolean;
  log?: Pick<Console, 'info' | 'warn' | 'error'>;
  /** Where job outcomes and durations are counted (GET /metrics). */
  metrics?: ServiceMetrics;
  /** Called after every job (tests, benchmarks). */
  onResult?: (modelId: string, result: IngestResult) => void;
}

export interface Ingestion {
  queue: IngestQueue;
  pool: WorkerPool;
  /** Resolves when no job is queued, waiting for a retry or running (tests and benchmarks). */
  idle(): Promise<void>;
  /**
   * Stops taking jobs and terminates the worker threads; jobs interrupted here are put back in
   * the queue (without counting as a failed attempt) for the next start.
   */
  stop(): Promise<void>;
}

interface JobData {
  modelId: string;
  reason?: string;
}

type Executor = Pick<Kysely<Database>, 'executeQuery'>;

/** pg-boss runs its SQL through the service's own Kysely connection pool (PGlite or PostgreSQL). */
function bossDb(db: Executor): PgBoss.Db {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const result = await db.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows as unknown[] };
    },
  } as PgBoss.Db;
}

/**
 * Durable ingestion: a pg-boss queue in the service's own database, dispatched to a small pool
 * of worker threads. Jobs survive restarts; one queued job per model (singletonKey); results
 * of a run that a newer upload or reprocess overtook are dropped (models.version).
 */
export async function startIngestion({ store, blobs, config = {} }: { store: Store; blobs: BlobStore; config?: IngestionConfig }): Promise<Ingestion> {
  const { db } = store;
  const log = config.log ?? serviceLog;
  const concurrency = config.concurrency ?? defaultPoolSize();
  const timeoutMs = config.timeoutMs ?? 120_000;
  const retryLimit = config.retryLimit ?? 2;
  const pollIntervalMs = config.pollIntervalMs ?? 1000;
  // A job still `active` this long after it started belongs to a process that died: pg-boss's
  // maintenance fails it into a retry. Processing a model is bounded by the worker timeouts.
  const expireInSeconds = Math.ceil((timeoutMs * 2 + 60_000) / 1000);

  const boss = new PgBoss({ db: bossDb(db), schedule: false, supervise: true, migrate: true, maintenanceIntervalSeconds: 30 });
  boss.on('error', (error: unknown) => log.error(`ingest queue: ${error instanceof Error ? error.message : String(error)}`));
  await boss.start();
  const queueOptions = { policy: 'short' as const, retryLimit, retryDelay: config.retryDelaySeconds ?? 10, expireInSeconds, deadLetter: INGEST_DEAD_LETTERS };
  await boss.createQueue(INGEST_DEAD_LETTERS, { name: INGEST_DEAD_LETTERS, retryLimit: 5 });
  await boss.createQueue(INGEST_QUEUE, { name: INGEST_QUEUE, ...queueOptions });
  await boss.updateQueue(INGEST_QUEUE, { name: INGEST_QUEUE, ...queueOptions });

  const pool = createWorkerPool({
    size: concurrency,
    timeoutMs,
    ...(config.maxOldGenerationSizeMb ? { maxOldGenerationSizeMb: config.maxOldGenerationSizeMb } : {}),
    ...(config.memoryLimitMb ? { memoryLimitMb: config.memoryLimitMb } : {}),
  });

  let stopping = false;
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const running = new Map<string, Promise<void>>();
  let idleWaiters: (() => void)[] = [];

  const queue: IngestQueue = {
    async ready() {
      await boss.getQueueSize(INGEST_QUEUE);
    },
    depth: () => boss.getQueueSize(INGEST_QUEUE),
    async enqueue(modelId, options = {}) {
      await db.transaction().execute(async (trx) => {
        const bumped = await trx
          .updateTable('models')
          .set({ version: sql<number>`version + 1`, state: 'processing', state_reason: null, updated_at: sql<Date>`now()` })
          .where('id', '=', modelId)
          .where('blob_key', 'is not', null)
          .returning('version')
          .executeTakeFirst();
        if (!bumped) return;
        // In the same transaction: a model never shows `processing` without a job to end it.
        await boss.send(INGEST_QUEUE, { modelId, reason: options.reason ?? 'uploaded' } satisfies JobData, { singletonKey: modelId, db: bossDb(trx) });
      });
      poke();
    },
  };

  const deps = {
    db,
    blobs,
    pool,
    timeoutMs,
    ...(config.maxTriangles ? { maxTriangles: config.maxTriangles } : {}),
    ...(config.unpackedMaxBytes ? { unpackedMaxBytes: config.unpackedMaxBytes } : {}),
    enqueue: (id: string, o: { reason: 'part-arrived' }) => queue.enqueue(id, o),
  };

  async function runJob(job: PgBoss.JobWithMetadata<JobData>) {
    const { modelId } = job.data;
    const started = performance.now();
    try {
      const result = await ingestModel(deps, modelId);
      config.metrics?.ingestJobs.inc({ outcome: result.kind === 'done' ? result.state : result.kind });
      if (result.kind === 'done') config.metrics?.ingestSeconds.observe({ format: result.fileType || 'none' }, (performance.now() - started) / 1000);
      if (result.kind === 'done' && result.state !== 'finished') log.info(`model ${modelId}: ${result.state} — ${result.reason ?? ''}`);
      await boss.complete(INGEST_QUEUE, job.id);
      config.onResult?.(modelId, result);
    } catch (error) {
      if (stopping) {
        // Interrupted by shutdown, not by the file: back in the queue as a fresh job.
        await requeueInterrupted(job).catch((e: unknown) => log.warn(`ingest: could not requeue ${modelId} (${String(e)}); it is retried after expiry`));
        return;
      }
      config.metrics?.ingestJobs.inc({ outcome: 'error' });
      const message = error instanceof Error ? error.message : String(error);
      log.error(`ingest: model ${modelId} attempt ${job.retryCount + 1} failed: ${message}`);
      await boss.fail(INGEST_QUEUE, job.id, { message }).catch((e: unknown) => log.error(`ingest: ${String(e)}`));
    }
  }

  async function requeueInterrupted(job: PgBoss.JobWithMetadata<JobData>) {
    await db.transaction().execute(async (trx) => {
      await boss.cancel(INGEST_QUEUE, job.id, { db: bossDb(trx) });
      await boss.send(INGEST_QUEUE, job.data, { singletonKey: job.data.modelId, db: bossDb(trx) });
    });
  }

  /** Jobs that used up their retries: the model ends `failed`, unless a newer job is on its way. */
  async function drainDeadLetters() {
    const jobs = await boss.fetch<JobData>(INGEST_DEAD_LETTERS, { batchSize: 20 });
    for (const job of jobs) {
      await sql`
        update models set state = 'failed', processed_at = now(), updated_at = now(),
          state_reason = ${'Processing this model failed several times for reasons that have nothing to do with the file (for example the service restarting, or storage being unavailable), so it was given up. Use reprocess to try again; if it keeps failing, contact support.'}
        where id = ${job.data.modelId} and state = 'processing'
          and not exists (select 1 from pgboss.job j where j.name = ${INGEST_QUEUE} and j.singleton_key = ${job.data.modelId} and j.state < 'completed')`.execute(db);
      await boss.complete(INGEST_DEAD_LETTERS, job.id);
    }
  }

  async function recover() {
    if (config.exclusiveDatabase) {
      // Nobody else can be working on these: they were cut off by a crash of this process.
      const { rows } = await sql<{ id: string }>`select id from pgboss.job where name = ${INGEST_QUEUE} and state = 'active'`.execute(db);
      if (rows.length) {
        log.warn(`ingest: ${rows.length} job(s) were interrupted by a restart; retrying`);
        for (const { id } of rows) await boss.fail(INGEST_QUEUE, id, { message: 'interrupted: the service stopped while processing' });
      }
    }
    // A model left `processing` without any job to end it (e.g. created by an older version).
    const { rows: stuck } = await sql<{ id: string }>`
      select m.id from models m where m.state = 'processing' and m.blob_key is not null
        and not exists (select 1 from pgboss.job j where j.name = ${INGEST_QUEUE} and j.singleton_key = m.id::text and j.state < 'completed')`.execute(db);
    for (const { id } of stuck) await queue.enqueue(id, { reason: 'reprocess' });
    const outdated = await modelsWithOutdatedDescriptors(db);
    if (outdated.length) log.info(`ingest: reprocessing ${outdated.length} model(s) whose search descriptors predate this version`);
    for (const id of outdated) await queue.enqueue(id, { reason: 'reprocess' });
  }

  async function loop() {
    while (!stopping) {
      let fetched = 0;
      try {
        await drainDeadLetters();
        const free = concurrency - running.size;
        if (free > 0) {
          const jobs = await boss.fetch<JobData>(INGEST_QUEUE, { batchSize: free, includeMetadata: true });
          fetched = jobs.length;
          for (const job of jobs) {
            const p = runJob(job).finally(() => {
              running.delete(job.id);
              poke();
            });
            running.set(job.id, p);
          }
        }
      } catch (error) {
        if (stopping) break;
        log.error(`ingest queue: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (running.size === 0 && fetched === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        waiters.forEach((w) => w());
      }
      if (fetched > 0 && running.size < concurrency) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, pollIntervalMs);
        function done() {
          clearTimeout(t);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  }

  await recover();
  const looping = loop();

  return {
    queue,
    pool,
    async idle() {
      // Idle = nothing running here and nothing live in either queue (retries waiting their delay
      // count; so do dead letters, whose handling is what marks a given-up model failed).
      for (;;) {
        await new Promise<void>((resolve) => {
          idleWaiters.push(resolve);
          poke();
        });
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name in (${INGEST_QUEUE}, ${INGEST_DEAD_LETTERS}) and state < 'completed'`.execute(db);
        if ((rows[0]?.n ?? 0) === 0 && running.size === 0) return;
        await new Promise((r) => setTimeout(r, pollIntervalMs));
      }
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      poke();
      await looping;
      await pool.close(); // running tasks reject; their jobs are requeued by runJob
      await Promise.allSettled(running.values());
      await boss.stop({ graceful: false, wait: true, close: false });
    },
  };
}

/**
 * The `ingestion` option of `startService` (server.ts): starts ingestion on the service's store
 * and blob store; an embedded PGlite database belongs to this process alone.
 */
export function serviceIngestion(config: IngestionConfig = {}) {
  return ({
    store,
    blobStore,
    config: service,
    metrics,
  }: {
    store: Store;
    blobStore: BlobStore;
    config: Pick<ServiceConfig, 'databaseUrl' | 'unpackedMaxBytes' | 'ingestMemoryMb' | 'workerThreads'>;
    metrics?: ServiceMetrics;
  }): Promise<Ingestion> =>
    startIngestion({
      store,
      blobs: blobStore,
      config: {
        exclusiveDatabase: service.databaseUrl === undefined,
        unpackedMaxBytes: service.unpackedMaxBytes,
        memoryLimitMb: service.ingestMemoryMb,
        ...(service.workerThreads ? { concurrency: service.workerThreads } : {}),
        ...(metrics ? { metrics } : {}),
        ...config,
      },
    });
}
