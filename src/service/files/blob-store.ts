import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
  /** Bytes stored at `key`, or null when there is nothing. */
  size(key: string): Promise<number | null>;
  /** Where the object is on this machine's disk, when the store keeps it there. */
  localPath?(key: string): string;
  /**
   * Writes `body` from byte `offset` of the object, keeping what arrived when the body breaks
   * off, so that another call can go on from there (a dropped upload resumed); the object
   * appears at `key` once the body ends with `total` bytes in all (whatever arrived, without
   * one). Offsets other than what has arrived are refused (ResumeOffsetError). Stores that
   * cannot keep a part leave it out.
   */
  putResumable?(key: string, body: Readable, options: { offset: number; total?: number; maxBytes?: number }): Promise<{ bytes: number }>;
  /** Bytes of an unfinished putResumable at `key` (0 when none). */
  partialBytes?(key: string): Promise<number>;
  delete(key: string): Promise<void>;
  /** Removes every key under `prefix` (a model's source and derived files). */
  deletePrefix(prefix: string): Promise<void>;
}

/** `put` read more than `maxBytes`; nothing was stored. */
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than ${maxBytes} bytes.`);
    this.name = 'BlobTooLargeError';
  }
}

/** putResumable from an offset other than the bytes that arrived (`received`), or a body that ended short of `total`. */
export class ResumeOffsetError extends Error {
  constructor(readonly received: number) {
    super(`${received} bytes of this upload have arrived; send the rest from there.`);
    this.name = 'ResumeOffsetError';
  }
}

/** `get`/`stream` of a key that holds nothing. */
export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No blob at ${key}.`);
    this.name = 'BlobNotFoundError';
  }
}

/**
 * A store the client can upload to directly (S3 presigned PUT), instead of through the service's
 * own signed address. The service then learns of the upload by asking `head`.
 */
export interface DirectUploadStore {
  presignPut(
    key: string,
    options: { expiresInSeconds: number; contentType: string },
  ): Promise<{ url: string; headers: Record<string, string> }>;
  /** Size of the object at `key`, or null when there is none. */
  head(key: string): Promise<{ bytes: number } | null>;
  /** A presigned GET answered with this content type (and as an attachment named `fileName`, when given). */
  presignGet(key: string, options: { expiresInSeconds: number; contentType: string; fileName?: string }): Promise<string>;
}

export function isDirectUploadStore(store: BlobStore): store is BlobStore & DirectUploadStore {
  const s = store as Partial<DirectUploadStore>;
  return typeof s.presignPut === 'function' && typeof s.head === 'function' && typeof s.presignGet === 'function';
}

/** Everything of one model lives under this prefix (deleted with `deletePrefix` when the model goes). */
export function modelBlobPrefix(tenantId: number, modelId: string): string {
  return `t/${tenantId}/models/${modelId}/`;
}

/** The keys of a model's files: the uploaded source, and what ingestion derives from it. */
export function modelBlobKeys(tenantId: number, modelId: string) {
  const prefix = modelBlobPrefix(tenantId, modelId);
  return { prefix, source: `${prefix}source`, viewer: `${prefix}viewer.glb`, thumbnail: `${prefix}thumbnail.png` };
}

const KEY_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Keys are slash-separated segments of [A-Za-z0-9._-] (not starting with "."): no traversal, no surprises in S3. */
export function assertValidKey(key: string, { prefix = false } = {}): void {
  const body = prefix && key.endsWith('/') ? key.slice(0, -1) : key;
  if (body.length === 0 || body.length > 512 || !body.split('/').every((s) => KEY_SEGMENT.test(s))) {
    throw new Error(`Invalid blob key: ${JSON.stringify(key)}`);
  }
}

/**
 * Runs `use` with a path on this machine's disk holding the object at `key`: the store's own file
 * when it keeps one, otherwise a temporary copy streamed from the store and removed afterwards.
 * For files too large to hold in memory (a gigabyte mesh).
 */
export async function withLocalFile<T>(store: BlobStore, key: string, use: (file: string) => Promise<T>): Promise<T> {
  if (store.localPath) return use(store.localPath(key));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'workbench-blob-'));
  try {
    const file = path.join(dir, 'source');
    await pipeline(await store.stream(key), createWriteStream(file, { flags: 'wx' }));
    return await use(file);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
