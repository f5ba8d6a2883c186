import { PassThrough, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { parse as parseRange } from 'content-range';
import { errorCodes } from '../../contract/errors';
import { Conflict, Forbidden, HttpError, InvalidInput, NotFound, TooLarge } from '../http/errors';
import { drainRest, header, refuseEarly, signedPutGuard } from '../http/signed-put';
import { findModelById } from '../store/models';
import type { Database } from '../store/schema';
import { claimUpload, findUpload, releaseUpload, renewUploadClaim, UPLOAD_CLAIM_LEASE_MS } from '../store/uploads';
import {
  BlobNotFoundError,
  BlobTooLargeError,
  isDirectUploadStore,
  modelBlobKeys,
  ResumeOffsetError,
  type BlobStore,
} from '../files/blob-store';
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

/** A 416 that says where to go on from (`Upload-Offset`). */
function resumeFrom(received: number): HttpError {
  return new HttpError(
    416,
    errorCodes.conflict,
    `${received} bytes of this upload have arrived; send the rest from byte ${received} with Content-Range.`,
    { 'upload-offset': String(received) },
  );
}

/**
 * `Content-Range: bytes <start>-<end>/<total>` of a resumed upload, which must run to the file's
 * end; undefined without one.
 */
function contentRange(request: FastifyRequest, maxBytes: number, tooLarge: string): { start: number; total: number } | undefined {
  const value = header(request, 'content-range');
  if (value === undefined) return undefined;
  const range = parseRange(value);
  if (
    !range ||
    range.unit !== 'bytes' ||
    range.start == null ||
    range.end == null ||
    range.size == null ||
    range.end !== range.size - 1 ||
    range.start > range.end
  ) {
    refuseEarly(request, new InvalidInput('Content-Range must be "bytes <first>-<last>/<total>", running to the last byte of the file.'));
  }
  if (range.size > maxBytes) refuseEarly(request, new TooLarge(tooLarge));
  return { start: range.start, total: range.size };
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
  const uploadAddress = {
    schema: { params: uploadParams, querystring: signedQuerySchema },
    onRequest: signedPutGuard({
      idParam: 'modelId',
      verify: ({ id, ...rest }) => signer.verifyUpload({ modelId: id, ...rest }),
      maxBytes: uploadMaxBytes,
      expiredMessage: 'The upload address has expired; delete the model and create it again for a new address.',
      tooLargeMessage: tooLarge,
    }),
  };
  /** The model an upload address names and its source's key, the upload token checked. */
  async function addressed(request: FastifyRequest, modelId: string) {
    const [model, upload] = await Promise.all([findModelById(db, modelId), findUpload(db, modelId)]);
    if (!model || !upload) refuseEarly(request, new NotFound('The model of this upload address no longer exists.'));
    if (upload.nonce !== header(request, UPLOAD_TOKEN_HEADER)?.trim())
      refuseEarly(request, new Forbidden('The upload token does not belong to this address.'));
    return { model, key: modelBlobKeys(model.tenant_id, model.id).source };
  }

  app.put('/uploads/models/:modelId', uploadAddress, async (request, reply) => {
    const { modelId } = request.params;
    const range = contentRange(request, uploadMaxBytes, tooLarge);
    if (range && range.start > 0 && !blobStore.putResumable)
      refuseEarly(request, new InvalidInput('This storage does not resume uploads; send the whole file without Content-Range.'));
    const { model, key } = await addressed(request, modelId);
    if (!(await claimUpload(db, modelId, new Date()))) refuseEarly(request, new Conflict('This upload address has been used already.'));

    let bytes: number;
    const lease = setInterval(() => void renewUploadClaim(db, modelId).catch(() => {}), UPLOAD_CLAIM_LEASE_MS / 4);
    try {
      // Kept as it arrives where the store can, so that a dropped upload goes on from where it
      // broke off (HEAD says how far; the rest comes with Content-Range).
      ({ bytes } = blobStore.putResumable
        ? await blobStore.putResumable(key, requestBody(request), {
            offset: range?.start ?? 0,
            ...(range ? { total: range.total } : {}),
            maxBytes: uploadMaxBytes,
          })
        : await blobStore.put(key, requestBody(request), { maxBytes: uploadMaxBytes, contentType: 'application/octet-stream' }));
    } catch (error) {
      clearInterval(lease);
      await releaseUpload(db, modelId);
      drainRest(request);
      if (error instanceof BlobTooLargeError) throw new TooLarge(tooLarge);
      if (error instanceof ResumeOffsetError) throw resumeFrom(error.received);
      throw error;
    }
    clearInterval(lease);
    const row = await files.uploaded(model.id, {
      blobKey: key,
      sizeBytes: bytes,
    });
    return reply.status(200).send({ modelId: row.id, bytes, state: row.state });
  });

  // How much of an interrupted upload arrived: `Upload-Offset`, the byte to send the rest from.
  app.head('/uploads/models/:modelId', uploadAddress, async (request, reply) => {
    const { modelId } = request.params;
    const [model, upload] = await Promise.all([findModelById(db, modelId), findUpload(db, modelId)]);
    if (!model || !upload) throw new NotFound('The model of this upload address no longer exists.');
    if (upload.nonce !== header(request, UPLOAD_TOKEN_HEADER)?.trim())
      throw new Forbidden('The upload token does not belong to this address.');
    const key = modelBlobKeys(model.tenant_id, model.id).source;
    const received = blobStore.partialBytes ? await blobStore.partialBytes(key) : 0;
    return reply.status(200).header('upload-offset', String(received)).header('cache-control', 'no-store').send();
  });

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
