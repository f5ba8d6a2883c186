import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ViteDevServer } from 'vite';
import { ConfigError, loadConfig, type ServiceConfig } from './config';
import type { RunningService } from './server';
import { log } from './log';

// Modules are loaded per command, and the database is opened first: on `start` the embedded
// database's start-up (WASM, file reads) then overlaps with loading the rest of the service.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const usage = `Usage:
  main.ts start                 all in one: build the app if needed, serve it with the API and sign-in, and process uploads
  main.ts dev                   the same with Vite's dev server (hot reload)
  main.ts api                   serve the app, the API and sign-in; only send jobs (needs DATABASE_URL)
  main.ts worker                process uploads and every background search step (needs DATABASE_URL)
  main.ts users add --email E --password P [--name N] [--tenant KEY] [--roles viewer,editor,admin]
  main.ts users list`;

/** `start` runs workers in the process; `api` only sends jobs to workers elsewhere. */
async function start(config: ServiceConfig, role: 'all' | 'api' = 'all') {
  const pglite = config.databaseUrl
    ? undefined
    : import('./store/pglite').then(({ openPglite }) => openPglite(path.join(config.dataDir, 'pglite')));
  pglite?.catch(() => {}); // awaited (and reported) through openStore
  const { buildApp, buildState } = await import('./web/build');
  const state = await buildState(root);
  if (state === 'missing' || state === 'stale') {
    console.log(state === 'missing' ? 'Building the app (first start)…' : 'Sources changed; rebuilding the app…');
    const t0 = performance.now();
    await buildApp(root);
    console.log(`Built in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
  } else if (state === 'no-app') {
    console.warn('No app sources (index.html) and no build in dist/: serving the API and sign-in only.');
  }
  const { openStore } = await import('./store/database');
  const store = openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pglite });
  store.catch(() => {}); // awaited (and reported) by startService
  const [{ startService }, { serviceIngestion }, { serviceJobQueue }] = await Promise.all([
    import('./server'),
    import('./ingest/start-ingestion'),
    import('./ingest/job-queue'),
  ]);
  const service = await startService({
    config,
    store,
    publicUrlFromEnv: Boolean(process.env.PUBLIC_URL),
    web: { kind: 'dist', distDir: path.join(root, 'dist', 'app') },
    ingestion: role === 'api' ? serviceJobQueue() : serviceIngestion({ drainMs: ALL_IN_ONE_DRAIN_MS }),
    logger: log,
  });
  announce(service, config);
  return service;
}

async function dev(config: ServiceConfig) {
  let vite: ViteDevServer | undefined;
  const [{ startService }, { createViteDevServer }, { serviceIngestion }] = await Promise.all([
    import('./server'),
    import('./web/dev'),
    import('./ingest/start-ingestion'),
  ]);
  const service = await startService({
    config,
    publicUrlFromEnv: Boolean(process.env.PUBLIC_URL),
    web: async (server) => {
      vite = await createViteDevServer(root, server);
      return { kind: 'vite', middlewares: vite.middlewares };
    },
    ingestion: serviceIngestion({ drainMs: ALL_IN_ONE_DRAIN_MS }),
    logger: log,
    onClose: async () => {
      await vite?.close();
    },
  });
  announce(service, config);
  return service;
}

function announce(service: RunningService, config: ServiceConfig) {
  console.log(`\nGeometric Search Workbench is running at ${service.url}/`);
  console.log(`Data: ${service.store.location}`);
  if (config.demo) {
    console.log(`Demo login: ${config.demo.email} / ${config.demo.password}${service.demoCreated ? ' (created now)' : ''}`);
  } else {
    console.log('No demo user (set DEMO_PASSWORD to create one); add users with: npm run service -- users add --email … --password …');
  }
}

/**
 * A worker process: takes jobs from the queue in the shared database until it is told to stop.
 * On `PORT` it answers only `/healthz`, `/readyz` and `/metrics` (its own jobs and ingestion
 * seconds: those are counted where the work runs); the API lives in the `api` processes.
 */
async function worker(config: ServiceConfig) {
  const [{ openStore }, { createBlobStore }, { serviceIngestion }, { createMetrics }, { operationRoutes }, { default: Fastify }] =
    await Promise.all([
      import('./store/database'),
      import('./files/configured-blob-store'),
      import('./ingest/start-ingestion'),
      import('./metrics'),
      import('./routes/operations'),
      import('fastify'),
    ]);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const blobStore = createBlobStore(config);
  const metrics = createMetrics();
  const operations = Fastify({ logger: false });
  try {
    const ingestion = await serviceIngestion({ drainMs: WORKER_DRAIN_MS })({ store, blobStore, config, metrics });
    const { queue } = ingestion;
    if (queue.depth) metrics.observe({ queueDepth: () => queue.depth!() });
    await operations.register(operationRoutes, { db: store.db, blobStore, queue, metrics });
    const address = await operations.listen({ host: config.host, port: config.port });
    log.info({ threads: ingestion.pool.size, database: store.location, operations: address }, 'worker started');
    return {
      async close() {
        // Health answers until the jobs are drained: an orchestrator sees the worker stopping, not gone.
        await ingestion.stop();
        await operations.close();
        await store.close();
      },
    };
  } catch (error) {
    await operations.close();
    await store.close();
    throw error;
  }
}

/** Running jobs get this long to finish at a stop before they go back to the queue. */
const WORKER_DRAIN_MS = 20_000;
const ALL_IN_ONE_DRAIN_MS = 5_000;

function requireSharedDatabase(config: ServiceConfig, role: string) {
  if (!config.databaseUrl)
    throw new ConfigError(
      `The ${role} role shares its database with other processes: set DATABASE_URL to a PostgreSQL server (the embedded database belongs to one process; use \`start\` for that).`,
    );
}

/**
 * Installed before the role starts: a stop that arrives while it is still starting (the port
 * answers /healthz before start-up has finished) waits for the start, then closes it, instead of
 * Node's default of dying on the spot.
 */
async function closeOnSignals(starting: Promise<{ close(): Promise<void> }>) {
  const stop = (signal: string) => {
    console.log(`\n${signal}: shutting down…`);
    // Past the drain of running jobs, within the 30 s a container stop allows.
    const hardStop = setTimeout(() => process.exit(1), 28_000).unref();
    starting
      .then((service) => service.close())
      .then(
        () => {
          clearTimeout(hardStop);
          process.exit(0);
        },
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await starting;
}

async function users(config: ServiceConfig, args: string[]) {
  const [sub, ...rest] = args;
  if (sub !== 'add' && sub !== 'list') throw new UsageError();
  const [{ openStore }, { usersAdd, usersList }] = await Promise.all([import('./store/database'), import('./cli/users')]);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    console.log(sub === 'add' ? await usersAdd(store, rest) : await usersList(store));
  } finally {
    await store.close();
  }
}

class UsageError extends Error {}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const config = loadConfig();
  switch (command) {
    case 'start':
      await closeOnSignals(start(config));
      return;
    case 'dev':
      await closeOnSignals(dev(config));
      return;
    case 'api':
      requireSharedDatabase(config, 'api');
      await closeOnSignals(start(config, 'api'));
      return;
    case 'worker':
      requireSharedDatabase(config, 'worker');
      await closeOnSignals(worker(config));
      return;
    case 'users':
      await users(config, rest);
      return;
    default:
      throw new UsageError();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) console.error(usage);
  else if (error instanceof ConfigError || (error instanceof Error && error.name === 'CliError')) console.error(error.message);
  else console.error(error);
  // A role that failed to start must not linger half-started (worker threads, timers) and look alive.
  process.exit(1);
});
