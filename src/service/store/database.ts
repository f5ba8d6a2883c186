import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { migrationProvider } from './migrations/index';
import { openPglite } from './pglite';
import type { Database } from './schema';
import { log } from '../log';

export interface Store {
  db: Kysely<Database>;
  /** Human-readable description of where the data lives (for logs). */
  location: string;
  /** A PostgreSQL server other processes may use at the same time (not the embedded PGlite). */
  shared: boolean;
  /** The pool under `db`, for pg-boss: it needs every result of a multi-statement query, which Kysely keeps only the last of. */
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** A PostgreSQL URL; without one the embedded PGlite in `${dataDir}/pglite` is used. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** The embedded database, if the caller already started opening it (see main.ts). */
  pglite?: Promise<PGlite>;
}

/**
 * Opens the database through the one dialect path the service has: Kysely's PostgresDialect
 * over a `pg` Pool, either to a real server or to an in-process PGlite behind a pg-compatible
 * connection. Migrates to the latest schema before returning.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const { pool, location, closeBackend } = options.databaseUrl
    ? {
        pool: new pg.Pool({ connectionString: options.databaseUrl, max: 10 }),
        location: redact(options.databaseUrl),
        closeBackend: async () => {},
      }
    : await openPglitePool(options.pglite ?? openPglite(pgliteDir(options.dataDir)));

  // An idle connection dropped by the server (restart, failover, shutdown) must not take the
  // process down; the pool replaces it on the next query.
  pool.on('error', (error) => log.error({ err: error }, 'database connection lost'));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const store: Store = {
    db,
    location,
    shared: Boolean(options.databaseUrl),
    pool,
    async close() {
      await db.destroy();
      await closeBackend();
    },
  };
  try {
    await migrateToLatest(db);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

export function pgliteDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

async function openPglitePool(opening: Promise<PGlite>) {
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const pglite = await opening;
  // PGlite is single-connection; a larger pool would only queue inside it.
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  return { pool, location: `PGlite at ${pglite.dataDir ?? 'memory'}`, closeBackend: () => pglite.close() };
}

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
