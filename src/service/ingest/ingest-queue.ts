/**
 * What the API needs from ingestion: a durable request to (re)process a model. The queue lives in
 * the database, so a request survives a restart; workers pick it up in worker threads.
 */
export interface IngestQueue {
  /** Queues processing of `modelId` (after its file was stored, or on reprocess). Idempotent per model. */
  enqueue(modelId: string, options?: { reason?: 'uploaded' | 'reprocess' | 'part-arrived' }): Promise<void>;
  /** Resolves when the queue can be reached (readiness); rejects with why not. */
  ready?(): Promise<void>;
  /** Jobs waiting or running (metrics). */
  depth?(): Promise<number>;
}
