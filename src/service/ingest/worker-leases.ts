// Which worker process holds which job, and whether it is still alive. pg-boss hands a job held by
// a dead process back only when its expiry runs out (minutes, since processing may take that
// long); a worker that stops beating its heart is noticed within LAPSE_SECONDS by any other
// worker, which fails its jobs into retry through pg-boss's API.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema';

export const HEARTBEAT_MS = 5_000;
export const LAPSE_SECONDS = 20;

export interface WorkerLeases {
  id: string;
  hold(queue: string, jobId: string): Promise<void>;
  release(jobId: string): Promise<void>;
  /** Beats this worker's heart and returns the jobs of workers that stopped, now released. */
  beat(): Promise<{ queue: string; jobId: string }[]>;
  /** Every other worker counts as stopped (the embedded database belongs to this process alone). */
  takeOverAll(): Promise<{ queue: string; jobId: string }[]>;
  close(): Promise<void>;
}

export async function registerWorker(db: Kysely<Database>): Promise<WorkerLeases> {
  const id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  await db.insertInto('queue_workers').values({ id, host: os.hostname(), pid: process.pid }).execute();

  /** Deletes the leases of the workers `lapsed` selects, then those workers; one reaper wins each lease. */
  async function reap(lapsed: ReturnType<typeof sql<boolean>>) {
    return db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ queue: string; job_id: string }>`
        delete from queue_leases where worker_id in (select id from queue_workers w where w.id <> ${id} and ${lapsed})
        returning queue, job_id`.execute(trx);
      await sql`delete from queue_workers w where w.id <> ${id} and ${lapsed}`.execute(trx);
      return rows.map((r) => ({ queue: r.queue, jobId: r.job_id }));
    });
  }

  return {
    id,
    async hold(queue, jobId) {
      await db
        .insertInto('queue_leases')
        .values({ job_id: jobId, queue, worker_id: id })
        .onConflict((c) => c.column('job_id').doUpdateSet({ worker_id: id, queue }))
        .execute();
    },
    async release(jobId) {
      await db.deleteFrom('queue_leases').where('job_id', '=', jobId).where('worker_id', '=', id).execute();
    },
    async beat() {
      // Re-registers if another worker took this one for dead (a long pause): its jobs were failed into retry already.
      await db
        .insertInto('queue_workers')
        .values({ id, host: os.hostname(), pid: process.pid })
        .onConflict((c) => c.column('id').doUpdateSet({ seen_at: sql`now()` }))
        .execute();
      return reap(sql<boolean>`w.seen_at < now() - make_interval(secs => ${LAPSE_SECONDS})`);
    },
    takeOverAll: () => reap(sql<boolean>`true`),
    async close() {
      await db.deleteFrom('queue_workers').where('id', '=', id).execute();
    },
  };
}
