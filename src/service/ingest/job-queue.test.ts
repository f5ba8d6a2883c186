// Processes started at the same moment on a fresh PostgreSQL database all come up: Kysely's
// migrations and pg-boss's schema and queues are created once, and a process that lost the race
// to install pg-boss's schema gets its pooled connection back usable (bench:scale once met a
// worker that died of "current transaction is aborted" after pg-boss swallowed that race).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/database';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../testing/postgres-server';
import { quietLog } from './ingest-test-helpers';
import { openJobQueue } from './job-queue';

let server: ThrowawayPostgres;

beforeAll(async () => {
  const started = await startThrowawayPostgres();
  if (!started) throw new Error('needs PostgreSQL (Debian package postgresql; .ci/run installs it)');
  server = started;
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('starting several processes at once on a fresh database', () => {
  it('every one opens its store and its job queue, and the queue answers on every pooled connection', async () => {
    for (let round = 0; round < 3; round++) {
      const url = await freshDatabase(`gsw_race_${round}`);
      const stores: Store[] = [];
      try {
        const opened = await Promise.allSettled(
          Array.from({ length: 4 }, async () => {
            const store = await openStore({ databaseUrl: url, dataDir: '/nonexistent' });
            stores.push(store);
            const queue = await openJobQueue(store, { log: quietLog });
            // More queries than connections in the pool: none may draw a connection left in an aborted transaction.
            await Promise.all(Array.from({ length: 12 }, () => queue.pending()));
            await queue.stop();
          }),
        );
        expect(opened.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    }
  }, 120_000);
});
