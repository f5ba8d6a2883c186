import { z } from 'zod';
import { pageDataSchema } from './paging';

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
