// The service's Prometheus metrics (GET /metrics), one registry per running service so that
// several services in one process (tests) never share counts. Defined here only; the HTTP layer
// and ingestion record into them.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type IngestOutcome =
  'finished' | 'finished-incomplete' | 'failed' | 'failed-incomplete' | 'unsupported' | 'stale' | 'skipped' | 'error';

export interface ServiceMetrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  ingestJobs: Counter<'outcome'>;
  ingestSeconds: Histogram<'format' | 'reader'>;
  /** Wall time of each processing stage of a model (read, facts, search features, views, viewer file, thumbnail). */
  ingestStageSeconds: Histogram<'stage'>;
  /** Reads a value when scraped: models per state, jobs waiting. */
  observe(sources: { modelsByState?: () => Promise<Record<string, number>>; queueDepth?: () => Promise<number> }): void;
}

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const ingestJobs = new Counter({
    name: 'ingest_jobs_total',
    help: 'Ingestion jobs by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const ingestSeconds = new Histogram({
    name: 'ingest_duration_seconds',
    help: 'Wall time of processing one model, by file format and CAD reader (opencascade-native, occt-import-js; none for meshes)',
    labelNames: ['format', 'reader'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const ingestStageSeconds = new Histogram({
    name: 'ingest_stage_seconds',
    help: 'Wall time of one processing stage of a model (import, weld, facts, search, normals, viewer, thumbnail-render, views, …)',
    labelNames: ['stage'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  let sources: Parameters<ServiceMetrics['observe']>[0] = {};
  new Gauge({
    name: 'models',
    help: 'Models by state, all tenants',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const [state, n] of Object.entries((await sources.modelsByState?.()) ?? {})) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'ingest_queue_depth',
    help: 'Ingestion jobs waiting or running',
    registers: [registry],
    async collect() {
      const depth = await sources.queueDepth?.();
      if (depth !== undefined) this.set(depth);
    },
  });
  return {
    registry,
    httpDuration,
    ingestJobs,
    ingestSeconds,
    ingestStageSeconds,
    observe(s) {
      sources = { ...sources, ...s };
    },
  };
}
