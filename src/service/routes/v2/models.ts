import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { filePathProblem } from '../../../contract/file-paths';
import { modelFilterFields } from '../../../contract/filter';
import { setMetadataValueRequestSchema } from '../../../contract/metadata-keys';
import {
  assemblyTreeResponseSchema,
  createModelsRequestSchema,
  createModelsWireResponseSchema,
  deletedResponseSchema,
  MAX_MODELS_PER_REQUEST,
  metadataValueListResponseSchema,
  updateModelRequestSchema,
  modelListResponseSchema,
  modelResponseSchema,
  setMetadataValueResponseSchema,
  sourceFileResponseSchema,
  viewerFileResponseSchema,
  type AssemblyTree,
  type ModelListResponse,
} from '../../../contract/models';
import { listOrderFields } from '../../../contract/order';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import type { BlobStore } from '../../files/blob-store';
import { modelDeletion } from '../../store/model-deletion';
import type { ModelFiles } from '../../files/model-files';
import { UPLOAD_TTL_SECONDS } from '../../files/signed-urls';
import { requireRole } from '../../http/auth';
import { Conflict, InvalidInput, NotFound, TooLarge } from '../../http/errors';
import { listQuerySchema, parseListQuery } from '../../http/list-query';
import { listParam } from '../../http/list-param';
import { foldNameCase } from '../../store/folders';
import { deleteMetadataValue, findMetadataKey, metadataOf, setMetadataValue } from '../../store/metadata-keys';
import { assemblyTreeOf } from '../../store/assembly-trees';
import { createModels, findModel, listModels, moveModel, setUpAxis } from '../../store/models';
import type { ModelLifecycle } from '../../store/model-lifecycle';
import type { Database, ModelRow } from '../../store/schema';
import { toModel, toModels } from '../../store/model-dto';

const idParams = z.object({ id: z.string() });
const bulkIdsQuery = z.object({ ids: listParam.transform((v) => v ?? []) });
const metadataParams = z.object({ id: z.string(), metadataKeyId: z.string() });
const createQuery = z.object({
  createMissingFolders: z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
  replaceFailed: z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
});

export interface ModelRouteOptions {
  db: Kysely<Database>;
  blobStore: BlobStore;
  files: ModelFiles;
  lifecycle: ModelLifecycle;
}

/** `/v2/models`, with each model's metadata values. */
export async function modelRoutes(parent: FastifyInstance, { db, blobStore, files, lifecycle }: ModelRouteOptions) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const deleteModels = modelDeletion({ db, blobStore, lifecycle });
  async function modelOr404(tenantId: number, { id }: { id: string }): Promise<ModelRow> {
    const row = await findModel(db, tenantId, id);
    if (!row) throw new NotFound(`No model ${id}.`);
    return row;
  }

  async function present(row: ModelRow) {
    const [model] = await toModels(db, [row], files);
    return { model: model ?? toModel(row, [], files) };
  }

  app.post(
    '/',
    {
      schema: {
        tags: ['Models'],
        summary: 'Create model records (up to 100) and get their upload addresses',
        description:
          'Then PUT each file to its uploadUrl with every header of headers. createMissingFolders=true creates the folders of the paths. ' +
          "replaceFailed=true (this service's addition) takes over a path whose model failed or is unsupported, as a path still waiting for its file is: same model, a fresh upload address, processed again once the new file arrives.",
        querystring: createQuery,
        body: createModelsRequestSchema,
        response: { 201: createModelsWireResponseSchema },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const { createMissingFolders, replaceFailed } = request.query;
      const { models: items } = request.body;
      if (items.length === 0) throw new InvalidInput('models: send at least one model.');
      if (items.length > MAX_MODELS_PER_REQUEST) {
        throw new TooLarge(`models: at most ${MAX_MODELS_PER_REQUEST} models per request (got ${items.length}); split the batch.`);
      }
      const seen = new Map<string, string>();
      for (const [i, item] of items.entries()) {
        const problem = filePathProblem(item.filePath);
        if (problem) throw new InvalidInput(`models[${i}].filePath: ${problem} (“${item.filePath.slice(0, 200)}”)`);
        const lower = foldNameCase(item.filePath);
        const earlier = seen.get(lower);
        if (earlier !== undefined) throw new Conflict(`The path “${item.filePath}” appears twice in this request (as “${earlier}” too).`);
        seen.set(lower, item.filePath);
      }

      const expiresAt = new Date(Date.now() + UPLOAD_TTL_SECONDS * 1000);
      const result = await createModels(db, {
        tenantId: auth.tenantId,
        ownerId: auth.userId,
        items,
        createMissingFolders: createMissingFolders === 'true',
        replaceFailed: replaceFailed === 'true',
        uploadExpiresAt: expiresAt,
      });
      if (!result.ok) {
        switch (result.reason) {
          case 'duplicate':
            throw new Conflict(`A model with the path ${result.paths.map((p) => `“${p}”`).join(', ')} already exists.`);
          case 'missing-folder':
            throw new InvalidInput(
              `models[${result.index}].filePath: the folder “${result.folder}” does not exist; create it first or send createMissingFolders=true.`,
            );
          case 'unknown-metadata-keys':
            throw new InvalidInput(`metadataKeyId: there is no metadata key ${result.ids.join(', ')}.`);
        }
      }
      const rows = result.models.map((m) => m.row);
      const models = await toModels(db, rows, files);
      const entries = await Promise.all(
        result.models.map(async ({ row, nonce }, i) => {
          const info = await files.uploadInfo(row, nonce, expiresAt);
          return { model: models[i] ?? toModel(row, [], files), uploadUrl: info.uploadUrl, headers: info.headers, uploadInfo: info };
        }),
      );
      return reply.status(201).send({ models: entries });
    },
  );

  app.get(
    '/',
    { schema: { tags: ['Models'], summary: 'List models', querystring: listQuerySchema, response: { 200: modelListResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const query = parseListQuery(request.query, { filterFields: modelFilterFields, allowMetadata: true, orderFields: listOrderFields });
      const { rows, total } = await listModels(db, auth.tenantId, query);
      const settled = await files.settleDirectUploads(rows);
      const body: ModelListResponse = { models: await toModels(db, settled, files), pageData: pageDataFor(total, query) };
      return body;
    },
  );

  app.get(
    '/:id',
    { schema: { tags: ['Models'], summary: 'One model', params: idParams, response: { 200: modelResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params);
      const [settled] = await files.settleDirectUploads([row]);
      return present(settled ?? row);
    },
  );

  app.delete(
    '/:id',
    { schema: { tags: ['Models'], summary: 'Delete a model and its files', params: idParams, response: { 204: z.undefined() } } },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const { id } = request.params;
      const deleted = await deleteModels(request.log, auth.tenantId, [id]);
      if ('missing' in deleted) throw new NotFound(`No model ${id}.`);
      return reply.status(204).send();
    },
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags: ['Models'],
        summary: "Move a model to another folder, or choose its up axis (this service's addition)",
        description:
          "folderId: its file name stays; its filePath becomes the folder's path and the file name (409 when that path is taken). " +
          'upAxis: the axis thumbnails and 3D views stand it on (z for CAD and print formats, y for glTF and OBJ unless chosen); its thumbnail is drawn again.',
        params: idParams,
        body: updateModelRequestSchema,
        response: { 200: modelResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const { id } = request.params;
      const { folderId, upAxis } = request.body;
      let row = await modelOr404(auth.tenantId, { id });
      if (upAxis !== undefined && row.up_axis !== upAxis) {
        await setUpAxis(db, auth.tenantId, id, upAxis);
        // The thumbnail is drawn at ingestion: the model is processed again to draw it standing.
        const again = await lifecycle.reprocess(id, { tenantId: auth.tenantId });
        row = again && !('noFile' in again) ? again : await modelOr404(auth.tenantId, { id });
      }
      if (folderId === undefined) return present(row);
      const moved = await moveModel(db, auth.tenantId, id, folderId);
      if (moved.ok) return present(moved.row);
      switch (moved.reason) {
        case 'no-model':
          throw new NotFound(`No model ${id}.`);
        case 'no-folder':
          throw new InvalidInput(`folderId: there is no folder ${folderId}.`, { parameter: 'folderId' });
        case 'taken':
          throw new Conflict(`A model with the path “${moved.path}” already exists.`);
      }
    },
  );

  app.post(
    '/:id/reprocess',
    { schema: { tags: ['Models'], summary: 'Process a model again', params: idParams, response: { 200: modelResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const { id } = request.params;
      const result = await lifecycle.reprocess(id, { tenantId: auth.tenantId });
      if (!result) throw new NotFound(`No model ${id}.`);
      if ('noFile' in result) throw new Conflict('The model has no file yet; upload it first.');
      return present(result);
    },
  );

  /** For direct (S3) uploads: the client says its PUT finished; the service checks the bucket. */
  app.post(
    '/:id/upload-complete',
    { schema: { tags: ['Models'], summary: 'Say a direct (S3) upload is done', params: idParams, response: { 200: modelResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const row = await modelOr404(auth.tenantId, request.params);
      const [settled = row] = await files.settleDirectUploads([row]);
      if (settled.state === 'incomplete-upload') throw new Conflict('The file has not arrived yet.');
      return present(settled);
    },
  );

  app.get(
    '/:id/source-file',
    {
      schema: {
        tags: ['Models'],
        summary: 'A short-lived download address of the original file',
        params: idParams,
        response: { 200: sourceFileResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params);
      const url = files.sourceUrl(row);
      if (!url) throw new NotFound('The model has no file yet; upload it first.');
      return { sourceFile: url };
    },
  );

  app.get(
    '/:id/metadata',
    {
      schema: {
        tags: ['Metadata'],
        summary: "A model's metadata values",
        params: idParams,
        querystring: pageQuerySchema,
        response: { 200: metadataValueListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params);
      const page = request.query;
      const all = (await metadataOf(db, [row.id])).get(row.id) ?? [];
      const start = (page.page - 1) * page.perPage;
      return { metadata: all.slice(start, start + page.perPage), pageData: pageDataFor(all.length, page) };
    },
  );

  /** Published bulk delete: `?ids=` (repeated or comma-joined), at most 100, all or nothing. */
  app.delete(
    '/',
    {
      schema: {
        tags: ['Models'],
        summary: 'Delete up to 100 models, all or nothing',
        querystring: bulkIdsQuery,
        response: { 204: z.undefined() },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const { ids } = request.query;
      if (ids.length === 0) throw new InvalidInput('ids: give the ids of the models to delete.', { parameter: 'ids' });
      if (ids.length > MAX_MODELS_PER_REQUEST)
        throw new TooLarge(`ids: at most ${MAX_MODELS_PER_REQUEST} models per request (got ${ids.length}); split the list.`);
      const result = await deleteModels(request.log, auth.tenantId, ids);
      if ('missing' in result) throw new NotFound(`No model ${result.missing.join(', ')}; nothing was deleted.`);
      return reply.status(204).send();
    },
  );

  app.get(
    '/:id/viewer-file',
    {
      schema: {
        tags: ['Models'],
        summary: 'A short-lived address of the 3D viewer file (GLB)',
        params: idParams,
        response: { 200: viewerFileResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params);
      const url = files.viewerUrl(row);
      if (!url) throw new NotFound('The model has no viewer file yet; it appears when processing has finished.');
      return { viewerFile: url };
    },
  );

  /**
   * A model without an assembly tree (a part, or an assembly not processed yet) answers an empty
   * tree rather than 404, so a client can always render the answer.
   */
  app.get(
    '/:id/assembly-tree',
    {
      schema: {
        tags: ['Models'],
        summary: "An assembly's tree of parts and sub-assemblies",
        params: idParams,
        response: { 200: assemblyTreeResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params);
      const body: AssemblyTree = {
        type: 'assemblyTree',
        modelId: row.id,
        children: await assemblyTreeOf(db, row),
      };
      return body;
    },
  );

  app.put(
    '/:id/metadata/:metadataKeyId',
    {
      schema: {
        tags: ['Metadata'],
        summary: 'Set a metadata value of a model',
        params: metadataParams,
        body: setMetadataValueRequestSchema,
        response: { 200: setMetadataValueResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const { row, keyId } = await metadataTarget(auth.tenantId, request.params);
      const { value } = request.body;
      await setMetadataValue(db, row.id, keyId, value);
      const answer = await present(row);
      // The published answer is the value set; ours adds the whole model.
      return { ...answer, metadata: answer.model.metadata.find((m) => m.metadataKeyId === keyId) };
    },
  );

  app.delete(
    '/:id/metadata/:metadataKeyId',
    {
      schema: {
        tags: ['Metadata'],
        summary: 'Remove a metadata value of a model',
        params: metadataParams,
        response: { 200: deletedResponseSchema },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const { row, keyId } = await metadataTarget(auth.tenantId, request.params);
      if (!(await deleteMetadataValue(db, row.id, keyId))) throw new NotFound(`The model has no value for metadata key ${keyId}.`);
      return reply.status(200).send({ deleted: true });
    },
  );

  async function metadataTarget(tenantId: number, { id, metadataKeyId }: { id: string; metadataKeyId: string }) {
    const row = await findModel(db, tenantId, id);
    if (!row) throw new NotFound(`No model ${id}.`);
    const keyId = /^\d{1,10}$/.test(metadataKeyId) ? Number(metadataKeyId) : NaN;
    if (!(await findMetadataKey(db, tenantId, keyId))) throw new NotFound(`No metadata key ${metadataKeyId}.`);
    return { row, keyId };
  }
}
