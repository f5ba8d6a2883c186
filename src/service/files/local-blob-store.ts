import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, BlobNotFoundError, BlobTooLargeError, ResumeOffsetError, type BlobStore } from './blob-store';

/** Counts bytes on their way through; fails with BlobTooLargeError past `maxBytes`. */
export function byteLimiter(maxBytes: number | undefined, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counted.bytes += chunk.length;
      if (maxBytes !== undefined && counted.bytes > maxBytes) return callback(new BlobTooLargeError(maxBytes));
      callback(null, chunk);
    },
  });
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Blobs as files under `root` (DATA_DIR/blobs). Writes go to a temporary file beside the target,
 * are fsynced, then renamed over it: a reader sees the old file or the whole new one, never a part.
 */
export class LocalBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  private pathOf(key: string, options?: { prefix?: boolean }): string {
    assertValidKey(key, options);
    const full = path.resolve(this.root, key);
    // assertValidKey already refuses "..", this is the belt to its braces
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`Invalid blob key: ${JSON.stringify(key)}`);
    return full;
  }

  async put(key: string, body: Readable | Uint8Array, options: { maxBytes?: number; contentType?: string } = {}) {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    const counted = { bytes: 0 };
    try {
      const source = body instanceof Uint8Array ? Readable.from([Buffer.from(body.buffer, body.byteOffset, body.byteLength)]) : body;
      await pipeline(source, byteLimiter(options.maxBytes, counted), createWriteStream(temp, { flags: 'wx' }));
      await fsyncFile(temp);
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(path.dirname(target));
    return { bytes: counted.bytes };
  }

  async putResumable(key: string, body: Readable, { offset, total, maxBytes }: { offset: number; total?: number; maxBytes?: number }) {
    const target = this.pathOf(key);
    const part = `${target}.partial`;
    await fs.mkdir(path.dirname(target), { recursive: true });
    const arrived = offset === 0 ? 0 : await sizeOf(part);
    if (arrived !== offset) throw new ResumeOffsetError(arrived);
    const counted = { bytes: offset };
    try {
      await pipeline(body, byteLimiter(maxBytes, counted), createWriteStream(part, { flags: offset === 0 ? 'w' : 'a' }));
    } catch (error) {
      if (error instanceof BlobTooLargeError) await fs.rm(part, { force: true });
      throw error;
    } finally {
      // What arrived is kept for the next call, on disk (best effort when the body broke off).
      await fsyncFile(part).catch(() => {});
    }
    if (total !== undefined && counted.bytes !== total) throw new ResumeOffsetError(counted.bytes);
    await fs.rename(part, target);
    await syncDirectory(path.dirname(target));
    return { bytes: counted.bytes };
  }

  async partialBytes(key: string): Promise<number> {
    return sizeOf(`${this.pathOf(key)}.partial`);
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await fs.readFile(this.pathOf(key)));
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async stream(key: string): Promise<Readable> {
    try {
      // Opened first so that a missing file is an error here, not later on the stream.
      const handle = await fs.open(this.pathOf(key), 'r');
      return handle.createReadStream();
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.pathOf(key))).isFile();
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  localPath(key: string): string {
    return this.pathOf(key);
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await fs.stat(this.pathOf(key))).size;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  /** `prefix` names a folder of keys ("t/1/models/<id>/"); everything under it goes. */
  async deletePrefix(prefix: string): Promise<void> {
    await fs.rm(this.pathOf(prefix, { prefix: true }), { recursive: true, force: true });
  }
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw error;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable; some platforms cannot open directories, which is fine.
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}
