import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { folderNameProblem } from '../../../contract/file-paths';
import { folderFilterFields } from '../../../contract/filter';
import {
  createFolderQuerySchema,
  createFolderRequestSchema,
  folderContentsResponseSchema,
  folderListResponseSchema,
  folderResponseSchema,
  folderUpdateResponseSchema,
  renameFolderRequestSchema,
  type Folder,
  type FolderListResponse,
} from '../../../contract/folders';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { Conflict, InvalidInput, NotFound } from '../../http/errors';
import { listQuerySchema, parseListQuery } from '../../http/list-query';
import { modelsInFolder } from '../../store/models';
import { toModels } from '../../store/model-dto';
import {
  childFolders,
  deleteFolder,
  findFolder,
  folderOrderFields,
  folderPath,
  folderPaths,
  listFolders,
  modelCounts,
  renameFolder,
  tryCreateFolder,
} from '../../store/folders';
import type { Database, FolderRow } from '../../store/schema';

const idParams = z.object({ id: z.string() });

/** A folder id from the path; anything that is not one is simply not found. */
function folderIdOf({ id }: { id: string }): number {
  const n = /^\d{1,10}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0 || n > 2_147_483_647) throw new NotFound(`No folder ${id}.`);
  return n;
}

function checkName(name: string): void {
  const problem = folderNameProblem(name);
  if (problem) throw new InvalidInput(`name: ${problem}`);
}

function toFolder(row: FolderRow, path: string, modelCount: number): Folder {
  return {
    id: row.id,
    name: row.name,
    // Absent at the top level: the published schema has a number or nothing.
    ...(row.parent_folder_id === null ? {} : { parentFolderId: row.parent_folder_id }),
    path,
    createdAt: row.created_at.toISOString(),
    modelCount,
  };
}

/** `/v2/folders`. modelCount counts the models directly in the folder. */
export async function folderRoutes(parent: FastifyInstance, { db, files }: { db: Kysely<Database>; files: ModelFiles }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  async function present(tenantId: number, row: FolderRow): Promise<Folder> {
    const [path, counts] = await Promise.all([folderPath(db, tenantId, row.id), modelCounts(db, tenantId, [row.id])]);
    return toFolder(row, path ?? row.name, counts.get(row.id) ?? 0);
  }

  app.get(
    '/',
    { schema: { tags: ['Folders'], summary: 'List folders', querystring: listQuerySchema, response: { 200: folderListResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const query = parseListQuery(request.query, {
        filterFields: folderFilterFields,
        allowMetadata: false,
        orderFields: folderOrderFields,
      });
      const { rows, total } = await listFolders(db, auth.tenantId, query);
      const [paths, counts] = await Promise.all([
        rows.length > 0 ? folderPaths(db, auth.tenantId) : Promise.resolve(new Map<number, string>()),
        modelCounts(
          db,
          auth.tenantId,
          rows.map((r) => r.id),
        ),
      ]);
      const body: FolderListResponse = {
        folders: rows.map((f) => toFolder(f, paths.get(f.id) ?? f.name, counts.get(f.id) ?? 0)),
        pageData: pageDataFor(total, query),
      };
      return body;
    },
  );

  app.post(
    '/',
    {
      schema: {
        tags: ['Folders'],
        summary: 'Create a folder',
        description: 'name and parentFolderId in the JSON body, or as query parameters (published form).',
        querystring: createFolderQuerySchema,
        body: createFolderRequestSchema.partial(),
        response: { 201: folderResponseSchema },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const input = {
        name: request.body.name ?? request.query.name,
        parentFolderId: request.body.parentFolderId ?? request.query.parentFolderId,
      };
      if (input.name === undefined) throw new InvalidInput('name: give the folder a name, in the body or as a query parameter.');
      checkName(input.name);
      const result = await tryCreateFolder(db, { tenantId: auth.tenantId, name: input.name, parentFolderId: input.parentFolderId ?? null });
      if (!result.ok) {
        if (result.reason === 'no-parent') throw new InvalidInput(`parentFolderId: there is no folder ${input.parentFolderId}.`);
        throw new Conflict(`A folder named “${input.name}” already exists here (names are compared ignoring case).`);
      }
      return reply.status(201).send({ folder: await present(auth.tenantId, result.folder) });
    },
  );

  /**
   * The published folder contents: one page over the folder's subfolders (by name) and then its
   * own models (by name), each marked with its `type`.
   */
  app.get(
    '/:id/contents',
    {
      schema: {
        tags: ['Folders'],
        summary: 'Subfolders, then models, one page',
        params: idParams,
        querystring: pageQuerySchema,
        response: { 200: folderContentsResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const id = folderIdOf(request.params);
      const page = request.query;
      if (!(await findFolder(db, auth.tenantId, id))) throw new NotFound(`No folder ${id}.`);
      const start = (page.page - 1) * page.perPage;
      const folders = await childFolders(db, auth.tenantId, id, start, page.perPage);
      const modelStart = Math.max(0, start - folders.total);
      const models = await modelsInFolder(db, auth.tenantId, id, modelStart, page.perPage - folders.rows.length);
      const [paths, counts, modelDtos] = await Promise.all([
        folders.rows.length ? folderPaths(db, auth.tenantId) : Promise.resolve(new Map<number, string>()),
        modelCounts(
          db,
          auth.tenantId,
          folders.rows.map((r) => r.id),
        ),
        toModels(db, models.rows, files),
      ]);
      const data = [
        ...folders.rows.map((f) => ({ type: 'folder' as const, ...toFolder(f, paths.get(f.id) ?? f.name, counts.get(f.id) ?? 0) })),
        ...modelDtos.map((m) => ({ type: 'model' as const, ...m })),
      ];
      const total = folders.total + models.total;
      return { data, page: page.page, perPage: page.perPage, total, pageData: pageDataFor(total, page) };
    },
  );

  app.get(
    '/:id',
    { schema: { tags: ['Folders'], summary: 'One folder', params: idParams, response: { 200: folderResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const id = folderIdOf(request.params);
      const row = await findFolder(db, auth.tenantId, id);
      if (!row) throw new NotFound(`No folder ${id}.`);
      return { folder: await present(auth.tenantId, row) };
    },
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags: ['Folders'],
        summary: 'Rename a folder',
        params: idParams,
        body: renameFolderRequestSchema,
        response: { 200: folderUpdateResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const id = folderIdOf(request.params);
      const { name } = request.body;
      checkName(name);
      const result = await renameFolder(db, auth.tenantId, id, name);
      if (!result.ok) {
        if (result.reason === 'not-found') throw new NotFound(`No folder ${id}.`);
        throw new Conflict(`A folder named “${name}” already exists here (names are compared ignoring case).`);
      }
      return { folder: await present(auth.tenantId, result.folder), affected: 1 };
    },
  );

  app.delete(
    '/:id',
    { schema: { tags: ['Folders'], summary: 'Delete an empty folder', params: idParams, response: { 204: z.undefined() } } },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const id = folderIdOf(request.params);
      const result = await deleteFolder(db, auth.tenantId, id);
      if (result === 'not-found') throw new NotFound(`No folder ${id}.`);
      if (result === 'has-subfolders') throw new Conflict('The folder has subfolders; only an empty folder can be deleted.');
      if (result === 'has-models') throw new Conflict('The folder has models; only an empty folder can be deleted.');
      return reply.status(204).send();
    },
  );
}
