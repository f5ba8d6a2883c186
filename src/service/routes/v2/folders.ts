import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { FolderListResponse } from '../../../contract/folders';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import { requireRole } from '../../http/auth';
import { parseInput } from '../../http/validation';
import { folderPaths, listFolders } from '../../store/folders';
import type { Database } from '../../store/schema';

/** `/v2/folders` (api-contract.md, Folders). Listing only for now; creation and filters come next. */
export async function folderRoutes(app: FastifyInstance, { db }: { db: Kysely<Database> }) {
  app.get('/', async (request) => {
    const auth = requireRole(request, 'viewer');
    const page = parseInput(pageQuerySchema, request.query, 'query');
    const [{ rows, total }, paths] = await Promise.all([listFolders(db, auth.tenantId, page), folderPaths(db, auth.tenantId)]);
    const body: FolderListResponse = {
      folders: rows.map((f) => ({
        id: f.id,
        name: f.name,
        parentFolderId: f.parent_folder_id,
        path: paths.get(f.id) ?? f.name,
        createdAt: f.created_at.toISOString(),
        modelCount: 0, // models arrive with the next issue
      })),
      pageData: pageDataFor(total, page),
    };
    return body;
  });
}
