import { z } from 'zod';
import { modelSchema } from './models';
import { pageDataSchema } from './paging';

/** The three match kinds; also the path segment `/v2/models/{id}/{kind}-matches` and the app route's `:kind`. */
export const matchKinds = ['part-in-part', 'part-to-part', 'geo-related'] as const;
export type MatchKind = (typeof matchKinds)[number];

export function isMatchKind(value: string): value is MatchKind {
  return (matchKinds as readonly string[]).includes(value);
}

/** Column-major 4x4 that places the query model in the matched model's frame (api-contract.md, Matches). */
export const transformSchema = z.array(z.number()).length(16);

export const similarityMatchSchema = z.object({
  matchedModel: modelSchema,
  matchPercentage: z.number().min(0).max(100),
  transform: transformSchema.optional(),
});
export type SimilarityMatch = z.infer<typeof similarityMatchSchema>;

export const containmentMatchSchema = z.object({
  matchedModel: modelSchema,
  /** Share of the query model's surface found in the matched model. */
  forwardMatchPercentage: z.number().min(0).max(100),
  /** Share of the matched model's surface found in the query model. */
  reverseMatchPercentage: z.number().min(0).max(100),
  transform: transformSchema.optional(),
});
export type ContainmentMatch = z.infer<typeof containmentMatchSchema>;

export type Match = SimilarityMatch | ContainmentMatch;

export const similarityMatchesResponseSchema = z.object({
  matches: z.array(similarityMatchSchema),
  pageData: pageDataSchema,
  matchCount: z.number().int().nonnegative(),
});
export const containmentMatchesResponseSchema = z.object({
  matches: z.array(containmentMatchSchema),
  pageData: pageDataSchema,
  matchCount: z.number().int().nonnegative(),
});
export type SimilarityMatchesResponse = z.infer<typeof similarityMatchesResponseSchema>;
export type ContainmentMatchesResponse = z.infer<typeof containmentMatchesResponseSchema>;

export function matchesResponseSchemaFor(kind: MatchKind) {
  return kind === 'part-in-part' ? containmentMatchesResponseSchema : similarityMatchesResponseSchema;
}

/** The score a threshold applies to: part-in-part uses the larger of its two (api-contract.md, Matches). */
export function headlineScore(match: Match): number {
  return 'matchPercentage' in match ? match.matchPercentage : Math.max(match.forwardMatchPercentage, match.reverseMatchPercentage);
}

export const matchQuerySchema = z.object({
  threshold: z.coerce.number().min(0).max(100).default(0),
});

/** Fields a match list may be ordered by, beyond the model list's own (api-contract.md, Pagination). */
export const matchOrderFields = ['name', 'createdAt', 'state', 'matchPercentage', 'forwardMatchPercentage', 'reverseMatchPercentage'] as const;

/**
 * `GET /v2/folders/{id}/duplicates?threshold=` (this product's addition, documented in the README):
 * the folder's finished models grouped into clusters whose members are linked by part-to-part scores at or
 * above the threshold (default 98). Clusters of one are left out; biggest clusters first.
 */
export const duplicateClusterSchema = z.object({
  models: z.array(modelSchema).min(2),
  /** Scored pairs inside the cluster that pass the threshold (model ids as in `models`). */
  links: z.array(z.object({ a: z.string(), b: z.string(), matchPercentage: z.number() })),
});
export const folderDuplicatesResponseSchema = z.object({
  clusters: z.array(duplicateClusterSchema),
  /** Finished models of the folder that were compared. */
  modelCount: z.number().int().nonnegative(),
  threshold: z.number(),
});
export type DuplicateCluster = z.infer<typeof duplicateClusterSchema>;
export type FolderDuplicatesResponse = z.infer<typeof folderDuplicatesResponseSchema>;
