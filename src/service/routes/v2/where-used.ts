import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import {
  meshFactsSchema,
  partListResponseSchema,
  searchableStates,
  whereUsedResponseSchema,
  type PartList,
  type WhereUsed,
} from '../../../contract/models';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { NotFound } from '../../http/errors';
import { tenantGeneration } from '../../search/cache';
import { findMatches, NotIndexed } from '../../search/engine';
import { usedIn } from '../../search/used-in';
import { flattenedParts } from '../../store/assembly-trees';
import { toModelsByIds } from '../../store/model-dto';
import { findModel, modelsByIds } from '../../store/models';
import type { Database, ModelRow } from '../../store/schema';

const idParams = z.object({ id: z.string() });
const formatQuery = z.object({ format: z.enum(['json', 'csv']).default('json') });

/** The part list's columns, in the CSV's order. */
const partListColumns = ['Name', 'Path', 'Quantity', 'State', 'Units', 'Model id'] as const;

/**
 * `GET /v2/models/{id}/where-used` and `GET /v2/models/{id}/part-list` (this service's additions):
 * what a change or a clean-up of a part touches, and what an assembly is made of.
 */
export async function whereUsedRoutes(parent: FastifyInstance, { db, files }: { db: Kysely<Database>; files: ModelFiles }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  async function modelOr404(tenantId: number, id: string): Promise<ModelRow> {
    const row = await findModel(db, tenantId, id);
    if (!row) throw new NotFound(`No model ${id}.`);
    return row;
  }

  app.get(
    '/:id/where-used',
    {
      schema: {
        tags: ['Models'],
        summary: 'The assemblies that use a part',
        description:
          'By reference: assemblies whose tree places the part (quantity from the tree, sub-assemblies multiplied). ' +
          'By shape: assemblies part-in-part finds at least 90 % of the part in (quantity: the copies found), for assemblies exported as one mesh.',
        params: idParams,
        response: { 200: whereUsedResponseSchema },
      },
    },
    async (request): Promise<WhereUsed> => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params.id);
      const using = (await usedIn(db, auth.tenantId, [row.id])).get(row.id) ?? [];
      if (!using.length) return { assemblies: [] };
      const byShape = using.some((a) => a.by === 'shape') ? await containment(auth.tenantId, row) : new Map<string, ShapeHit>();
      const [models, quantities] = await Promise.all([
        toModelsByIds(
          db,
          auth.tenantId,
          using.map((a) => a.id),
          files,
        ),
        referenceQuantities(
          auth.tenantId,
          row.id,
          using.filter((a) => a.by === 'reference').map((a) => a.id),
        ),
      ]);
      const byId = new Map(models.map((m) => [m.id, m]));
      return {
        assemblies: using.flatMap((a) => {
          const model = byId.get(a.id);
          if (!model) return [];
          const shape = byShape.get(a.id);
          const quantity = a.by === 'reference' ? quantities.get(a.id) : shape?.copies;
          return [
            {
              model,
              by: a.by,
              ...(quantity ? { quantity } : {}),
              ...(a.by === 'shape' && shape ? { matchPercentage: Number(shape.forward.toFixed(3)) } : {}),
            },
          ];
        }),
      };
    },
  );

  type ShapeHit = { forward: number; copies: number | undefined };
  /** The part's part-in-part results (stored pairs, as its matches page reads them): share found and copies per assembly. */
  async function containment(tenantId: number, row: ModelRow): Promise<Map<string, ShapeHit>> {
    if (!(searchableStates as readonly string[]).includes(row.state)) return new Map();
    const generation = await tenantGeneration(db, tenantId);
    const found = await findMatches({ db, tenantId, generation }, 'part-in-part', row, undefined, '').catch((error: unknown) => {
      if (error instanceof NotIndexed) return [];
      throw error;
    });
    return new Map(found.map((m) => [m.modelId, { forward: m.forward ?? 0, copies: m.copies }]));
  }

  /** How many of the part each referencing assembly places, from its flattened tree. */
  async function referenceQuantities(tenantId: number, partId: string, assemblyIds: string[]): Promise<Map<string, number>> {
    const rows = await modelsByIds(db, tenantId, assemblyIds);
    const out = new Map<string, number>();
    for (const r of rows) {
      const line = (await flattenedParts(db, tenantId, r)).find((l) => l.modelId === partId);
      if (line) out.set(r.id, line.quantity);
    }
    return out;
  }

  app.get(
    '/:id/part-list',
    {
      schema: {
        tags: ['Models'],
        summary: "An assembly's part list (flattened, with quantities)",
        description:
          'Every part the assembly places, however deep, once with its total quantity (occurrences multiplied down the tree), its file in the library, ' +
          `state and units; a part whose file is missing has state "missing". format=csv answers a CSV file with the columns ${partListColumns.join(', ')}. ` +
          'A part (no tree) answers an empty list.',
        params: idParams,
        querystring: formatQuery,
        response: {
          200: {
            description: 'format=json or format=csv',
            content: {
              'application/json': { schema: partListResponseSchema },
              'text/csv': { schema: z.string() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'viewer');
      const row = await modelOr404(auth.tenantId, request.params.id);
      const lines = await flattenedParts(db, auth.tenantId, row);
      const parts = new Map((await modelsByIds(db, auth.tenantId, lines.map((l) => l.modelId).filter(Boolean))).map((r) => [r.id, r]));
      const list: PartList['parts'] = lines.map((l) => {
        const part = parts.get(l.modelId);
        const facts = meshFactsSchema.safeParse(part?.facts);
        return {
          modelId: part ? l.modelId : '',
          name: l.name,
          filePath: part?.file_path ?? null,
          quantity: l.quantity,
          state: part?.state ?? 'missing',
          units: facts.success ? facts.data.units : null,
        };
      });
      if (request.query.format === 'csv') {
        const rows = list.map((p) => [p.name, p.filePath ?? '', p.quantity, p.state, p.units ?? '', p.modelId]);
        return reply
          .type('text/csv; charset=utf-8')
          .send(stringify([[...partListColumns], ...rows], { escape_formulas: true, record_delimiter: 'windows' }));
      }
      return { parts: list };
    },
  );
}
