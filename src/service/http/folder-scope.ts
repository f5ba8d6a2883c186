import type { Kysely } from 'kysely';
import { z } from 'zod';
import { NotFound } from './errors';
import { listParam } from './list-param';
import { existingFolderIds, subtreeIds } from '../store/folders';
import type { Database } from '../store/schema';

/** `folderIds` as the published API sends it (repeated, or comma-joined), and whether subfolders count. */
export const scopeQuery = z.object({
  folderIds: listParam.transform((parts, ctx) => {
    if (parts === undefined) return undefined;
    const ids = parts.map(Number);
    if (ids.some((n) => !Number.isSafeInteger(n) || n <= 0 || n > 2_147_483_647)) {
      ctx.addIssue({ code: 'custom', message: 'folder ids are positive whole numbers' });
      return z.NEVER;
    }
    return [...new Set(ids)];
  }),
  includeSubfolders: z.enum(['true', 'false'], { message: 'must be true or false' }).optional().describe('Default true'),
});

/**
 * The folders a report covers: `folderIds` with their subfolders (unless
 * `includeSubfolders=false`), or every folder of the tenant (null) when none are named. A folder
 * that is not the tenant's is as unknown as a made-up id.
 */
export async function folderScope(
  db: Kysely<Database>,
  tenantId: number,
  { folderIds, includeSubfolders }: z.output<typeof scopeQuery>,
): Promise<number[] | null> {
  if (!folderIds?.length) return null;
  const roots = await existingFolderIds(db, tenantId, folderIds);
  const missing = folderIds.filter((id) => !roots.includes(id));
  if (missing.length) throw new NotFound(`No folder ${missing.join(', ')}.`);
  return includeSubfolders === 'false' ? roots : subtreeIds(db, tenantId, roots);
}
