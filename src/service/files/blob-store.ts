import type { Readable } from 'node:stream';

/**
 * Where model files, images and derived files (viewer GLB, thumbnails) live. Local directory by
 * default; S3-compatible object storage when configured. Keys are tenant-scoped paths such as
 * `t/<tenantId>/models/<modelId>/source`.
 */
export interface BlobStore {
  /** Writes `body` to `key` atomically (nobody ever reads a half-written file). */
  put(key: string, body: Readable | Uint8Array, options?: { maxBytes?: number; contentType?: string }): Promise<{ bytes: number }>;
  /** The whole object; for ingestion, which needs the bytes in memory anyway. */
  get(key: string): Promise<Uint8Array>;
  stream(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Removes every key under `prefix` (a model's source and derived files). */
  deletePrefix(prefix: string): Promise<void>;
}
