import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { BlobStore } from '../files/blob-store';
import type { IngestQueue } from '../ingest/ingest-queue';
import type { ServiceMetrics } from '../metrics';
import type { Database } from '../store/schema';

const CHECK_TIMEOUT_MS = 2000;

async function check(probe: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS)),
      ),
    ]);
    return 'ok';
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * For operators and orchestrators, outside the API's token check: `/healthz` (the process
 * answers), `/readyz` (database, storage and queue reachable; 503 naming what is not) and
 * `/metrics` (Prometheus text).
 */
export async function operationRoutes(
  parent: FastifyInstance,
  {
    db,
    blobStore,
    queue,
    metrics,
  }: { db: Kysely<Database>; blobStore: BlobStore; queue: IngestQueue | undefined; metrics: ServiceMetrics },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.get('/healthz', async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const [database, storage, jobs] = await Promise.all([
      check(() => sql`select 1`.execute(db)),
      check(() => blobStore.exists('health/readiness-probe')),
      queue?.ready ? check(() => queue.ready!()) : Promise.resolve('not used by this process'),
    ]);
    const checks = { database, storage, queue: jobs };
    const ready = Object.values(checks).every((c) => !c.startsWith('failed'));
    return reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ready' : 'unready', checks });
  });

  app.get('/metrics', async (_request, reply) =>
    reply
      .header('cache-control', 'no-store')
      .type(metrics.registry.contentType)
      .send(await metrics.registry.metrics()),
  );
}
