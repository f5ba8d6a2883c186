import { z } from 'zod';
import { pageDataSchema } from './paging';

export const metadataKeySchema = z.object({ id: z.number().int(), name: z.string() });
export type MetadataKey = z.infer<typeof metadataKeySchema>;
export const metadataKeyListResponseSchema = z.object({ metadataKeys: z.array(metadataKeySchema), pageData: pageDataSchema });
export const metadataKeyResponseSchema = z.object({ metadataKey: metadataKeySchema });
export const createMetadataKeyRequestSchema = z.object({ name: z.string().trim().min(1).max(100) });
export const setMetadataValueRequestSchema = z.object({ value: z.string().max(1000) });
