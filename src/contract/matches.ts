import { z } from 'zod';
import { modelSchema } from './models';
import { pageDataSchema } from './paging';
import { defaultThresholds } from './score-scale';

/** The three match kinds; also the path segment `/v2/models/{id}/{kind}-matches` and the app route's `:kind`. */
/** In this order on every page: the same part first, then assemblies, then look-alikes. */
export const matchKinds = ['part-to-part', 'part-in-part', 'geo-related'] as const;
export type MatchKind = (typeof matchKinds)[number];

export function isMatchKind(value: string): value is MatchKind {
  return (matchKinds as readonly string[]).includes(value);
}

/** Column-major 4x4 that places the query model in the matched model's frame (the published API's matches). */
export const transformSchema = z.array(z.number()).length(16);

/**
 * Part-to-part relations that are not "the same part" (README, How geometric search works): the
 * matched model is the query's mirror image, or a copy of it scaled by `scale` (matched size ÷
 * query size), each by the duplicate rule's tolerances. Such matches score below 98.
 */
export const matchRelations = ['mirrored', 'scaled'] as const;
export type MatchRelation = (typeof matchRelations)[number];

export const similarityMatchSchema = z.object({
  matchedModel: modelSchema,
  matchPercentage: z.number().min(0).max(100),
  transform: transformSchema.optional(),
  relation: z.enum(matchRelations).optional(),
  scale: z.number().positive().optional(),
});
export type SimilarityMatch = z.infer<typeof similarityMatchSchema>;

export const containmentMatchSchema = z.object({
  matchedModel: modelSchema,
  /**
   * The published API's facet counts, with triangles as facets: the query's and the matched
   * model's triangles, and the query's triangles found in the matched model (forward share).
   */
  commonFacetCount: z.number().int().nonnegative().optional(),
  modelFacetCount: z.number().int().nonnegative().optional(),
  matchedModelFacetCount: z.number().int().nonnegative().optional(),
  /** Share of the query model's surface found in the matched model. */
  forwardMatchPercentage: z.number().min(0).max(100),
  /** Share of the matched model's surface found in the query model. */
  reverseMatchPercentage: z.number().min(0).max(100),
  /**
   * This service's addition: times the contained model (the side found at the higher share) occurs
   * in the other — from an assembly's tree where it places the part, else from its identical bodies.
   */
  copies: z.number().int().positive().optional(),
  transform: transformSchema.optional(),
});
export type ContainmentMatch = z.infer<typeof containmentMatchSchema>;

export type Match = SimilarityMatch | ContainmentMatch;

/**
 * The values the matches take (published API `filterData`): both its older shape (`folders`,
 * `properties`, what the published match operations declare) and its newer one (`MatchFilterData`,
 * image matches): a deployment may send either, so only `folders` is common to both. Optional as a
 * whole: other deployments may omit it.
 */
export const matchFilterDataSchema = z.object({
  folders: z.array(z.object({ id: z.number(), name: z.string() })),
  properties: z.array(z.object({ id: z.number(), name: z.string(), values: z.array(z.string()) })).optional(),
  metadata: z.array(z.object({ metadataKeyId: z.number(), name: z.string(), values: z.array(z.string()) })).optional(),
  createdAt: z.array(z.string()).optional(),
  isAssembly: z.array(z.boolean()).optional(),
  fileType: z.array(z.string()).optional(),
  units: z.array(z.string()).optional(),
  collections: z.object({ names: z.array(z.string()), tags: z.array(z.string()), metadata: z.array(z.unknown()) }).optional(),
});
export type MatchFilterData = z.infer<typeof matchFilterDataSchema>;

export const similarityMatchesResponseSchema = z.object({
  matches: z.array(similarityMatchSchema),
  pageData: pageDataSchema,
  matchCount: z.number().int().nonnegative(),
  filterData: matchFilterDataSchema.optional(),
});
export const containmentMatchesResponseSchema = z.object({
  matches: z.array(containmentMatchSchema),
  pageData: pageDataSchema,
  matchCount: z.number().int().nonnegative(),
  filterData: matchFilterDataSchema.optional(),
});
export type SimilarityMatchesResponse = z.infer<typeof similarityMatchesResponseSchema>;
export type ContainmentMatchesResponse = z.infer<typeof containmentMatchesResponseSchema>;

export function matchesResponseSchemaFor(kind: MatchKind) {
  return kind === 'part-in-part' ? containmentMatchesResponseSchema : similarityMatchesResponseSchema;
}

/** The threshold a list opens at (score-scale.ts: the start of "Same family"). */
export const defaultMatchThreshold = defaultThresholds.matches;

/** The score a threshold applies to: part-in-part uses the larger of its two (the published API's matches). */
export function headlineScore(match: Match): number {
  return 'matchPercentage' in match ? match.matchPercentage : Math.max(match.forwardMatchPercentage, match.reverseMatchPercentage);
}

/**
 * Part-in-part has two lists (this service's addition): `contains`, the models this one is found
 * in (its assemblies: forwardMatchPercentage at the threshold), and `contained`, the models found
 * in this one (its parts: reverseMatchPercentage). Without it the threshold applies to the larger.
 */
export const containmentDirections = ['contains', 'contained'] as const;
export type ContainmentDirection = (typeof containmentDirections)[number];

export const matchQuerySchema = z.object({
  threshold: z.coerce.number().min(0).max(100).default(0),
  direction: z.enum(containmentDirections).optional(),
});

/** Fields a match list may be ordered by, beyond the model list's own (the published API's ordering). */
export const matchOrderFields = [
  'name',
  'createdAt',
  'state',
  'matchPercentage',
  'forwardMatchPercentage',
  'reverseMatchPercentage',
] as const;

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
/**
 * A mirror image or a scaled copy among the compared models (whatever the threshold), listed
 * beside the clusters and never in one: `a` is `b`'s mirror image, or `b` is `a` scaled by `scale`.
 */
export const relationLinkSchema = z.object({
  a: z.string(),
  b: z.string(),
  matchPercentage: z.number(),
  relation: z.enum(['mirrored', 'scaled']),
  scale: z.number().optional(),
});
export type RelationLink = z.infer<typeof relationLinkSchema>;

export const folderDuplicatesResponseSchema = z.object({
  clusters: z.array(duplicateClusterSchema),
  /** Mirror images and scaled copies (this service; optional for other deployments). */
  relations: z.array(relationLinkSchema).optional(),
  /** The models named in `relations`. */
  relatedModels: z.array(modelSchema).optional(),
  /** Finished models of the folder that were compared. */
  modelCount: z.number().int().nonnegative(),
  threshold: z.number(),
});
export type DuplicateCluster = z.infer<typeof duplicateClusterSchema>;

/**
 * `GET /v2/models/grouped-match-report?threshold=&folderIds=` (published API): groups of models
 * linked by part-to-part scores at the threshold. This service adds every member (`models`), the
 * links and the number of models compared; a deployment that sends only the published fields
 * gives `modelIds` and up to a few `exampleModels`.
 */
export const groupedMatchReportSchema = z.object({
  groups: z.array(
    z.object({
      modelIds: z.array(z.string()),
      exampleModels: z.array(modelSchema),
      models: z.array(modelSchema).optional(),
      links: duplicateClusterSchema.shape.links.optional(),
    }),
  ),
  modelCount: z.number().int().nonnegative().optional(),
  threshold: z.number().optional(),
  relations: folderDuplicatesResponseSchema.shape.relations,
  relatedModels: folderDuplicatesResponseSchema.shape.relatedModels,
});
export type GroupedMatchReport = z.infer<typeof groupedMatchReportSchema>;

/** The report as the duplicates page shows it: clusters of models with their links. */
export function clustersFromReport(report: GroupedMatchReport, threshold: number): FolderDuplicatesResponse {
  const clusters = report.groups
    .map((g) => ({ models: g.models ?? g.exampleModels, links: g.links ?? [] }))
    .filter((c) => c.models.length > 1);
  return {
    clusters,
    modelCount: report.modelCount ?? report.groups.reduce((n, g) => n + g.modelIds.length, 0),
    threshold: report.threshold ?? threshold,
    ...(report.relations ? { relations: report.relations, relatedModels: report.relatedModels ?? [] } : {}),
  };
}
export type FolderDuplicatesResponse = z.infer<typeof folderDuplicatesResponseSchema>;

/**
 * `GET /v2/models/added-duplicates` (this service's addition): of the models asked about, those
 * the library already held a duplicate of when they were added — a model created before them that
 * scores "Same part" (≥ 98, the duplicate rule; never a mirror image or a scaled copy). The upload
 * page warns with it; a script asks it about the models it has just created.
 */
export const addedDuplicatesResponseSchema = z.object({
  results: z.array(
    z.object({
      model: modelSchema,
      /** The models it duplicates, the one the library held first at the top. */
      duplicates: z.array(z.object({ matchedModel: modelSchema, matchPercentage: z.number().min(0).max(100) })),
    }),
  ),
  /** Models asked about that were compared (finished). */
  checked: z.number().int().nonnegative(),
  /** Models asked about still processing: ask again once they settle. */
  pending: z.number().int().nonnegative(),
  pageData: pageDataSchema,
});
export type AddedDuplicatesResponse = z.infer<typeof addedDuplicatesResponseSchema>;
