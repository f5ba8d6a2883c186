import { z } from 'zod';
import { modelSchema } from './models';
import { pageDataSchema } from './paging';

export const folderSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** Absent (or null, from older deployments) for a folder at the top level. */
  parentFolderId: z.number().int().nullish(),
  path: z.string(),
  createdAt: z.string(),
  /** How many models the folder holds itself; not sent by deployments of the published API. */
  modelCount: z.number().int().nonnegative().optional(),
});
export type Folder = z.infer<typeof folderSchema>;

export const folderListResponseSchema = z.object({
  folders: z.array(folderSchema),
  pageData: pageDataSchema,
});
export type FolderListResponse = z.infer<typeof folderListResponseSchema>;

export const folderResponseSchema = z.object({ folder: folderSchema });
/** `GET /v2/folders/{id}/contents` (published): subfolders, then the folder's models, one page. */
export const folderContentsResponseSchema = z.object({
  data: z.array(z.union([folderSchema.extend({ type: z.literal('folder') }), modelSchema.extend({ type: z.literal('model') })])),
  page: z.number().int(),
  perPage: z.number().int(),
  total: z.number().int().nonnegative(),
  pageData: pageDataSchema.optional(),
});

/** PATCH answers the renamed folder and, as the published API does, how many folders changed. */
export const folderUpdateResponseSchema = z.object({ folder: folderSchema.optional(), affected: z.number().int().optional() });

export const createFolderRequestSchema = z.object({
  name: z.string(),
  parentFolderId: z.number().int().nullish(),
});
export type CreateFolderRequest = z.infer<typeof createFolderRequestSchema>;
export const renameFolderRequestSchema = z.object({ name: z.string() });
