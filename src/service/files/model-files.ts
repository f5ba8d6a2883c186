import type { UploadInfo } from '../../contract/models';
import type { Kysely } from 'kysely';
import type { ModelLifecycle } from '../store/model-lifecycle';
import { findModelById } from '../store/models';
import type { Database, ModelRow } from '../store/schema';
import { claimUpload, openUploads } from '../store/uploads';
import { isDirectUploadStore, modelBlobKeys, type BlobStore } from './blob-store';
import { UPLOAD_CONTENT_TYPE, UPLOAD_TTL_SECONDS, type UrlSigner } from './signed-urls';

export interface ModelFilesOptions {
  db: Kysely<Database>;
  blobStore: BlobStore;
  signer: UrlSigner;
  /** Moves models to `processing` and sends their ingestion jobs. */
  lifecycle: ModelLifecycle;
  uploadMaxBytes: number;
}

/**
 * Files of models as the API hands them out: upload addresses (the service's own signed PUT, or a
 * presigned S3 PUT when the blob store takes uploads directly), signed GET addresses of derived
 * files, and what happens once a file has arrived.
 */
export class ModelFiles {
  constructor(readonly options: ModelFilesOptions) {}

  get direct(): boolean {
    return isDirectUploadStore(this.options.blobStore);
  }

  async uploadInfo(row: ModelRow, nonce: string, expiresAt: Date): Promise<UploadInfo> {
    const { blobStore, signer, uploadMaxBytes } = this.options;
    const fileSizeRequirements = { minSizeInBytes: 1, maxSizeInBytes: uploadMaxBytes };
    if (isDirectUploadStore(blobStore)) {
      const { url, headers } = await blobStore.presignPut(modelBlobKeys(row.tenant_id, row.id).source, {
        expiresInSeconds: UPLOAD_TTL_SECONDS,
        contentType: UPLOAD_CONTENT_TYPE,
      });
      return { uploadUrl: url, headers, fileSizeRequirements };
    }
    const { url, headers } = signer.uploadAddress(row.id, nonce, expiresAt);
    return { uploadUrl: url, headers, fileSizeRequirements };
  }

  /** Changes whenever processing writes new files (cache-busting part of the signed address). */
  private rev(row: ModelRow): string {
    return String(row.processed_at?.getTime() ?? row.version);
  }

  thumbnailUrl(row: ModelRow): string | null {
    return row.thumbnail_key ? this.options.signer.fileUrl(row.id, 'thumbnail.png', this.rev(row)) : null;
  }

  viewerUrl(row: ModelRow): string | null {
    return row.viewer_key ? this.options.signer.fileUrl(row.id, 'viewer.glb', this.rev(row)) : null;
  }

  /** A short-lived download of the file as it was uploaded; null before it arrived. */
  sourceUrl(row: ModelRow): string | null {
    return row.blob_key ? this.options.signer.fileUrl(row.id, 'source', this.rev(row)) : null;
  }

  /** The file is stored: the model is `processing` and its job sent. */
  async uploaded(modelId: string, file: { blobKey: string; sizeBytes: number }): Promise<ModelRow> {
    return this.options.lifecycle.uploaded(modelId, file);
  }

  /**
   * With direct (S3) uploads the service is not told when a PUT finishes; it looks (HEAD) for the
   * file of models still `incomplete-upload` whose address is open, when they are read or when
   * the client says the upload is complete. Returns the rows, updated where a file was found.
   */
  async settleDirectUploads(rows: ModelRow[]): Promise<ModelRow[]> {
    const { blobStore, db, uploadMaxBytes } = this.options;
    if (!isDirectUploadStore(blobStore)) return rows;
    const waiting = rows.filter((r) => r.state === 'incomplete-upload');
    if (waiting.length === 0) return rows;
    const open = new Set(
      await openUploads(
        db,
        waiting.map((r) => r.id),
      ),
    );
    const updated = new Map<string, ModelRow>();
    await Promise.all(
      waiting
        .filter((r) => open.has(r.id))
        .map(async (r) => {
          const key = modelBlobKeys(r.tenant_id, r.id).source;
          const head = await blobStore.head(key);
          if (!head || !(await claimUpload(db, r.id, new Date()))) return;
          if (head.bytes > uploadMaxBytes) {
            await blobStore.delete(key);
            const failed = await this.options.lifecycle.failUpload(r.id, `The file is larger than the ${uploadMaxBytes}-byte limit.`);
            if (failed) updated.set(r.id, failed);
            return;
          }
          updated.set(r.id, await this.uploaded(r.id, { blobKey: key, sizeBytes: head.bytes }));
        }),
    );
    return rows.map((r) => updated.get(r.id) ?? r);
  }

  async refresh(modelId: string): Promise<ModelRow | undefined> {
    return findModelById(this.options.db, modelId);
  }
}
