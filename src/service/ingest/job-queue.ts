// The queue every background step goes through: pg-boss in the service's own database. API
// processes only send; worker processes (start-ingestion.ts) take jobs. Queue settings live here
// so that every process creates the queues alike.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type pg from 'pg';
import { PgBoss, type Db, type Queue } from 'pg-boss';
import type { Store } from '../store/database';
import type { IngestJob } from '../store/model-lifecycle';
import type { Database } from '../store/schema';
import type { IngestQueue } from './ingest-queue';
import type { DeliverySender } from '../webhooks/events';
import { log as serviceLog } from '../log';

export const INGEST_QUEUE = 'model-ingest';
export const INGEST_DEAD_LETTERS = 'model-ingest-dead';
/** Reprocessing of models whose search data predates the running recipe (one job at a time). */
export const UPGRADE_QUEUE = 'search-upgrade';
/** Duplicate reports (search/duplicate-report-job.ts), one job per report. */
export const REPORT_QUEUE = 'duplicate-report';
/** Attempts after the first of a report whose worker stopped or whose database call failed. */
export const REPORT_RETRIES = 2;
/**
 * Webhook deliveries (webhooks/deliver.ts), one job per delivery. A receiver that fails is tried
 * again after about 2, 4, 8, 16, 32 and 64 s (pg-boss's backoff, jittered): 7 attempts in about two
 * minutes, then the delivery ends `failed` in the log.
 */
export const WEBHOOK_QUEUE = 'webhook-delivery';
export const WEBHOOK_RETRIES = 6;
/**
 * Housekeeping on the queue's scheduler: whichever worker takes the job does it, once for the
 * whole deployment, instead of a timer in every process. Not counted as pending work.
 */
export const HOUSEKEEPING_QUEUE = 'housekeeping';

export interface QueueConfig {
  /** Attempts after the first when processing breaks for reasons outside the file (default 2). */
  retryLimit?: number;
  /** Seconds before such a retry (default 10). */
  retryDelaySeconds?: number;
  /** Wall-clock limit of processing one model (default 120 s); sets how long a job may stay active. */
  timeoutMs?: number;
  /** Whether this process runs pg-boss's maintenance (workers do; API processes need not). */
  supervise?: boolean;
  log?: Pick<Console, 'info' | 'warn' | 'error'>;
}

export interface JobQueue extends IngestQueue {
  boss: PgBoss;
  sendDeliveries: DeliverySender['sendDeliveries'];
  /** Called after a send from this process committed (a local worker looks at once instead of polling). */
  onCommitted(listener: () => void): void;
  /** A job interrupted by this process stopping goes back as a fresh job (not a failed attempt). */
  handBack(job: { id: string; data: IngestJob }): Promise<void>;
  /** Jobs queued, waiting for a retry or running, dead letters included (tests, benchmarks, readiness). */
  pending(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * pg-boss runs its SQL on the service's own connection pool (PGlite or PostgreSQL), and needs the
 * rows of every statement of a multi-statement query (its claims put a lock's row first), so
 * outside a transaction it talks to the `pg` pool under Kysely directly. Its schema commands are
 * one string of `BEGIN; …; COMMIT;`: when one statement fails, PostgreSQL skips the rest and leaves
 * that connection inside the aborted transaction. pg-boss expects some such failures — two
 * processes installing its schema at the same moment, where it swallows the loser's "already
 * exists" — so the connection is rolled back before it returns to the pool; otherwise the next
 * query that draws it fails with "current transaction is aborted" and the process does not start.
 */
function bossDb(pool: pg.Pool): Db {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const client = await pool.connect();
      try {
        return (await client.query(text, values)) as unknown as { rows: unknown[] };
      } catch (error) {
        if (/^\s*BEGIN\b/i.test(text)) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

/** Inside a caller's transaction (`send` with `db`): one statement at a time, and the caller's transaction decides. */
function transactionDb(trx: Transaction<Database>): Db {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      return { rows: (await trx.executeQuery(CompiledQuery.raw(text, values))).rows as unknown[] };
    },
  };
}

/** Starts pg-boss on the store's database and creates the queues (idempotent, safe when processes start together). */
export async function openJobQueue(store: Store, config: QueueConfig = {}): Promise<JobQueue> {
  const { db } = store;
  const log = config.log ?? serviceLog;
  const timeoutMs = config.timeoutMs ?? 120_000;
  // A job still `active` this long after it started belongs to a process that died without
  // anyone noticing (worker-leases.ts notices sooner); processing is bounded by the worker timeouts.
  const expireInSeconds = Math.ceil((timeoutMs * 2 + 60_000) / 1000);
  const boss = new PgBoss({
    db: bossDb(store.pool),
    schedule: true,
    supervise: config.supervise ?? false,
    migrate: true,
    maintenanceIntervalSeconds: 30,
  });
  boss.on('error', (error: unknown) => log.error(`job queue: ${error instanceof Error ? error.message : String(error)}`));
  const ingest = {
    policy: 'short' as const,
    retryLimit: config.retryLimit ?? 2,
    retryDelay: config.retryDelaySeconds ?? 10,
    expireInSeconds,
    deadLetter: INGEST_DEAD_LETTERS,
  };
  const wanted: Queue[] = [
    { name: INGEST_DEAD_LETTERS, retryLimit: 5 },
    { name: INGEST_QUEUE, ...ingest },
    { name: UPGRADE_QUEUE, policy: 'short', retryLimit: 5, retryDelay: 30, expireInSeconds: 3600 },
    { name: REPORT_QUEUE, retryLimit: REPORT_RETRIES, retryDelay: 5, expireInSeconds: 900 },
    { name: WEBHOOK_QUEUE, retryLimit: WEBHOOK_RETRIES, retryDelay: 2, retryBackoff: true, expireInSeconds: 120 },
    { name: HOUSEKEEPING_QUEUE, policy: 'short', retryLimit: 0, expireInSeconds: 300 },
  ];
  const setUp = async () => {
    await boss.start();
    // Created once; updated only when this version's settings differ (each is a locked transaction,
    // and on the embedded database they would delay the first page at every start).
    const existing = new Map((await boss.getQueues()).map((q) => [q.name, q]));
    for (const q of wanted) {
      const found = existing.get(q.name);
      if (!found) await boss.createQueue(q.name, q);
      else if (
        (['retryLimit', 'retryDelay', 'expireInSeconds', 'deadLetter'] as const).some((k) => q[k] !== undefined && found[k] !== q[k])
      ) {
        // A queue's policy is fixed at creation; only its retry and expiry settings are updated.
        const { name, policy: _policy, ...settings } = q;
        await boss.updateQueue(name, settings);
      }
    }
  };
  // pg-boss's queue creation attaches partitions to its job table: two processes creating queues
  // at once deadlock. On a shared server the set-up runs under a session lock held on one pooled
  // connection, one process at a time; pg-boss's own statements use the others.
  if (store.shared)
    await db.connection().execute(async (held) => {
      await held.executeQuery(CompiledQuery.raw(`select pg_advisory_lock(hashtext('gsw:job-queue-setup'))`));
      try {
        await setUp();
      } finally {
        await held.executeQuery(CompiledQuery.raw(`select pg_advisory_unlock(hashtext('gsw:job-queue-setup'))`));
      }
    });
  else await setUp();

  // One job per model version: a job whose version was overtaken finds that out and does nothing.
  const sendJob = (trx: Transaction<Database>, job: IngestJob) =>
    boss.send(INGEST_QUEUE, job, { singletonKey: `${job.modelId}:${job.version}`, db: transactionDb(trx) });
  const listeners: (() => void)[] = [];
  // Webhook deliveries are not pending work of the service: a receiver that keeps failing must not
  // hold up idle() (tests, benchmarks) for its two minutes of retries.
  const queues = [INGEST_QUEUE, INGEST_DEAD_LETTERS, UPGRADE_QUEUE, REPORT_QUEUE];
  return {
    boss,
    async send(trx, job) {
      await sendJob(trx, job);
    },
    async sendReport(reportId) {
      await boss.send(REPORT_QUEUE, { reportId }, { singletonKey: reportId });
      listeners.forEach((l) => l());
    },
    async sendDeliveries(sendDb, deliveryIds) {
      if (!deliveryIds.length) return;
      const jobs = deliveryIds.map((deliveryId) => ({ data: { deliveryId }, singletonKey: deliveryId }));
      await boss.insert(WEBHOOK_QUEUE, jobs, sendDb.isTransaction ? { db: transactionDb(sendDb as Transaction<Database>) } : {});
      // Outside a transaction the jobs are there now; inside one, the caller's commit tells the workers.
      if (!sendDb.isTransaction) listeners.forEach((l) => l());
    },
    async handBack(job) {
      await db.transaction().execute(async (trx) => {
        await boss.cancel(INGEST_QUEUE, job.id, { db: transactionDb(trx) });
        await sendJob(trx, job.data);
      });
    },
    committed() {
      listeners.forEach((l) => l());
    },
    onCommitted(listener) {
      listeners.push(listener);
    },
    async ready() {
      await boss.getQueue(INGEST_QUEUE);
    },
    depth: () => liveJobs(db, [INGEST_QUEUE]),
    pending: () => liveJobs(db, queues),
    async stop() {
      await boss.stop({ graceful: false, close: false });
    },
  };
}

/** The `ingestion` option of `startService` for an API process: it sends jobs and runs none. */
export function serviceJobQueue(config: QueueConfig = {}) {
  return async ({ store }: { store: Store }) => {
    const queue = await openJobQueue(store, config);
    return { queue, stop: () => queue.stop() };
  };
}

/**
 * Jobs not yet settled (created, retry or active) in these queues, counted now. pg-boss's own
 * queue counts are refreshed by its monitor pass, seconds behind: `idle()` and the queue-depth
 * gauge need the present, so this reads its job table as pg-boss 10's `getQueueSize` did.
 */
async function liveJobs(db: Kysely<Database>, names: string[]): Promise<number> {
  const { rows } = await db.executeQuery<{ n: number }>(
    CompiledQuery.raw(`select count(*)::int as n from pgboss.job where name = any($1) and state < 'completed'`, [names]),
  );
  return rows[0]?.n ?? 0;
}
