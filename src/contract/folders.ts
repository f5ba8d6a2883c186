import { z } from 'zod';
import { filterBuilder, filterLimits, formatFilter, type FilterClause, type ModelFilterField } from './filter';
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
/** The same fields as query parameters, as the published API sends them (`POST /v2/folders?name=…`). */
export const createFolderQuerySchema = z.object({
  name: z.string().optional(),
  parentFolderId: z
    .string()
    .regex(/^\d{1,10}$/, 'must be a folder id')
    .transform(Number)
    .optional(),
});
export const renameFolderRequestSchema = z.object({ name: z.string() });

/** The folder and every folder below it (by path), so "in this folder" includes its subfolders. */
export function folderAndBelow(folders: readonly Folder[], folderId: number): number[] {
  const root = folders.find((folder) => folder.id === folderId);
  if (!root) return [folderId];
  const prefix = `${root.path}/`;
  return folders.filter((folder) => folder.id === folderId || folder.path.startsWith(prefix)).map((folder) => folder.id);
}

/** The filter clause "in this folder or below it" (the folder alone while `folders` lacks it). */
export function folderAndBelowClause(folders: readonly Folder[], folderId: number): FilterClause<ModelFilterField> {
  const ids = folderAndBelow(folders, folderId).slice(0, filterLimits.maxInValues);
  return ids.length === 1 ? filterBuilder.eq('folderId', folderId) : filterBuilder.in('folderId', ids);
}

/** The matches' `filter` for a folder choice; undefined for all folders. */
export function folderFilter(folders: readonly Folder[], folderId: number | null): string | undefined {
  return folderId === null ? undefined : formatFilter([folderAndBelowClause(folders, folderId)]);
}

/** Each folder's models with those of all its subfolders (folders whose count is not known add 0). */
export function modelCountsWithSubfolders(folders: readonly Folder[]): Map<number, number> {
  const totals = new Map<number, number>();
  // Deepest first: a folder's total is complete before its parent adds it.
  const depth = (f: Folder) => f.path.split('/').length;
  const byId = new Map(folders.map((f) => [f.id, f]));
  for (const f of [...folders].sort((a, b) => depth(b) - depth(a))) {
    const total = (totals.get(f.id) ?? 0) + (f.modelCount ?? 0);
    totals.set(f.id, total);
    if (f.parentFolderId != null && byId.has(f.parentFolderId)) totals.set(f.parentFolderId, (totals.get(f.parentFolderId) ?? 0) + total);
  }
  return totals;
}

/** A folder id written in a URL (`:folderId`, `?into=`), or null when it is not one. */
export function parseFolderId(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : null;
}
