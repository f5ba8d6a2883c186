// Assertions that service tests share: the contract's error body, and a queue that only records.
import { expect } from 'vitest';
import { apiErrorBodySchema } from '../../contract/errors';
import type { IngestQueue } from '../ingest/ingest-queue';

/** The response has `status` and the contract's JSON error body (message matching `pattern`); returns the error. */
export async function expectApiError(response: Response, status: number, pattern?: RegExp) {
  expect(response.status).toBe(status);
  const raw: unknown = await response.json();
  // Parsing checks the shape; the raw error is returned because zod drops fields the schema doesn't name.
  const { error } = apiErrorBodySchema.parse(raw);
  if (pattern) expect(error.message).toMatch(pattern);
  return (raw as { error: typeof error & Record<string, unknown> }).error;
}

/** An ingest queue that processes nothing and remembers what it was given, for tests of the upload flow. */
export function recordingQueue() {
  const enqueued: { modelId: string; reason: string | undefined }[] = [];
  const queue: IngestQueue = {
    async send(_trx, job) {
      enqueued.push({ modelId: job.modelId, reason: job.reason });
    },
  };
  return { queue, enqueued, ids: () => enqueued.map((e) => e.modelId) };
}
