import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { IMAGE_MAX_BYTES } from '../../contract/images';
import { VIEW_METHOD } from '../../geometry/search/views/shape-features';
import { signedQuerySchema, UPLOAD_TOKEN_HEADER } from '../files/signed-urls';
import { Conflict, Forbidden, InvalidInput, NotFound, TooLarge, UnsupportedMediaType } from '../http/errors';
import { header, refuseEarly, signedPutGuard } from '../http/signed-put';
import type { Database } from '../store/schema';
import { decodeAndDescribe } from '../images/decode-image';
import { claimImageUpload, findImageById, imageDb, releaseImageUpload, storeImageDescriptor } from '../images/image-store';
import type { ImageUrlSigner } from '../images/image-urls';

const params = z.object({ imageId: z.string() });

class BodyTooLarge extends Error {}

/**
 * Reads the request body into memory, giving up past `limit` bytes (images are small). Giving up
 * stops listening without destroying the request, so the rest can be drained (signed-put.ts).
 */
function readBody(request: FastifyRequest, limit: number): Promise<Uint8Array> {
  const raw = request.raw;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      raw.off('data', onData).off('end', onEnd).off('error', reject);
      reject(new BodyTooLarge());
    };
    const onEnd = () => resolve(new Uint8Array(Buffer.concat(chunks)));
    raw.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/**
 * The signed PUT of a query image (image-urls.ts), outside /v2: the signature authorises. The
 * file is decoded and described at once; only the descriptor is kept, never the image. A file
 * that is not a decodable PNG, JPEG or WebP, or shows no object, is refused and the address stays
 * usable for another file until it expires.
 */
export async function imageUploadRoutes(parent: FastifyInstance, { db, signer }: { db: Kysely<Database>; signer: ImageUrlSigner }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const idb = imageDb(db);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const tooLarge = `The image is larger than the ${IMAGE_MAX_BYTES}-byte (10 MiB) limit.`;
  app.put(
    '/uploads/images/:imageId',
    {
      schema: { params, querystring: signedQuerySchema },
      onRequest: signedPutGuard({
        idParam: 'imageId',
        verify: ({ id, ...rest }) => signer.verifyUpload({ imageId: id, ...rest }),
        maxBytes: IMAGE_MAX_BYTES,
        expiredMessage: 'The upload address has expired; create the image again (POST /v2/images) for a new address.',
        tooLargeMessage: tooLarge,
      }),
    },
    async (request, reply) => {
      const { imageId } = request.params;
      const image = await findImageById(idb, imageId);
      if (!image) refuseEarly(request, new NotFound('The image of this upload address no longer exists.'));
      if (image.nonce !== header(request, UPLOAD_TOKEN_HEADER)?.trim())
        refuseEarly(request, new Forbidden('The upload token does not belong to this address.'));
      if (!(await claimImageUpload(idb, imageId))) refuseEarly(request, new Conflict('This upload address has been used already.'));
      let stored = false;
      try {
        let bytes: Uint8Array;
        try {
          bytes = await readBody(request, IMAGE_MAX_BYTES);
        } catch (error) {
          if (error instanceof BodyTooLarge) refuseEarly(request, new TooLarge(tooLarge));
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
    },
  );
}
