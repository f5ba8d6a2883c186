import { randomUUID } from 'node:crypto';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { extensionOf } from '../../../contract/file-types';
import { modelFilterFields } from '../../../contract/filter';
import { matchQuerySchema } from '../../../contract/matches';
import {
  createImageRequestSchema,
  createImageResponseSchema,
  IMAGE_MAX_BYTES,
  imageMatchesResponseSchema,
  IMAGES_PER_SEARCH,
  imageTypes,
  type CreateImageResponse,
  type ImageMatch,
  type ImageMatchesResponse,
} from '../../../contract/images';
import { pageDataFor } from '../../../contract/paging';
import { VIEW_DESCRIPTOR_LENGTH, VIEW_METHOD } from '../../../geometry/search/views/shape-features';
import { matchPercentage } from '../../../geometry/search/views/view-index';
import type { ModelFiles } from '../../files/model-files';
import { UPLOAD_TTL_SECONDS } from '../../files/signed-urls';
import { requireRole } from '../../http/auth';
import { InvalidInput, NotFound, UnsupportedMediaType } from '../../http/errors';
import { listQuerySchema, parseListQuery } from '../../http/list-query';
import { matchFilterData } from '../../store/match-filter-data';
import { toModels } from '../../store/model-dto';
import { modelFilterSchema, modelsByIds } from '../../store/models';
import type { Database } from '../../store/schema';
import { compileFilter } from '../../store/sql-filter';
import { newUploadNonce } from '../../store/uploads';
import { createImage, decodeViews, deleteExpiredImages, findImages, imageDb } from '../../images/image-store';
import type { ImageUrlSigner } from '../../images/image-urls';
import type { ImageQuery, ModelViewCache } from '../../images/model-view-cache';

export interface ImageRouteOptions {
  db: Kysely<Database>;
  files: ModelFiles;
  signer: ImageUrlSigner;
  cache: ModelViewCache;
}

/**
 * With a threshold, this many best models are scored exactly, so `matchCount` is exact while fewer
 * pass it (a broad threshold over a large tenant counts at least this many).
 */
const THRESHOLD_COUNT_LIMIT = 500;

const idsQuery = z.object({ id: z.union([z.string(), z.array(z.string())]).optional() });

/** The image type by file name, or undefined when it is not one the service takes. */
export function imageTypeOf(fileName: string): string | undefined {
  const ext = extensionOf(fileName);
  return ext && Object.hasOwn(imageTypes, ext) ? imageTypes[ext as keyof typeof imageTypes] : undefined;
}

/** Paging and the model filter of a search by picture (no order: best first). */
export const matchListQuery = (raw: Parameters<typeof parseListQuery>[0]) =>
  parseListQuery(raw, { filterFields: modelFilterFields, allowMetadata: true, orderFields: [] });

/** `/v2/images`: upload addresses for query images, and the search. */
export async function imageRoutes(parent: FastifyInstance, { db, files, signer, cache }: ImageRouteOptions) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const idb = imageDb(db);

  app.post(
    '/',
    {
      schema: {
        tags: ['Images'],
        summary: 'Create a query image and get its upload address',
        body: createImageRequestSchema,
        response: { 201: createImageResponseSchema },
      },
    },
    async (request, reply) => {
      // Uploading a query image is creating content: editor, as the contract's roles say; searching is viewer.
      const auth = requireRole(request, 'editor');
      const { filename } = request.body;
      if (!imageTypeOf(filename))
        throw new UnsupportedMediaType(
          `“${filename.slice(0, 200)}” is not a PNG, JPEG or WebP file name; image search takes those three types.`,
        );
      await deleteExpiredImages(idb);
      const id = randomUUID();
      const nonce = newUploadNonce();
      const expiresAt = new Date(Date.now() + UPLOAD_TTL_SECONDS * 1000);
      await createImage(idb, { id, tenantId: auth.tenantId, userId: auth.userId, fileName: filename, nonce, uploadExpiresAt: expiresAt });
      const { url, headers } = signer.uploadAddress(id, nonce, expiresAt);
      const body: CreateImageResponse = {
        image: { id, uploadUrl: url, headers, fileSizeRequirements: { minSizeInBytes: 1, maxSizeInBytes: IMAGE_MAX_BYTES } },
      };
      return reply.status(201).send(body);
    },
  );

  app.get(
    '/model-matches',
    {
      schema: {
        tags: ['Images'],
        summary: 'Models that look like the uploaded images',
        querystring: listQuerySchema.extend(idsQuery.shape).extend(matchQuerySchema.shape),
        response: { 200: imageMatchesResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const { id } = request.query;
      const { threshold } = request.query;
      const ids = [...new Set(id === undefined ? [] : Array.isArray(id) ? id : [id])];
      if (ids.length === 0)
        throw new InvalidInput('id: give the id of at least one uploaded image (repeat id for several images of one object).', {
          parameter: 'id',
        });
      if (ids.length > IMAGES_PER_SEARCH)
        throw new InvalidInput(`id: at most ${IMAGES_PER_SEARCH} images per search (got ${ids.length}).`, { parameter: 'id' });
      const query = matchListQuery(request.query);

      const rows = await findImages(idb, auth.tenantId, ids);
      const byId = new Map(rows.map((r) => [r.id, r]));
      const queries: ImageQuery[] = [];
      for (const imageId of ids) {
        const row = byId.get(imageId);
        // Another tenant's image is as unknown as a made-up id.
        if (!row) throw new NotFound(`No image ${imageId} (images are kept for a day after they are created).`);
        if (!row.descriptor || !row.uploaded_at)
          throw new InvalidInput(`The image ${imageId} has not been uploaded yet; PUT the file to its upload address first.`, {
            parameter: 'id',
          });
        if (row.method !== VIEW_METHOD)
          throw new InvalidInput(`The image ${imageId} was described by an older method; upload it again.`, { parameter: 'id' });
        const { descriptors, signatures } = decodeViews(row.descriptor, VIEW_DESCRIPTOR_LENGTH);
        queries.push({ descriptor: descriptors, signature: signatures });
      }

      // The images searched with, as the published API echoes them: small previews as data addresses.
      const images = ids.flatMap((imageId) => {
        const row = byId.get(imageId);
        return row
          ? [{ filename: row.file_name, url: row.preview ? `data:image/jpeg;base64,${Buffer.from(row.preview).toString('base64')}` : '' }]
          : [];
      });
      return rankedPage({ db, files, cache }, auth.tenantId, query, threshold, queries, images);
    },
  );
}

/**
 * One page of the models that look like `queries` (photos or sketches of one object): ranked by
 * the view cache, thresholded, with the images echoed as the published answer does.
 */
export async function rankedPage(
  { db, files, cache }: Pick<ImageRouteOptions, 'db' | 'files' | 'cache'>,
  tenantId: number,
  query: ReturnType<typeof matchListQuery>,
  threshold: number,
  queries: ImageQuery[],
  images: NonNullable<ImageMatchesResponse['images']>,
): Promise<ImageMatchesResponse> {
  const start = (query.page - 1) * query.perPage;
  // Only the models up to this page must be ranked exactly (the cache abandons the rest early);
  // with a threshold, enough more to count those that pass it.
  const need = threshold > 0 ? Math.max(start + query.perPage, THRESHOLD_COUNT_LIMIT) : start + query.perPage;
  const search = await cache.search(imageDb(db), tenantId, queries, compileFilter(query.filter, modelFilterSchema), need);
  const scored = threshold > 0 ? search.scored.filter((m) => matchPercentage(m.distance / queries.length) >= threshold) : search.scored;
  const searched = threshold > 0 ? scored.length : search.searched;
  // Best first; equal distances by model id, so pages are stable.
  scored.sort((a, b) => a.distance - b.distance || (a.modelId < b.modelId ? -1 : a.modelId > b.modelId ? 1 : 0));
  const page = scored.slice(start, start + query.perPage);
  const modelRows = await modelsByIds(
    db,
    tenantId,
    page.map((m) => m.modelId),
  );
  const models = new Map((await toModels(db, modelRows, files)).map((m) => [m.id, m]));
  const matches: ImageMatch[] = [];
  for (const m of page) {
    const matchedModel = models.get(m.modelId);
    if (!matchedModel) continue; // deleted between the search and this page
    matches.push({ matchedModel, matchPercentage: matchPercentage(m.distance / queries.length) });
  }
  const filterData = await matchFilterData(
    db,
    tenantId,
    scored.map((m) => m.modelId),
  );
  const body: ImageMatchesResponse = {
    matches,
    pageData: pageDataFor(searched, query),
    matchCount: searched,
    filterData,
    images,
    ...(images[0] ? { image: images[0] } : {}),
  };
  return body;
}
