// `/v2/duplicate-decisions` (contract duplicate-review.ts): decisions on pairs of models, their
// export, and bulk actions on the duplicates decided; and the published API's match feedback on
// `/v2/models/{id}`, which is the same decisions seen from one model.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import {
  defaultReportThreshold,
  duplicateActionRequestSchema,
  duplicateActionResponseSchema,
  duplicateDecisionListResponseSchema,
  duplicateDecisionRequestSchema,
  duplicateDecisionResponseSchema,
  matchFeedbackListResponseSchema,
  matchFeedbackRequestSchema,
  type DuplicateDecision,
  type DuplicateVerdict,
} from '../../../contract/duplicate-review';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import type { BlobStore } from '../../files/blob-store';
import { requireRole, type RequestAuth } from '../../http/auth';
import { Conflict, InvalidInput, NotFound } from '../../http/errors';
import { storedPairs } from '../../search/pairs';
import type { DecidedPair } from '../../search/review-groups';
import {
  decidedModel,
  decisionsTouching,
  deleteDecision,
  listDecisions,
  saveDecision,
  type DecisionRow,
} from '../../store/duplicate-decisions';
import { findMetadataKey, setMetadataValue } from '../../store/metadata-keys';
import type { ModelLifecycle } from '../../store/model-lifecycle';
import { assembliesUsing, findModel, modelsByIds, moveModelsTo } from '../../store/models';
import type { Database } from '../../store/schema';
import { modelDeletion } from '../../store/model-deletion';
import { findReport, recordReportAction, scopeFingerprint } from '../../store/duplicate-reports';
import { reportFolders } from '../../search/duplicate-report-job';

/** Display names of users by id (a user deleted since shows as its id). */
export async function userNames(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'name']).where('id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export function decisionDto(d: DecisionRow, names?: ReadonlyMap<string, string>): DuplicateDecision {
  return {
    id: d.id,
    masterId: d.master_id,
    modelId: decidedModel(d),
    verdict: d.verdict as DuplicateVerdict,
    threshold: d.threshold,
    matchPercentage: d.match_percentage,
    masterPath: d.master_path,
    modelPath: d.model_path,
    note: d.note,
    decidedBy: { id: d.decided_by, name: names?.get(d.decided_by) ?? d.decided_by_name },
    decidedAt: d.decided_at.toISOString(),
  };
}

export const decidedPairs = (rows: readonly DecisionRow[]): DecidedPair[] =>
  rows.map((d) => ({
    lowId: d.low_id,
    highId: d.high_id,
    masterId: d.master_id,
    verdict: d.verdict as DuplicateVerdict,
    threshold: d.threshold,
    decidedAt: d.decided_at.getTime(),
  }));

const exportQuery = z.object({ format: z.enum(['json', 'csv']).default('json') });
const decisionParams = z.object({ id: z.string() });
const feedbackParams = z.object({ id: z.string(), matchedModelId: z.string() });
const modelParams = z.object({ id: z.string() });

interface Options {
  db: Kysely<Database>;
  blobStore: BlobStore;
  lifecycle: ModelLifecycle;
}

/**
 * Records a decision on a pair of the tenant's models (both routes below write through here):
 * their paths and the pair's stored part-to-part score are kept with it.
 */
async function recordDecision(
  db: Kysely<Database>,
  auth: RequestAuth,
  input: { masterId: string; modelId: string; verdict: DuplicateVerdict; threshold: number; note?: string | undefined },
) {
  const [master, model] = await Promise.all([findModel(db, auth.tenantId, input.masterId), findModel(db, auth.tenantId, input.modelId)]);
  if (!master) throw new NotFound(`No model ${input.masterId}.`);
  if (!model) throw new NotFound(`No model ${input.modelId}.`);
  const [low, high] = master.id < model.id ? [master.id, model.id] : [model.id, master.id];
  const score = (await storedPairs(db, auth.tenantId, 'part-to-part', low, [high])).get(high)?.score ?? null;
  const names = await userNames(db, [auth.userId]);
  return saveDecision(db, {
    tenantId: auth.tenantId,
    masterId: master.id,
    modelId: model.id,
    verdict: input.verdict,
    threshold: input.threshold,
    matchPercentage: score === null ? null : Number(score.toFixed(3)),
    masterPath: master.file_path,
    modelPath: model.file_path,
    note: input.note || null,
    decidedBy: { id: auth.userId, name: names.get(auth.userId) ?? auth.clientId },
  });
}

export async function duplicateDecisionRoutes(parent: FastifyInstance, { db, blobStore, lifecycle }: Options) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const deleteModels = modelDeletion({ db, blobStore, lifecycle });

  app.get(
    '/',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Decisions on pairs of models, newest first',
        querystring: pageQuerySchema,
        response: { 200: duplicateDecisionListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const page = request.query;
      const { rows, total } = await listDecisions(db, auth.tenantId, page);
      return { decisions: rows.map((d) => decisionDto(d)), pageData: pageDataFor(total, page) };
    },
  );

  app.get(
    '/export',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Every decision as a JSON or CSV file',
        description: 'Columns: master, duplicate (the other model), verdict, score, threshold, both paths, note, decided by, decided at.',
        querystring: exportQuery,
        response: {
          200: {
            description: 'format=json or format=csv',
            content: {
              'application/json': { schema: duplicateDecisionListResponseSchema.pick({ decisions: true }) },
              'text/csv': { schema: z.string() },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'viewer');
      const { format } = request.query;
      const decisions = (await listDecisions(db, auth.tenantId)).rows.map((d) => decisionDto(d));
      const stamp = new Date().toISOString().slice(0, 10);
      reply.header('content-disposition', `attachment; filename="duplicate-decisions-${stamp}.${format}"`);
      if (format === 'json') return reply.type('application/json; charset=utf-8').send({ decisions });
      const header = [
        'masterId',
        'masterPath',
        'modelId',
        'modelPath',
        'verdict',
        'matchPercentage',
        'threshold',
        'note',
        'decidedBy',
        'decidedAt',
      ];
      const rows = decisions.map((d) => [
        d.masterId,
        d.masterPath,
        d.modelId,
        d.modelPath,
        d.verdict,
        d.matchPercentage ?? '',
        d.threshold,
        d.note ?? '',
        d.decidedBy.name,
        d.decidedAt,
      ]);
      // escape_formulas: a path or note starting with = + - @ is not run by a spreadsheet.
      return reply.type('text/csv; charset=utf-8').send(stringify([header, ...rows], { escape_formulas: true }));
    },
  );

  app.post(
    '/',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Decide a pair: duplicate of the master, or not a duplicate',
        description:
          'One decision per pair: deciding again replaces it. "not-duplicate" keeps the pair out of reports at its threshold and above.',
        body: duplicateDecisionRequestSchema,
        response: { 200: duplicateDecisionResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const body = request.body;
      return { decision: decisionDto(await recordDecision(db, auth, body)) };
    },
  );

  app.delete(
    '/:id',
    { schema: { tags: ['Duplicate review'], summary: 'Take a decision back', params: decisionParams, response: { 204: z.undefined() } } },
    async (request, reply) => {
      const auth = requireRole(request, 'editor');
      const { id } = request.params;
      const n = /^\d{1,9}$/.test(id) ? Number(id) : NaN;
      if (!(Number.isSafeInteger(n) && (await deleteDecision(db, auth.tenantId, n)))) throw new NotFound(`No decision ${id}.`);
      return reply.status(204).send();
    },
  );

  app.post(
    '/actions',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Move, tag or delete up to 100 decided duplicates, all or nothing',
        description:
          "Every model must be decided a duplicate of a master, and none may be a master. Deleting a duplicate that an assembly uses needs that assembly in confirmedAssemblyIds (409 names them). set-metadata without a value writes each duplicate's master path.",
        body: duplicateActionRequestSchema,
        response: { 200: duplicateActionResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const body = request.body;
      const ids = [...new Set(body.modelIds)];
      const rows = await modelsByIds(db, auth.tenantId, ids);
      const missing = ids.filter((id) => !rows.some((r) => r.id === id));
      if (missing.length) throw new NotFound(`No model ${missing.join(', ')}; nothing was changed.`);
      const decisions = await decisionsTouching(db, auth.tenantId, ids);
      const nameOf = new Map(rows.map((r) => [r.id, r.file_path]));
      const masters = ids.filter((id) => decisions.some((d) => d.verdict === 'duplicate' && d.master_id === id));
      if (masters.length)
        throw new Conflict(
          `${masters.map((id) => nameOf.get(id)).join(', ')}: a master is never changed by a duplicate action; nothing was changed.`,
        );
      const masterOf = new Map<string, DecisionRow>();
      for (const id of ids) {
        const d = decisions.find((x) => x.verdict === 'duplicate' && decidedModel(x) === id);
        if (d) masterOf.set(id, d);
      }
      const undecided = ids.filter((id) => !masterOf.has(id));
      if (undecided.length)
        throw new Conflict(
          `${undecided.map((id) => nameOf.get(id)).join(', ')}: not decided a duplicate of a master; nothing was changed.`,
        );

      // Taken from a report: it stays current if it was (its own action is no change to review).
      const report = body.reportId ? await findReport(db, auth.tenantId, body.reportId) : undefined;
      if (body.reportId && !report) throw new NotFound(`No duplicates report ${body.reportId}; nothing was changed.`);
      const scopeNow = async () =>
        report && scopeFingerprint(db, auth.tenantId, await reportFolders(db, auth.tenantId, report.folder_ids, report.include_subfolders));
      const wasCurrent = report?.status === 'ready' && report.fingerprint === (await scopeNow());

      switch (body.action) {
        case 'move': {
          const moved = await moveModelsTo(db, auth.tenantId, ids, body.folderId);
          if (!moved.ok && moved.reason === 'no-folder')
            throw new InvalidInput(`folderId: there is no folder ${body.folderId}.`, { parameter: 'folderId' });
          if (!moved.ok && moved.reason === 'taken')
            throw new Conflict(`A model with the path “${moved.path}” already exists; nothing was moved.`);
          if (!moved.ok) throw new NotFound('A model was deleted meanwhile; nothing was moved.');
          break;
        }
        case 'set-metadata': {
          if (!(await findMetadataKey(db, auth.tenantId, body.metadataKeyId))) throw new NotFound(`No metadata key ${body.metadataKeyId}.`);
          const masterIds = [...new Set([...masterOf.values()].map((d) => d.master_id))];
          const masterPaths = new Map((await modelsByIds(db, auth.tenantId, masterIds)).map((r) => [r.id, r.file_path]));
          await db.transaction().execute(async (trx) => {
            for (const id of ids) {
              const d = masterOf.get(id)!;
              await setMetadataValue(trx, id, body.metadataKeyId, body.value ?? masterPaths.get(d.master_id) ?? d.master_path);
            }
          });
          break;
        }
        case 'delete': {
          const using = await assembliesUsing(db, auth.tenantId, ids);
          const confirmed = new Set(body.confirmedAssemblyIds);
          const unconfirmed = [...using.values()].flat().filter((a) => !confirmed.has(a.id) && !ids.includes(a.id));
          if (unconfirmed.length) {
            const names = [...new Map(unconfirmed.map((a) => [a.id, a.filePath])).values()];
            throw new Conflict(
              `Used in ${names.join(', ')}: confirm each assembly by name to delete the duplicates it uses; nothing was deleted.`,
            );
          }
          const result = await deleteModels(request.log, auth.tenantId, ids);
          if ('missing' in result) throw new NotFound(`No model ${result.missing.join(', ')}; nothing was deleted.`);
          break;
        }
      }
      if (report) {
        // A move is kept with the folder it started from: moved back there, it is undone.
        const changes = ids.map((id): [string, string | null] => {
          if (body.action !== 'move') return [id, body.action];
          const earlier = /^move:(\d+):\d+$/.exec(report.acted[id] ?? '');
          const from = earlier ? Number(earlier[1]) : rows.find((r) => r.id === id)!.folder_id;
          return [id, from === body.folderId ? null : `move:${from}:${body.folderId}`];
        });
        await recordReportAction(db, auth.tenantId, report.id, new Map(changes), wasCurrent ? await scopeNow() : undefined);
      }
      return { action: body.action, modelIds: ids };
    },
  );
}

/** `/v2/models/{id}` match feedback: ExactMatch records "duplicate of {id}", FamilyMatch "not a duplicate". */
export async function matchFeedbackRoutes(parent: FastifyInstance, { db }: { db: Kysely<Database> }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const asFeedback = (modelId: string, d: DecisionRow) => {
    const decision = decisionDto(d);
    return {
      modelId,
      matchedModelId: modelId === decision.masterId ? decision.modelId : decision.masterId,
      feedbackType: d.verdict === 'duplicate' ? ('ExactMatch' as const) : ('FamilyMatch' as const),
      feedback: d.note ?? '',
      decision,
    };
  };

  app.put(
    '/:id/part-to-part-matches/:matchedModelId/feedback',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Feedback on a match (published MatchFeedbackRequestBody)',
        description:
          'ExactMatch decides the matched model a duplicate of this one (this one the master); FamilyMatch, or no type, decides it not a duplicate. The same decisions as /v2/duplicate-decisions, at threshold 98.',
        params: feedbackParams,
        body: matchFeedbackRequestSchema,
        response: { 200: matchFeedbackListResponseSchema.shape.feedback.element },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'editor');
      const { id, matchedModelId } = request.params;
      const body = request.body;
      if (id === matchedModelId) throw new InvalidInput('matchedModelId: a model is not its own match.', { parameter: 'matchedModelId' });
      const verdict: DuplicateVerdict = body.feedbackType === 'ExactMatch' ? 'duplicate' : 'not-duplicate';
      const row = await recordDecision(db, auth, {
        masterId: id,
        modelId: matchedModelId,
        verdict,
        threshold: defaultReportThreshold,
        note: body.feedback,
      });
      return asFeedback(id, row);
    },
  );

  app.get(
    '/:id/match-feedback',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: "Feedback on a model's matches (its decisions)",
        params: modelParams,
        response: { 200: matchFeedbackListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const { id } = request.params;
      if (!(await findModel(db, auth.tenantId, id))) throw new NotFound(`No model ${id}.`);
      return { feedback: (await decisionsTouching(db, auth.tenantId, [id])).map((d) => asFeedback(id, d)) };
    },
  );
}
