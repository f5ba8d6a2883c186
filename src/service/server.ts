import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Provider } from 'oidc-provider';
import { buildApp, type AppOptions } from './app';
import { defaultPublicUrl, type ServiceConfig } from './config';
import type { BlobStore } from './files/blob-store';
import { createBlobStore } from './files/configured-blob-store';
import type { IngestQueue } from './ingest/ingest-queue';
import { pruneExpiredPayloads } from './identity/adapter';
import { createMetrics, type ServiceMetrics } from './metrics';
import { openStore, type Store } from './store/database';
import { ensureDemoAccount } from './store/demo';
import { releaseAbandonedClaims, UPLOAD_CLAIM_LEASE_MS } from './store/uploads';
import { loadOrCreateKeys, type ServiceKeys } from './store/keys';
import { log } from './log';

export interface StartOptions {
  config: ServiceConfig;
  /** Whether PUBLIC_URL was given explicitly; if not, it follows the port actually bound (port 0 in tests). */
  publicUrlFromEnv?: boolean;
  web: AppOptions['web'] | ((server: http.Server) => Promise<AppOptions['web']>);
  logger?: AppOptions['logger'];
  /** Closed after the server, before the store (e.g. a Vite dev server). */
  onClose?: () => Promise<void>;
  /** A store already being opened (lets the CLI overlap opening the database with loading code). */
  store?: Promise<Store>;
  /** A plain ingest queue (absent, and no `ingestion`: uploaded models stay `processing`). */
  ingestQueue?: IngestQueue;
  /**
   * Opens the job queue once store and blob store exist, with workers (ingest/start-ingestion.ts,
   * all-in-one) or without (ingest/job-queue.ts, the API role); its queue receives the API's jobs,
   * and it is stopped on close after the server, before the store.
   */
  ingestion?: (deps: {
    store: Store;
    blobStore: BlobStore;
    config: ServiceConfig;
    metrics: ServiceMetrics;
  }) => Promise<{ queue: IngestQueue; stop(): Promise<void> }>;
  /** Overrides the blob store the configuration names (tests). */
  blobStore?: BlobStore;
}

export interface RunningService {
  /** The origin the service is reachable at (PUBLIC_URL). */
  url: string;
  port: number;
  app: FastifyInstance;
  provider: Provider;
  store: Store;
  keys: ServiceKeys;
  issuer: string;
  blobStore: BlobStore;
  demoCreated: boolean;
  close(): Promise<void>;
}

/**
 * Opens the store, binds the port, then builds the app on that already-listening server, so that
 * with port 0 the issuer and redirect URIs can name the real port without a race.
 */
export async function startService({
  config,
  publicUrlFromEnv = true,
  web,
  logger,
  onClose,
  store: opening,
  ingestQueue,
  ingestion: startIngestion,
  blobStore: givenBlobStore,
}: StartOptions): Promise<RunningService> {
  const store = await (opening ?? openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }));
  let server: http.Server | undefined;
  let ingestion: { queue: IngestQueue; stop(): Promise<void> } | undefined;
  try {
    // An embedded database belongs to this process alone: every claim found at start was held by
    // a process that crashed. On a shared one, only claims whose lease ran out are given back.
    const exclusive = config.databaseUrl === undefined;
    const [keys, demoCreated, released] = await Promise.all([
      loadOrCreateKeys(store.db),
      config.demo ? ensureDemoAccount(store.db, config.demo) : Promise.resolve(false),
      releaseAbandonedClaims(store.db, exclusive ? new Date() : new Date(Date.now() - UPLOAD_CLAIM_LEASE_MS)),
      pruneExpiredPayloads(store.db),
    ]);
    if (released > 0) log.warn({ released }, 'uploads cut off by a stop of the service can be sent again');

    // Requests that arrive between binding and the app being ready wait here instead of hanging.
    const early: [http.IncomingMessage, http.ServerResponse][] = [];
    let handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined = undefined;
    const httpServer = http.createServer((req, res) => (handle ? handle(req, res) : early.push([req, res])));
    server = httpServer;
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.port, config.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    const port = (httpServer.address() as AddressInfo).port;
    let fastifyHandler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
    const url = publicUrlFromEnv ? config.publicUrl : defaultPublicUrl(config.host, port);

    const blobStore = givenBlobStore ?? createBlobStore(config);
    // Ingestion (queue schema, worker threads) starts beside the app instead of before it: sign-in
    // does not need it, and an upload arriving meanwhile waits for the queue to be ready.
    const metrics = createMetrics();
    const ingestionStarting = startIngestion?.({ store, blobStore, config, metrics });
    ingestionStarting?.catch(() => {}); // awaited (and reported) below
    const queue: IngestQueue | undefined = ingestionStarting
      ? {
          started: async () => void (await ingestionStarting),
          send: async (trx, job) => (await ingestionStarting).queue.send(trx, job),
          committed: () => void ingestionStarting.then((started) => started.queue.committed?.()).catch(() => {}),
          ready: async () => (await ingestionStarting).queue.ready?.(),
          depth: async () => (await (await ingestionStarting).queue.depth?.()) ?? 0,
          sendReport: async (reportId) => {
            const { queue: started } = await ingestionStarting;
            if (!started.sendReport) throw new Error('this queue runs no reports');
            await started.sendReport(reportId);
          },
          sendDeliveries: async (db, ids) => {
            const { queue: started } = await ingestionStarting;
            await started.sendDeliveries?.(db, ids);
          },
        }
      : ingestQueue;
    let built: Awaited<ReturnType<typeof buildApp>>;
    try {
      built = await buildApp({
        store,
        keys,
        publicUrl: url,
        web: typeof web === 'function' ? await web(httpServer) : web,
        logger,
        blobStore,
        ingestQueue: queue,
        uploadMaxBytes: config.uploadMaxBytes,
        throttle: config.throttle,
        metrics,
        oidc: config.oidc,
        publishedFieldsOnly: config.publishedFieldsOnly,
        webhooksAllowPrivate: config.webhooksAllowPrivate ?? false,
        serverFactory: (handler) => {
          fastifyHandler = handler;
          return httpServer;
        },
      });
      await built.app.ready();
    } catch (error) {
      await ingestionStarting?.then((started) => started.stop()).catch(() => {});
      for (const [, res] of early.splice(0)) res.writeHead(503, { 'retry-after': '1' }).end();
      throw error;
    }
    const { app, provider, issuer } = built;
    handle = fastifyHandler;
    for (const [req, res] of early.splice(0)) handle?.(req, res);
    ingestion = await ingestionStarting;

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await app.close();
        await closeServer(httpServer);
        await ingestion?.stop();
        await onClose?.();
        await store.close();
      })());

    return { url, port, app, provider, store, keys, issuer, blobStore, demoCreated, close };
  } catch (error) {
    if (server) await closeServer(server);
    await ingestion?.stop().catch(() => {});
    await onClose?.();
    await store.close();
    throw error;
  }
}

/** Stops accepting, lets in-flight requests finish for a moment, then drops what is left. */
async function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 2000).unref();
  await closed;
  clearTimeout(force);
}
