import { z } from 'zod';
import { pageDataSchema } from './paging';
import { modelSchema } from './models';

export const metadataKeySchema = z.object({ id: z.number().int(), name: z.string() });
export type MetadataKey = z.infer<typeof metadataKeySchema>;
export const metadataKeyListResponseSchema = z.object({ metadataKeys: z.array(metadataKeySchema), pageData: pageDataSchema });
export const metadataKeyResponseSchema = z.object({ metadataKey: metadataKeySchema });
/** `name`, or the published API's `metadataKeyName`; one of them is required. */
export const createMetadataKeyRequestSchema = z
  .object({ name: z.string().trim().min(1).max(100).optional(), metadataKeyName: z.string().trim().min(1).max(100).optional() })
  .transform((body, ctx) => {
    const name = body.name ?? body.metadataKeyName;
    if (name === undefined) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'give the key a name (name or metadataKeyName)' });
      return z.NEVER;
    }
    return { name };
  });
export const setMetadataValueRequestSchema = z.object({ value: z.string().max(1000) });

/**
 * `GET /v2/metadata-keys/{id}/proposals` (this service's addition): a value of the class key
 * proposed for every model of the scope that has none, from the nearest models that have one
 * (part-to-part descriptor, 5 neighbours), with a confidence 0–100.
 */
export const classProposalQuerySchema = z.object({
  value: z.string().max(1000).optional().describe('Only proposals of this value'),
  minConfidence: z.coerce.number().min(0).max(100).default(0),
});

export const classProposalSchema = z.object({
  model: modelSchema,
  value: z.string(),
  confidence: z.number().min(0).max(100),
  /** The examples that voted, nearest first. */
  neighbours: z.array(z.object({ modelId: z.string(), name: z.string(), value: z.string(), matchPercentage: z.number() })),
});
export type ClassProposal = z.infer<typeof classProposalSchema>;

export const classProposalsResponseSchema = z.object({
  metadataKey: metadataKeySchema,
  /** Models of the tenant with a value for the key: the examples. */
  labelled: z.number().int().nonnegative(),
  /** Models of the scope without one, that could be compared (finished). */
  unlabelled: z.number().int().nonnegative(),
  /** How many proposals of each value pass minConfidence (for a filter), most first. */
  values: z.array(z.object({ value: z.string(), count: z.number().int().nonnegative() })),
  proposals: z.array(classProposalSchema),
  pageData: pageDataSchema,
});
export type ClassProposalsResponse = z.infer<typeof classProposalsResponseSchema>;

/** `POST /v2/metadata-keys/{id}/proposals/accept`: values set as metadata, as proposed or corrected (up to 500). */
export const acceptProposalsRequestSchema = z.object({
  items: z
    .array(z.object({ modelId: z.string(), value: z.string().trim().min(1).max(1000) }))
    .min(1)
    .max(500),
});
export type AcceptProposalsRequest = z.infer<typeof acceptProposalsRequestSchema>;
export const acceptProposalsResponseSchema = z.object({ accepted: z.number().int().nonnegative() });
