import { createHash } from 'node:crypto';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import {
  acceptProposalsRequestSchema,
  acceptProposalsResponseSchema,
  classProposalQuerySchema,
  classProposalsResponseSchema,
  type ClassProposalsResponse,
} from '../../../contract/metadata-keys';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import { proposeClasses, type Proposal } from '../../../geometry/search/class-proposals';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { InvalidInput, NotFound } from '../../http/errors';
import { folderScope, scopeQuery } from '../../http/folder-scope';
import { tenantGeneration } from '../../search/cache';
import { folderVectors } from '../../search/folder-vectors';
import { findMetadataKey, setMetadataValue } from '../../store/metadata-keys';
import { toModelsByIds } from '../../store/model-dto';
import { modelsByIds } from '../../store/models';
import { isUuid } from '../../store/users';
import type { Database } from '../../store/schema';
import { searchableIdsSql } from '../../store/searchable-models';

const keyParams = z.object({ id: z.coerce.number().int().positive() });

/** Proposals of a (tenant, models, key, examples) state: paging and filtering read them, not recompute them. */
const computed = new LRUCache<string, Promise<Map<string, Proposal>>>({ max: 20 });

/**
 * Classes proposed from examples (this service's addition): a designer picks a metadata key as the
 * class, gives some models a value, and every other model of a scope gets the value its nearest
 * examples agree on (geometry/search/class-proposals.ts); accepted proposals become metadata.
 */
export async function classProposalRoutes(parent: FastifyInstance, { db, files }: { db: Kysely<Database>; files: ModelFiles }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const tags = ['Metadata'];

  app.get(
    '/:id/proposals',
    {
      schema: {
        tags,
        summary: 'Values of a class key proposed for the models that have none, from the nearest that have one',
        description:
          'Examples: every model of the tenant with a value for the key. Proposed for: the finished models of folderIds (with subfolders; the whole tenant without) that have none. ' +
          'confidence 0–100: 50 plus how many part-to-part score points nearer the nearest example of the value is than the nearest example of another value among the 5 nearest (on the benchmark’s families 93 % of proposals at 60 or more are right). Most confident first.',
        params: keyParams,
        querystring: scopeQuery.extend(classProposalQuerySchema.shape).extend(pageQuerySchema.shape),
        response: { 200: classProposalsResponseSchema },
      },
    },
    async (request): Promise<ClassProposalsResponse> => {
      const auth = requireRole(request, 'viewer');
      const key = await findMetadataKey(db, auth.tenantId, request.params.id);
      if (!key) throw new NotFound(`No metadata key ${request.params.id}.`);
      const q = request.query;
      const scope = await folderScope(db, auth.tenantId, q);
      const [labels, generation, inScope] = await Promise.all([
        labelsOf(db, auth.tenantId, key.id),
        tenantGeneration(db, auth.tenantId),
        scope === null ? Promise.resolve(null) : scopeIds(db, auth.tenantId, scope),
      ]);
      const fingerprint = createHash('sha1')
        .update([...labels].sort(([a], [b]) => (a < b ? -1 : 1)).join('\n'))
        .digest('hex');
      const cacheKey = `${auth.tenantId}:${generation}:${key.id}:${fingerprint}`;
      let proposals = computed.get(cacheKey);
      if (!proposals) {
        proposals = folderVectors(db, auth.tenantId, null).then((vectors) => proposeClasses(vectors, labels));
        computed.set(cacheKey, proposals);
        proposals.catch(() => computed.delete(cacheKey));
      }
      const all = [...(await proposals)].filter(([id]) => inScope === null || inScope.has(id));
      // Filtered on the confidence as answered (one decimal), so a value read from an answer selects it.
      const passing = all.filter(([, p]) => percent(p.confidence) >= q.minConfidence);
      const counts = new Map<string, number>();
      for (const [, p] of passing) counts.set(p.value, (counts.get(p.value) ?? 0) + 1);
      const shown = passing
        .filter(([, p]) => q.value === undefined || p.value === q.value)
        .sort(([a, x], [b, y]) => y.confidence - x.confidence || (a < b ? -1 : 1));
      const start = (q.page - 1) * q.perPage;
      const page = shown.slice(start, start + q.perPage);
      const neighbourIds = [...new Set(page.flatMap(([, p]) => p.neighbours.map((n) => n.id)))];
      const [models, neighbours] = await Promise.all([
        toModelsByIds(
          db,
          auth.tenantId,
          page.map(([id]) => id),
          files,
        ),
        modelsByIds(db, auth.tenantId, neighbourIds),
      ]);
      const byId = new Map(models.map((m) => [m.id, m]));
      const names = new Map(neighbours.map((r) => [r.id, r.name]));
      return {
        metadataKey: { id: key.id, name: key.name },
        labelled: labels.size,
        unlabelled: all.length,
        values: [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([value, count]) => ({ value, count })),
        proposals: page.flatMap(([id, p]) => {
          const model = byId.get(id);
          if (!model) return [];
          return [
            {
              model,
              value: p.value,
              confidence: percent(p.confidence),
              neighbours: p.neighbours.map((n) => ({
                modelId: n.id,
                name: names.get(n.id) ?? '',
                value: n.value,
                matchPercentage: Number(n.score.toFixed(1)),
              })),
            },
          ];
        }),
        pageData: pageDataFor(shown.length, q),
      };
    },
  );

  app.post(
    '/:id/proposals/accept',
    {
      schema: {
        tags,
        summary: 'Set class values as proposed or corrected (metadata), up to 500 at once',
        params: keyParams,
        body: acceptProposalsRequestSchema,
        response: { 200: acceptProposalsResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const key = await findMetadataKey(db, auth.tenantId, request.params.id);
      if (!key) throw new NotFound(`No metadata key ${request.params.id}.`);
      const { items } = request.body;
      const ids = [...new Set(items.map((i) => i.modelId))];
      const malformed = ids.filter((id) => !isUuid(id));
      if (malformed.length) throw new InvalidInput(`No model ${malformed.slice(0, 5).join(', ')}: nothing was set.`);
      const known = new Set((await modelsByIds(db, auth.tenantId, ids)).map((r) => r.id));
      const missing = ids.filter((id) => !known.has(id));
      if (missing.length)
        throw new InvalidInput(`No model ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ' …' : ''}: nothing was set.`);
      await db.transaction().execute(async (trx) => {
        for (const item of items) await setMetadataValue(trx, item.modelId, key.id, item.value);
      });
      return { accepted: items.length };
    },
  );
}

const percent = (share: number) => Number((share * 100).toFixed(1));

/** Every model of the tenant with a value for the key: id → value. */
async function labelsOf(db: Kysely<Database>, tenantId: number, keyId: number): Promise<Map<string, string>> {
  const { rows } = await sql<{ id: string; value: string }>`
    select mm.model_id as id, mm.value from model_metadata mm join models m on m.id = mm.model_id
    where m.tenant_id = ${tenantId} and mm.metadata_key_id = ${keyId} and mm.value <> ''`.execute(db);
  return new Map(rows.map((r) => [r.id, r.value]));
}

/** The searchable models of the folders. */
async function scopeIds(db: Kysely<Database>, tenantId: number, folderIds: number[]): Promise<Set<string>> {
  const { rows } = await sql<{ id: string }>`${searchableIdsSql(tenantId, { folderIds })}`.execute(db);
  return new Set(rows.map((r) => r.id));
}
