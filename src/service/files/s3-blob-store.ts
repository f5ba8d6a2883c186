import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertValidKey, BlobNotFoundError, BlobTooLargeError, type BlobStore, type DirectUploadStore } from './blob-store';
import { byteLimiter } from './local-blob-store';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** For S3-compatible stores (MinIO, R2, …); unset = AWS. */
  endpoint?: string | undefined;
  forcePathStyle?: boolean;
  /** Credentials; unset = the standard AWS chain (AWS_ACCESS_KEY_ID, profiles, instance roles). */
  credentials?: S3ClientConfig['credentials'];
}

function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * Blobs in an S3-compatible bucket (BLOB_STORE=s3). A PUT to S3 is atomic by itself; streams go
 * through lib-storage's multipart Upload, which aborts the upload when the size limit is passed.
 * Clients upload model files straight to S3 with a presigned PUT (`presignPut`).
 */
export class S3BlobStore implements BlobStore, DirectUploadStore {
  readonly client: S3Client;
  readonly bucket: string;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // The SDK's default adds a CRC32 of the (empty) body to every presigned PUT, which S3 and
      // most compatible stores then hold against the real file and refuse; checksums only where
      // an operation requires one.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable | Uint8Array, options: { maxBytes?: number; contentType?: string } = {}) {
    assertValidKey(key);
    const contentType = options.contentType ?? 'application/octet-stream';
    if (body instanceof Uint8Array) {
      if (options.maxBytes !== undefined && body.byteLength > options.maxBytes) {
        throw new BlobTooLargeError(options.maxBytes);
      }
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }));
      return { bytes: body.byteLength };
    }
    const counted = { bytes: 0 };
    const limited = body.pipe(byteLimiter(options.maxBytes, counted));
    let failure: unknown;
    body.on('error', (error) => limited.destroy(error));
    limited.on('error', (error) => (failure ??= error));
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: limited, ContentType: contentType } });
    try {
      await upload.done();
    } catch (error) {
      throw failure ?? error;
    }
    if (failure) throw failure;
    return { bytes: counted.bytes };
  }

  async get(key: string): Promise<Uint8Array> {
    assertValidKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!out.Body) throw new BlobNotFoundError(key);
      return await out.Body.transformToByteArray();
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async stream(key: string): Promise<Readable> {
    assertValidKey(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!out.Body) throw new BlobNotFoundError(key);
      return out.Body instanceof Readable
        ? out.Body
        : Readable.fromWeb(out.Body.transformToWebStream() as Parameters<typeof Readable.fromWeb>[0]);
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async head(key: string): Promise<{ bytes: number } | null> {
    assertValidKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { bytes: out.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async size(key: string): Promise<number | null> {
    return (await this.head(key))?.bytes ?? null;
  }

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertValidKey(prefix, { prefix: true });
    const folder = prefix.endsWith('/') ? prefix : `${prefix}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: folder, ContinuationToken: token }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0)
        await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** A presigned PUT; Content-Type is part of the signature, so the client must send exactly it. */
  async presignPut(key: string, { expiresInSeconds, contentType }: { expiresInSeconds: number; contentType: string }) {
    assertValidKey(key);
    const url = await getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }), {
      expiresIn: expiresInSeconds,
      signableHeaders: new Set(['content-type']),
    });
    return { url, headers: { 'Content-Type': contentType } };
  }

  /** Derived and source files go to clients straight from the bucket, not through the service. */
  async presignGet(
    key: string,
    { expiresInSeconds, contentType, fileName }: { expiresInSeconds: number; contentType: string; fileName?: string },
  ) {
    assertValidKey(key);
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentType: contentType,
        ...(fileName ? { ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}` } : {}),
      }),
      { expiresIn: expiresInSeconds },
    );
  }
}
