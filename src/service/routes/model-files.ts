import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { Conflict, Forbidden, NotFound, TooLarge } from '../http/errors';
import { drainRest, header, refuseEarly, signedPutGuard } from '../http/signed-put';
import { findModelById } from '../store/models';
import type { Database } from '../store/schema';
import { claimUpload, findUpload, releaseUpload, renewUploadClaim, UPLOAD_CLAIM_LEASE_MS } from '../store/uploads';
import { BlobNotFoundError, BlobTooLargeError, isDirectUploadStore, modelBlobKeys, type BlobStore } from '../files/blob-store';
import type { ModelFiles } from '../files/model-files';
import { modelFileKinds, signedQuerySchema, UPLOAD_TOKEN_HEADER, type ModelFileKind, type UrlSigner } from '../files/signed-urls';

export interface FileRouteOptions {
  db: Kysely<Database>;
  blobStore: BlobStore;
  signer: UrlSigner;
  files: ModelFiles;
  uploadMaxBytes: number;
}

const uploadParams = z.object({ modelId: z.string() });
const fileParams = z.object({ modelId: z.string(), file: z.string() });

/** Longest life of a bucket's presigned GET behind one of the service's signed file addresses. */
const PRESIGNED_GET_SECONDS = 300;

/**
 * The request body for the blob store, through a PassThrough: when the store gives up (size
 * limit) it destroys its source, which must not be the socket the answer still has to go out on.
 * A client that goes away mid-upload fails the write instead of leaving it waiting.
 */
function requestBody(request: FastifyRequest): Readable {
  const raw = request.raw;
  const body = new PassThrough();
  raw.on('error', (error) => body.destroy(error));
  raw.on('close', () => {
    if (!raw.complete) body.destroy(new Error('The upload was interrupted.'));
  });
  raw.pipe(body);
  return body;
}

/**
 * The signed addresses (files/signed-urls.ts), outside /v2 and without a bearer token: the
 * signature is the authorisation. Upload bodies are never buffered: the route's content-type
 * parser hands the raw request stream to the blob store, which counts bytes as they arrive.
 */
export async function fileRoutes(parent: FastifyInstance, { db, blobStore, signer, files, uploadMaxBytes }: FileRouteOptions) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const tooLarge = `The file is larger than the ${uploadMaxBytes}-byte limit.`;
  app.put(
    '/uploads/models/:modelId',
    {
      schema: { params: uploadParams, querystring: signedQuerySchema },
      onRequest: signedPutGuard({
        idParam: 'modelId',
        verify: ({ id, ...rest }) => signer.verifyUpload({ modelId: id, ...rest }),
        maxBytes: uploadMaxBytes,
        expiredMessage: 'The upload address has expired; delete the model and create it again for a new address.',
        tooLargeMessage: tooLarge,
      }),
    },
    async (request, reply) => {
      const { modelId } = request.params;
      const [model, upload] = await Promise.all([findModelById(db, modelId), findUpload(db, modelId)]);
      if (!model || !upload) refuseEarly(request, new NotFound('The model of this upload address no longer exists.'));
      if (upload.nonce !== header(request, UPLOAD_TOKEN_HEADER)?.trim())
        refuseEarly(request, new Forbidden('The upload token does not belong to this address.'));
      if (!(await claimUpload(db, modelId, new Date()))) refuseEarly(request, new Conflict('This upload address has been used already.'));

      const key = modelBlobKeys(model.tenant_id, model.id).source;
      let bytes: number;
      const lease = setInterval(() => void renewUploadClaim(db, modelId).catch(() => {}), UPLOAD_CLAIM_LEASE_MS / 4);
      try {
        ({ bytes } = await blobStore.put(key, requestBody(request), {
          maxBytes: uploadMaxBytes,
          contentType: 'application/octet-stream',
        }));
      } catch (error) {
        clearInterval(lease);
        await releaseUpload(db, modelId);
        drainRest(request);
        if (error instanceof BlobTooLargeError) throw new TooLarge(tooLarge);
        throw error;
      }
      clearInterval(lease);
      const row = await files.uploaded(model.id, {
        blobKey: key,
        sizeBytes: bytes,
      });
      return reply.status(200).send({ modelId: row.id, bytes, state: row.state });
    },
  );

  app.get('/files/models/:modelId/:file', { schema: { params: fileParams, querystring: signedQuerySchema } }, async (request, reply) => {
    const { modelId, file } = request.params;
    const { expires, sig, v } = request.query;
    const verdict = signer.verifyFile({
      modelId,
      file,
      rev: v,
      expires,
      sig,
    });
    if (!verdict.ok)
      throw new Forbidden(verdict.reason === 'expired' ? 'The file address has expired.' : 'The file address is not as signed.');
    if (!(modelFileKinds as readonly string[]).includes(file)) throw new NotFound('No such file.');
    const model = await findModelById(db, modelId);
    const kind = file as ModelFileKind;
    const key = kind === 'viewer.glb' ? model?.viewer_key : kind === 'thumbnail.png' ? model?.thumbnail_key : model?.blob_key;
    if (!model || !key) throw new NotFound('No such file.');
    const contentType = kind === 'viewer.glb' ? 'model/gltf-binary' : kind === 'thumbnail.png' ? 'image/png' : 'application/octet-stream';
    if (isDirectUploadStore(blobStore)) {
      // Bytes come from the bucket itself; the service's own signed address only decides who may.
      const expiresInSeconds = Math.max(1, Math.min(signer.secondsLeft(expires), PRESIGNED_GET_SECONDS));
      const url = await blobStore.presignGet(key, {
        expiresInSeconds,
        contentType,
        ...(kind === 'source' ? { fileName: model.file_name } : {}),
      });
      return reply.header('cache-control', 'private, no-store').redirect(url, 302);
    }
    let stream;
    try {
      stream = await blobStore.stream(key);
    } catch (error) {
      if (error instanceof BlobNotFoundError) throw new NotFound('No such file.');
      throw error;
    }
    if (kind === 'source') {
      // The original, saved under its own name; never shown inline (it is the user's file, not ours).
      reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(model.file_name)}`);
    } else {
      reply.header('content-type', contentType);
    }
    return reply.header('cache-control', `private, max-age=${Math.min(signer.secondsLeft(expires), 600)}`).send(stream);
  });
}
