import path from 'node:path';
import type { ServiceConfig } from '../config';
import type { BlobStore } from './blob-store';
import { LocalBlobStore } from './local-blob-store';
import { S3BlobStore } from './s3-blob-store';

/** The blob store the configuration names: DATA_DIR/blobs, or an S3 bucket. */
export function createBlobStore(config: Pick<ServiceConfig, 'blobStore' | 'dataDir'>): BlobStore {
  const c = config.blobStore;
  if (c.kind === 's3')
    return new S3BlobStore({ bucket: c.bucket, region: c.region, endpoint: c.endpoint, forcePathStyle: c.forcePathStyle });
  return new LocalBlobStore(path.join(config.dataDir, 'blobs'));
}
