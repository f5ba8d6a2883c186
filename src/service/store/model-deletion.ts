// Deleting models as every route does it: the records in one transaction (all or nothing), the
// assemblies that used them queued again in it, then their files.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { modelBlobKeys, type BlobStore } from '../files/blob-store';
import type { ModelLifecycle } from './model-lifecycle';
import { deleteModelsAndRequeueAssemblies } from './models';
import type { Database } from './schema';

export function modelDeletion({ db, blobStore, lifecycle }: { db: Kysely<Database>; blobStore: BlobStore; lifecycle: ModelLifecycle }) {
  // Assemblies that used a deleted part are processed again and end -incomplete, naming it missing.
  const requeue = (trx: Transaction<Database>, id: string) => lifecycle.reprocess(id, { reason: 'reprocess' }, trx);
  return async function deleteModels(log: FastifyBaseLogger, tenantId: number, ids: readonly string[]) {
    await lifecycle.started(); // requeue sends inside the delete's transaction
    const result = await deleteModelsAndRequeueAssemblies(db, tenantId, ids, requeue);
    if ('missing' in result) return result;
    await lifecycle
      .deleted(result.rows)
      .catch((error: unknown) => log.error({ err: error }, 'could not record model.deleted webhook events'));
    await Promise.all(
      result.rows.map(async (row) => {
        try {
          await blobStore.deletePrefix(modelBlobKeys(row.tenant_id, row.id).prefix);
        } catch (error) {
          // The record is gone; a leftover file is only disk space, and no address can reach it.
          log.error({ err: error, modelId: row.id }, 'could not delete model files');
        }
      }),
    );
    return result;
  };
}
