import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import { IMAGE_MAX_BYTES, imageMatchesResponseSchema, sketchSearchRequestSchema } from '../../../contract/images';
import { matchQuerySchema } from '../../../contract/matches';
import { requireRole } from '../../http/auth';
import { InvalidInput, TooLarge } from '../../http/errors';
import { listQuerySchema } from '../../http/list-query';
import { decodeAndDescribe } from '../../images/decode-image';
import { matchListQuery, rankedPage, type ImageRouteOptions } from './images';

/** The base64 of the largest image taken, and room for a `data:` prefix and the JSON around it. */
const BODY_LIMIT = Math.ceil((IMAGE_MAX_BYTES * 4) / 3) + 4096;

/**
 * `/v2/sketches`: search by a drawing of the part (this service's addition). The drawing is
 * described at once — its outline filled, the lines inside it taken as the part's edges
 * (geometry/search/views/describe-sketch.ts) — and compared with every model's views as a photo
 * is; nothing is stored.
 */
export async function sketchRoutes(parent: FastifyInstance, options: Pick<ImageRouteOptions, 'db' | 'files' | 'cache'>) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/model-matches',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        tags: ['Images'],
        summary: 'Models that look like a drawing of the part',
        description:
          'A sketch, drawing or scan — dark lines on a light ground — sent in the request as base64. The outline is taken as the part’s silhouette (gaps up to 3 % of the drawing’s size are closed) and lines inside it as its edges. Answers like GET /v2/images/model-matches.',
        querystring: listQuerySchema.extend(matchQuerySchema.shape),
        body: sketchSearchRequestSchema,
        response: { 200: imageMatchesResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const query = matchListQuery(request.query);
      const base64 = request.body.image.replace(/^data:[^,]*,/, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64))
        throw new InvalidInput('image: not base64 (send the file’s bytes in base64, or a data: address).', { parameter: 'image' });
      const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
      if (bytes.length > IMAGE_MAX_BYTES) throw new TooLarge(`The drawing is larger than the ${IMAGE_MAX_BYTES}-byte (10 MiB) limit.`);
      const decoded = await decodeAndDescribe(bytes, 'sketch');
      if (!decoded.ok) throw new InvalidInput(decoded.reason, { parameter: 'image' });
      if (!decoded.description.ok) throw new InvalidInput(decoded.description.reason, { parameter: 'image' });
      const { descriptor, signature } = decoded.description;
      const filename = request.body.filename ?? 'sketch.png';
      const images = [{ filename, url: `data:image/jpeg;base64,${Buffer.from(decoded.preview).toString('base64')}` }];
      return rankedPage(options, auth.tenantId, query, request.query.threshold, [{ descriptor, signature }], images);
    },
  );
}
