import type { DeliverySender } from '../webhooks/events';
import type { IngestJobSender } from '../store/model-lifecycle';

/**
 * What the API needs from the workers (ingestion, and the duplicate reports run beside it): a durable request to process a model at a version. The
 * queue lives in the database, so a request sent in the transaction that moved the model to
 * `processing` survives a restart; worker processes pick it up.
 */
export interface IngestQueue extends IngestJobSender {
  /** Resolves when the queue can be reached (readiness); rejects with why not. */
  ready?(): Promise<void>;
  /** Jobs waiting or running (metrics). */
  depth?(): Promise<number>;
  /** Asks a worker to run a duplicates report (search/duplicate-report-job.ts). */
  sendReport?(reportId: string): Promise<void>;
  /** Queues webhook deliveries for the workers (webhooks/events.ts). */
  sendDeliveries?: DeliverySender['sendDeliveries'];
}
