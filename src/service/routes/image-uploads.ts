import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { IMAGE_MAX_BYTES } from '../../contract/images';
import { VIEW_METHOD } from '../../geometry/views/shape-features';
import { UPLOAD_TOKEN_HEADER } from '../files/signed-urls';
import { Conflict, Forbidden, InvalidInput, NotFound, TooLarge, UnsupportedMediaType } from '../http/errors';
import { parseInput } from '../http/validation';
import type { Database } from '../store/schema';
import { decodeAndDescribe } from '../images/decode-image';
import { claimImageUpload, findImageById, imageDb, releaseImageUpload, storeImageDescriptor } from '../images/image-store';
import type { ImageUrlSigner } from '../images/image-urls';

const params = z.object({ imageId: z.string() });
const signedQuery = z.object({ expires: z.string().optional(), sig: z.string().optional() });

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
}

/** An answer before the body was read: drop the rest of a small body, close on a big one. */
function finishEarly(request: FastifyRequest, reply: FastifyReply) {
  const declared = Number(header(request, 'content-length') ?? NaN);
  if (!Number.isFinite(declared) || declared > IMAGE_MAX_BYTES) reply.header('connection', 'close');
  request.raw.resume();
}

class BodyTooLarge extends Error {}

/** Reads the request body into memory, giving up past `limit` bytes (images are small). */
async function readBody(request: FastifyRequest, limit: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * The signed PUT of a query image (image-urls.ts), outside /v2: the signature authorises. The
 * file is decoded and described at once; only the descriptor is kept, never the image. A file
 * that is not a decodable PNG, JPEG or WebP, or shows no object, is refused and the address stays
 * usable for another file until it expires.
 */
export async function imageUploadRoutes(app: FastifyInstance, { db, signer }: { db: Kysely<Database>; signer: ImageUrlSigner }) {
  const idb = imageDb(db);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put('/uploads/images/:imageId', async (request, reply) => {
    const { imageId } = parseInput(params, request.params, 'params');
    const { expires, sig } = parseInput(signedQuery, request.query, 'query');
    const verdict = signer.verifyUpload({ imageId, expires, sig, contentType: header(request, 'content-type'), uploadToken: header(request, UPLOAD_TOKEN_HEADER) });
    if (!verdict.ok) {
      finishEarly(request, reply);
      throw new Forbidden(
        verdict.reason === 'expired'
          ? 'The upload address has expired; create the image again (POST /v2/images) for a new address.'
          : 'The upload address or its headers are not as signed; send every header from the creation response unchanged.',
      );
    }
    const image = await findImageById(idb, imageId);
    if (!image) {
      finishEarly(request, reply);
      throw new NotFound('The image of this upload address no longer exists.');
    }
    if (image.nonce !== header(request, UPLOAD_TOKEN_HEADER)?.trim()) {
      finishEarly(request, reply);
      throw new Forbidden('The upload token does not belong to this address.');
    }
    const declared = Number(header(request, 'content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > IMAGE_MAX_BYTES) {
      finishEarly(request, reply);
      throw new TooLarge(`The image is larger than the ${IMAGE_MAX_BYTES}-byte (10 MiB) limit.`);
    }
    if (!(await claimImageUpload(idb, imageId))) {
      finishEarly(request, reply);
      throw new Conflict('This upload address has been used already.');
    }
    let stored = false;
    try {
      let bytes: Uint8Array;
      try {
        bytes = await readBody(request, IMAGE_MAX_BYTES);
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          finishEarly(request, reply);
          throw new TooLarge(`The image is larger than the ${IMAGE_MAX_BYTES}-byte (10 MiB) limit.`);
        }
        throw error;
      }
      const decoded = await decodeAndDescribe(bytes);
      if (!decoded.ok) throw new UnsupportedMediaType(decoded.reason);
      if (!decoded.description.ok) throw new InvalidInput(decoded.description.reason);
      await storeImageDescriptor(idb, imageId, {
        format: decoded.format,
        width: decoded.width,
        height: decoded.height,
        sizeBytes: bytes.byteLength,
        descriptor: decoded.description.descriptor,
        signature: decoded.description.signature,
        method: VIEW_METHOD,
        preview: decoded.preview,
      });
      stored = true;
      return reply.status(200).send({ imageId, bytes: bytes.byteLength, width: decoded.width, height: decoded.height });
    } finally {
      if (!stored) await releaseImageUpload(idb, imageId);
    }
  });
}
