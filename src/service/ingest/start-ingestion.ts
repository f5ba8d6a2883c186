import type { Job, JobWithMetadata } from 'pg-boss';
import type { ServiceConfig } from '../config';
import type { ServiceMetrics } from '../metrics';
import type { BlobStore } from '../files/blob-store';
import type { Store } from '../store/database';
import { ModelLifecycle, type IngestJob } from '../store/model-lifecycle';
import { findModelById } from '../store/models';
import { ingestModel, type IngestResult } from './ingest-job';
import {
  HOUSEKEEPING_QUEUE,
  INGEST_DEAD_LETTERS,
  INGEST_QUEUE,
  openJobQueue,
  REPORT_QUEUE,
  REPORT_RETRIES,
  UPGRADE_QUEUE,
  WEBHOOK_QUEUE,
  WEBHOOK_RETRIES,
  type JobQueue,
} from './job-queue';
import { addedDuplicates } from '../search/added-duplicates';
import { failReport, reportById } from '../store/duplicate-reports';
import { deliveryToSend, pruneDeliveries, recordAttempt } from '../store/webhooks';
import { postSigned } from '../webhooks/deliver';
import { modelSummary, webhookEvents } from '../webhooks/events';
import { searchableStates } from '../../contract/models';
import { runDuplicateReport } from '../search/duplicate-report-job';
import { modelsWithOutdatedDescriptors } from './outdated-models';
import { createWorkerPool, defaultPoolSize, type WorkerPool } from './worker-pool';
import { HEARTBEAT_MS, registerWorker } from './worker-leases';
import { setPairThreads } from '../search/pair-pool';
import { log as serviceLog } from '../log';
import { pruneExpiredPayloads } from '../identity/adapter';
import { pruneThrottle } from '../identity/throttle';
import { releaseAbandonedClaims, UPLOAD_CLAIM_LEASE_MS } from '../store/uploads';
import { nativeReaderPath } from './occt-native/reader-path';

export interface IngestionConfig {
  /** Worker threads and models processed at once (default: cores, at most 2). */
  concurrency?: number;
  /** Wall-clock limit of processing one model (default 120 s). */
  timeoutMs?: number;
  /** Heap limit of a worker thread (default 1024 MB). */
  maxOldGenerationSizeMb?: number;
  maxTriangles?: number;
  /** Mesh files from this size are read from disk a piece at a time (default LARGE_MESH_MIN_BYTES, 64 MiB). */
  largeMeshBytes?: number;
  /** Most triangles features, thumbnail and viewer file are made from (default DETAIL_MAX_TRIANGLES, 500,000). */
  detailTriangles?: number;
  /** Most bytes a packed file (3MF, glTF) may unpack to (UNPACKED_MAX_BYTES). */
  unpackedMaxBytes?: number;
  /** Memory the worker threads may add to the process, native and typed-array memory included (INGEST_MEMORY_MB). */
  memoryLimitMb?: number;
  /**
   * The native CAD reader (a path; `OCCT_READER` and the one `npm run build:native` made by
   * default), or "wasm" for occt-import-js only.
   */
  occtReader?: string;
  /** Attempts after the first when processing breaks for reasons outside the file (default 2). */
  retryLimit?: number;
  /** Seconds before such a retry (default 10). */
  retryDelaySeconds?: number;
  /** How often an idle worker looks for jobs queued by other processes (default 1000 ms, at least 500). */
  pollIntervalMs?: number;
  /** Seconds after start before outdated models are looked for (default 10: the first pages and uploads come first). */
  upgradeDelaySeconds?: number;
  /** How long a stop waits for running jobs before it hands them back to the queue (default 20 s). */
  drainMs?: number;
  /**
   * The database belongs to this process alone (embedded PGlite): jobs other workers held were
   * interrupted by a crash of this process and are retried at once.
   */
  exclusiveDatabase?: boolean;
  log?: Pick<Console, 'info' | 'warn' | 'error'>;
  /** Where job outcomes and durations are counted (GET /metrics). */
  metrics?: ServiceMetrics;
  /** Webhooks may reach private and loopback addresses (WEBHOOKS_ALLOW_PRIVATE; off by default). */
  webhooksAllowPrivate?: boolean;
  /** Called after every job (tests, benchmarks). */
  onResult?: (modelId: string, result: IngestResult) => void;
}

export interface Ingestion {
  queue: JobQueue;
  lifecycle: ModelLifecycle;
  pool: WorkerPool;
  /** Resolves when no job is queued, waiting for a retry or running (tests and benchmarks). */
  idle(): Promise<void>;
  /**
   * Stops taking jobs, lets running ones finish for `drainMs`, then terminates the worker threads;
   * jobs interrupted there go back to the queue (not counted as a failed attempt).
   */
  stop(): Promise<void>;
}

interface Housekeeping {
  task: 'claims' | 'prune';
}

const GIVEN_UP =
  'Processing this model failed several times for reasons that have nothing to do with the file (for example the service restarting, or storage being unavailable), so it was given up. Use reprocess to try again; if it keeps failing, contact support.';

/**
 * A worker: takes ingestion jobs from the queue (pg-boss workers, one per worker thread), gives up
 * models whose jobs used up their retries, reprocesses models whose search data is outdated, and
 * hands back the jobs of worker processes that died. Opens the queue itself unless given one.
 */
export async function startIngestion({
  store,
  blobs,
  queue: given,
  config = {},
}: {
  store: Store;
  blobs: BlobStore;
  queue?: JobQueue;
  config?: IngestionConfig;
}): Promise<Ingestion> {
  const { db } = store;
  const log = config.log ?? serviceLog;
  const concurrency = config.concurrency ?? defaultPoolSize();
  const timeoutMs = config.timeoutMs ?? 120_000;
  const native = nativeReaderPath(config.occtReader === undefined ? process.env : { OCCT_READER: config.occtReader });
  log.info(
    native ? `CAD files are read by OpenCascade built for this machine (${native})` : 'CAD files are read by occt-import-js (WebAssembly)',
  );
  const pollingIntervalSeconds = Math.max(0.5, (config.pollIntervalMs ?? 1000) / 1000);
  const queue =
    given ??
    (await openJobQueue(store, {
      supervise: true,
      timeoutMs,
      log,
      ...(config.retryLimit !== undefined ? { retryLimit: config.retryLimit } : {}),
      ...(config.retryDelaySeconds !== undefined ? { retryDelaySeconds: config.retryDelaySeconds } : {}),
    }));
  const { boss } = queue;
  const events = webhookEvents(queue);
  const lifecycle = new ModelLifecycle(db, queue, events);
  const leases = await registerWorker(db);

  setPairThreads(concurrency);
  const pool = createWorkerPool({
    size: concurrency,
    timeoutMs,
    ...(config.maxOldGenerationSizeMb ? { maxOldGenerationSizeMb: config.maxOldGenerationSizeMb } : {}),
    ...(config.memoryLimitMb ? { memoryLimitMb: config.memoryLimitMb } : {}),
  });

  let stopping = false;
  const running = new Set<Promise<unknown>>();
  const deps = {
    db,
    blobs,
    pool,
    lifecycle,
    timeoutMs,
    ...(config.maxTriangles ? { maxTriangles: config.maxTriangles } : {}),
    ...(config.largeMeshBytes ? { largeMeshBytes: config.largeMeshBytes } : {}),
    ...(config.detailTriangles ? { detailTriangles: config.detailTriangles } : {}),
    ...(config.unpackedMaxBytes ? { unpackedMaxBytes: config.unpackedMaxBytes } : {}),
    ...(native ? { nativeReader: { path: native, memoryMb: config.memoryLimitMb ?? 1024, timeoutMs } } : {}),
  };

  async function runJob(job: JobWithMetadata<IngestJob>) {
    const { modelId } = job.data;
    const started = performance.now();
    await leases.hold(INGEST_QUEUE, job.id);
    try {
      const result = await ingestModel(deps, job.data);
      config.metrics?.ingestJobs.inc({ outcome: result.kind === 'done' ? result.state : result.kind });
      if (result.kind === 'done') {
        config.metrics?.ingestSeconds.observe(
          { format: result.fileType || 'none', reader: result.reader ?? 'none' },
          (performance.now() - started) / 1000,
        );
        // The worker's stages, wall time (its `cpu:` entries are the same stages' CPU).
        for (const [stage, ms] of Object.entries(result.timings ?? {}))
          if (!stage.startsWith('cpu:')) config.metrics?.ingestStageSeconds.observe({ stage }, ms / 1000);
      }
      if (result.kind === 'done' && result.state !== 'finished') log.info(`model ${modelId}: ${result.state} — ${result.reason ?? ''}`);
      // "Duplicate found at upload": for a file that arrived, not for a reprocess or an upgrade.
      if (result.kind === 'done' && job.data.reason === 'uploaded') await announceDuplicates(modelId);
      config.onResult?.(modelId, result);
    } catch (error) {
      if (stopping) {
        // Interrupted by shutdown, not by the file: back in the queue as a fresh job.
        await queue
          .handBack(job)
          .catch((e: unknown) => log.warn(`ingest: could not requeue ${modelId} (${String(e)}); it is retried after expiry`));
        return;
      }
      config.metrics?.ingestJobs.inc({ outcome: 'error' });
      const message = error instanceof Error ? error.message : String(error);
      log.error(`ingest: model ${modelId} attempt ${job.retryCount + 1} failed: ${message}`);
      throw error; // pg-boss fails the job: retried, then dead-lettered
    } finally {
      await leases.release(job.id).catch(() => {});
    }
  }

  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    void p.finally(() => running.delete(p)).catch(() => {});
    return p;
  };

  // A job that used up its retries: the model ends `failed`, unless a newer version was asked for.
  async function giveUp(jobs: Job<IngestJob>[]) {
    for (const job of jobs) {
      const { modelId, version } = job.data;
      const current = version ?? (await findModelById(db, modelId))?.version;
      if (current !== undefined && (await lifecycle.giveUp(modelId, current, GIVEN_UP)))
        log.warn(`model ${modelId}: given up after its retries`);
    }
  }

  // Models whose search data comes from an older recipe, each moved to processing once (whichever worker gets there first).
  async function upgrade() {
    const outdated = await modelsWithOutdatedDescriptors(db);
    let queued = 0;
    for (const { id, version } of outdated) if (await lifecycle.reprocess(id, { reason: 'upgrade', ifVersion: version })) queued++;
    if (queued) log.info(`ingest: reprocessing ${queued} model(s) whose search data predates this version`);
    if (outdated.length >= 1000) await boss.send(UPGRADE_QUEUE, {}, { singletonKey: 'upgrade', startAfter: 30 });
  }

  /**
   * `model.duplicate-found` for a model that finished as the same part as an earlier one, when an
   * endpoint of its tenant asked for it. A failure here is logged: the model is processed.
   */
  async function announceDuplicates(modelId: string) {
    try {
      const row = await findModelById(db, modelId);
      if (!row || !(searchableStates as readonly string[]).includes(row.state)) return;
      if (!(await events.wanted(db, row.tenant_id, 'model.duplicate-found'))) return;
      const [hit] = await addedDuplicates(db, row.tenant_id, [row]);
      if (!hit) return;
      await events.emit(db, row.tenant_id, 'model.duplicate-found', {
        model: modelSummary(hit.model),
        duplicates: hit.earlier.map((e) => ({ model: modelSummary(e.row), matchPercentage: Number(e.score.toFixed(3)) })),
      });
    } catch (error) {
      log.warn(`webhooks: duplicates of ${modelId} could not be announced: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** `duplicate-report.ready`; a failure is logged: the report is ready whatever a webhook does. */
  async function announceReport(reportId: string) {
    try {
      const report = await reportById(db, reportId);
      if (report?.status !== 'ready') return;
      const groups = (report.result as { clusters?: unknown[] } | null)?.clusters?.length ?? 0;
      await events.emit(db, report.tenant_id, 'duplicate-report.ready', {
        report: { id: report.id, threshold: report.threshold, folderIds: report.folder_ids, groups },
      });
    } catch (error) {
      log.warn(`webhooks: report ${reportId} could not be announced: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** One attempt at a delivery; a failure is thrown so the queue tries again, until the last attempt. */
  async function runDelivery(job: JobWithMetadata<{ deliveryId: string }>) {
    const delivery = await deliveryToSend(db, job.data.deliveryId);
    if (!delivery || delivery.status === 'delivered' || delivery.status === 'cancelled') return; // deleted with its endpoint, or done
    if (!delivery.enabled) {
      await recordAttempt(db, delivery.id, { status: 'cancelled', responseStatus: null, error: 'The endpoint was turned off.' });
      return;
    }
    const result = await postSigned(
      { url: delivery.url, secret: delivery.secret },
      { id: delivery.id, body: JSON.stringify(delivery.payload) },
      { allowPrivate: config.webhooksAllowPrivate ?? false },
    );
    const last = job.retryCount >= WEBHOOK_RETRIES;
    await recordAttempt(db, delivery.id, {
      status: result.ok ? 'delivered' : last ? 'failed' : 'retrying',
      responseStatus: result.status,
      error: result.error,
    });
    if (!result.ok && !last) throw new Error(`webhook delivery ${delivery.id}: ${result.error ?? 'failed'}`);
  }

  // A report whose last attempt failed ends `failed` rather than `running` for ever.
  async function runReport(job: JobWithMetadata<{ reportId: string }>) {
    await leases.hold(REPORT_QUEUE, job.id);
    try {
      await runDuplicateReport(db, job.data.reportId);
      await announceReport(job.data.reportId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.error(`report ${job.data.reportId}: attempt ${job.retryCount + 1} failed: ${message}`);
      if (job.retryCount >= REPORT_RETRIES) await failReport(db, job.data.reportId, 'The report could not be made; run it again.');
      throw error;
    } finally {
      await leases.release(job.id).catch(() => {});
    }
  }

  async function housekeeping(task: Housekeeping['task'] | undefined) {
    if (task === 'claims') await releaseAbandonedClaims(db, new Date(Date.now() - UPLOAD_CLAIM_LEASE_MS));
    if (task === 'prune') await Promise.all([pruneExpiredPayloads(db), pruneThrottle(db), pruneDeliveries(db)]);
  }

  async function handBack(jobs: { queue: string; jobId: string }[], why: string) {
    if (jobs.length === 0) return;
    log.warn(`ingest: ${jobs.length} job(s) ${why}; retrying`);
    for (const { queue: name, jobId } of jobs) await boss.fail(name, jobId, { message: why });
  }

  if (config.exclusiveDatabase) await handBack(await leases.takeOverAll(), 'were interrupted by a restart');
  const heartbeat = setInterval(() => {
    leases
      .beat()
      .then((jobs) => handBack(jobs, 'were held by a worker that stopped responding'))
      .catch((error: unknown) => log.warn(`ingest: heartbeat failed: ${error instanceof Error ? error.message : String(error)}`));
  }, HEARTBEAT_MS);
  heartbeat.unref();

  const options = { batchSize: 1, includeMetadata: true as const, pollingIntervalSeconds };
  const workerIds: string[] = [];
  for (let i = 0; i < concurrency; i++) {
    workerIds.push(
      await boss.work(INGEST_QUEUE, options, ([job]: JobWithMetadata<IngestJob>[]) => (job ? track(runJob(job)) : Promise.resolve())),
    );
  }
  await boss.work<IngestJob>(INGEST_DEAD_LETTERS, { batchSize: 20, pollingIntervalSeconds }, (jobs) => track(giveUp(jobs)));
  await boss.work(UPGRADE_QUEUE, { pollingIntervalSeconds: 5 }, () => track(upgrade()));
  workerIds.push(
    await boss.work(REPORT_QUEUE, options, ([job]: JobWithMetadata<{ reportId: string }>[]) =>
      job ? track(runReport(job)) : Promise.resolve(),
    ),
  );
  // Deliveries go out two at a time: a slow receiver does not hold up the others.
  for (let i = 0; i < 2; i++)
    workerIds.push(
      await boss.work(WEBHOOK_QUEUE, options, ([job]: JobWithMetadata<{ deliveryId: string }>[]) =>
        job ? track(runDelivery(job)) : Promise.resolve(),
      ),
    );
  queue.onCommitted(() => workerIds.forEach((id) => boss.notifyWorker(id)));
  await boss.work(HOUSEKEEPING_QUEUE, { pollingIntervalSeconds: 30 }, ([job]: Job<Housekeeping>[]) => track(housekeeping(job?.data.task)));
  // Upload claims whose lease (60 s) ran out are given back each minute; expired sign-in records,
  // old throttle rows and webhook deliveries past the log's 30 days are deleted each hour.
  await boss.schedule(HOUSEKEEPING_QUEUE, '* * * * *', { task: 'claims' }, { key: 'claims' });
  await boss.schedule(HOUSEKEEPING_QUEUE, '17 * * * *', { task: 'prune' }, { key: 'prune' });
  await boss.send(UPGRADE_QUEUE, {}, { singletonKey: 'upgrade', startAfter: config.upgradeDelaySeconds ?? 10 });

  return {
    queue,
    lifecycle,
    pool,
    async idle() {
      // Idle = nothing running here and nothing live in any queue (retries waiting their delay
      // count; so do dead letters, whose handling is what marks a given-up model failed).
      for (;;) {
        if (running.size === 0 && (await queue.pending()) === 0 && running.size === 0) return;
        await new Promise((r) => setTimeout(r, pollingIntervalSeconds * 500));
      }
    },
    async stop() {
      if (stopping) return;
      // No new jobs; the running ones are drained (or interrupted and handed back) below, not by pg-boss.
      await Promise.all(
        [INGEST_QUEUE, INGEST_DEAD_LETTERS, UPGRADE_QUEUE, REPORT_QUEUE, WEBHOOK_QUEUE, HOUSEKEEPING_QUEUE].map((name) =>
          boss.offWork(name, { wait: false }),
        ),
      );
      clearInterval(heartbeat);
      const drained = Promise.allSettled([...running]);
      await Promise.race([drained, new Promise((r) => setTimeout(r, config.drainMs ?? 20_000).unref())]);
      stopping = true;
      await pool.close(); // running tasks reject; their jobs are requeued by runJob
      await Promise.allSettled([...running]);
      await leases.close().catch(() => {});
      if (!given) await queue.stop();
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
    config: Pick<ServiceConfig, 'databaseUrl' | 'unpackedMaxBytes' | 'ingestMemoryMb' | 'workerThreads' | 'webhooksAllowPrivate'>;
    metrics?: ServiceMetrics;
  }): Promise<Ingestion> =>
    startIngestion({
      store,
      blobs: blobStore,
      config: {
        exclusiveDatabase: service.databaseUrl === undefined,
        unpackedMaxBytes: service.unpackedMaxBytes,
        memoryLimitMb: service.ingestMemoryMb,
        webhooksAllowPrivate: service.webhooksAllowPrivate ?? false,
        ...(service.workerThreads ? { concurrency: service.workerThreads } : {}),
        ...(metrics ? { metrics } : {}),
        ...config,
      },
    });
}
