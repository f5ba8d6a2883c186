import { z } from 'zod';
import { modelSchema, uploadInfoSchema } from './models';
import { pageDataSchema } from './paging';
import { matchFilterDataSchema } from './matches';

/** Image types the service takes, and the cap (image search). */
export const imageTypes = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
export const IMAGES_PER_SEARCH = 10;

export const createImageRequestSchema = z.object({ filename: z.string().min(1).max(255) });
export type CreateImageRequest = z.infer<typeof createImageRequestSchema>;

export const createImageResponseSchema = z.object({
  image: uploadInfoSchema.extend({ id: z.string() }),
});
export type CreateImageResponse = z.infer<typeof createImageResponseSchema>;

export const imageMatchSchema = z.object({
  matchedModel: modelSchema,
  /** Ours; the published API ranks image matches without a score. */
  matchPercentage: z.number().min(0).max(100).optional(),
});
export type ImageMatch = z.infer<typeof imageMatchSchema>;

/** A query image as a search answer echoes it (published API); `url` is a small preview. */
export const signedImageSchema = z.object({ filename: z.string(), url: z.string() });

export const imageMatchesResponseSchema = z.object({
  matches: z.array(imageMatchSchema),
  pageData: pageDataSchema,
  matchCount: z.number().int().nonnegative(),
  filterData: matchFilterDataSchema.optional(),
  images: z.array(signedImageSchema).optional(),
  image: signedImageSchema.optional(),
});
export type ImageMatchesResponse = z.infer<typeof imageMatchesResponseSchema>;

/**
 * Sketch search (this service's addition; the published image search is unchanged): the drawing
 * travels in the request, base64 — a sketch is searched once, not uploaded for later.
 */
export const sketchSearchRequestSchema = z.object({
  image: z
    .string()
    .min(1)
    .max(Math.ceil((IMAGE_MAX_BYTES * 4) / 3) + 64)
    .describe('The drawing as PNG, JPEG or WebP bytes in base64 (a `data:` address is taken too): dark lines on a light ground.'),
  filename: z.string().min(1).max(255).optional().describe('Shown back in the answer; “sketch.png” when left out.'),
});
export type SketchSearchRequest = z.infer<typeof sketchSearchRequestSchema>;
