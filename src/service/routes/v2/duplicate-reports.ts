// `/v2/duplicate-reports` (contract duplicate-review.ts): duplicates reports over a scope, run by a
// worker in the background and kept; their groups to review, with decisions applied.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  duplicateReportListResponseSchema,
  duplicateReportRequestSchema,
  duplicateReportResponseSchema,
  reportGroupsResponseSchema,
  type DuplicateReport,
  type ReportGroupsResponse,
} from '../../../contract/duplicate-review';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import type { ModelFiles } from '../../files/model-files';
import { requireRole } from '../../http/auth';
import { Conflict, NotFound } from '../../http/errors';
import type { IngestQueue } from '../../ingest/ingest-queue';
import { reportFolders, type StoredReport } from '../../search/duplicate-report-job';
import { usedIn as usedInAssemblies } from '../../search/used-in';
import { decidedMaster, proposedGroups, suggestedMaster } from '../../search/review-groups';
import { decisionsAmong } from '../../store/duplicate-decisions';
import { createReport, findReport, listReports, scopeFingerprint } from '../../store/duplicate-reports';
import { existingFolderIds, folderPaths } from '../../store/folders';
import type { Database } from '../../store/schema';
import { roundedLinks } from '../../store/duplicate-answers';
import { decisionDto, decidedPairs, userNames } from './duplicate-decisions';
import { toModelsByIds } from '../../store/model-dto';

const idParams = z.object({ id: z.string() });

type ReportRow = NonNullable<Awaited<ReturnType<typeof findReport>>>;
type ListedRow = Awaited<ReturnType<typeof listReports>>['rows'][number] | ReportRow;

export async function duplicateReportRoutes(
  parent: FastifyInstance,
  { db, files, queue }: { db: Kysely<Database>; files: ModelFiles; queue: IngestQueue | undefined },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  /** The answer for report rows: scope paths, who made them, and whether the scope changed since. */
  async function present(
    tenantId: number,
    rows: readonly ListedRow[],
    groupCounts: ReadonlyMap<string, number> = new Map(),
  ): Promise<DuplicateReport[]> {
    const [paths, names] = await Promise.all([
      folderPaths(db, tenantId),
      userNames(
        db,
        rows.map((r) => r.created_by),
      ),
    ]);
    // Each scope's fingerprint once: a list is polled while a report runs, and reruns share scopes.
    const fingerprints = new Map<string, Promise<string>>();
    const fingerprintOf = (r: ListedRow) => {
      const key = JSON.stringify([r.folder_ids, r.include_subfolders]);
      let f = fingerprints.get(key);
      if (!f)
        fingerprints.set(
          key,
          (f = reportFolders(db, tenantId, r.folder_ids, r.include_subfolders).then((folders) => scopeFingerprint(db, tenantId, folders))),
        );
      return f;
    };
    return Promise.all(
      rows.map(async (r) => {
        const stale = r.status === 'ready' && r.fingerprint !== (await fingerprintOf(r));
        const modelCount = 'result' in r ? ((r.result as StoredReport | null)?.modelCount ?? null) : r.model_count;
        return {
          id: r.id,
          status: r.status as DuplicateReport['status'],
          progress: { phase: r.phase as DuplicateReport['progress']['phase'], done: r.done, total: r.total },
          threshold: r.threshold,
          scope: {
            folders: r.folder_ids ? r.folder_ids.map((id) => ({ id, path: paths.get(id) ?? '(deleted folder)' })) : null,
            includeSubfolders: r.include_subfolders,
          },
          modelCount: r.status === 'ready' ? modelCount : null,
          groupCount: groupCounts.get(r.id) ?? null,
          stale,
          error: r.error,
          createdBy: { id: r.created_by, name: names.get(r.created_by) ?? r.created_by },
          createdAt: r.created_at.toISOString(),
          finishedAt: r.finished_at?.toISOString() ?? null,
        };
      }),
    );
  }

  /** One report's answer. */
  async function presentOne(tenantId: number, row: ListedRow, groupCounts?: ReadonlyMap<string, number>): Promise<DuplicateReport> {
    const [report] = await present(tenantId, [row], groupCounts);
    if (!report) throw new Error('present answers one report per row');
    return report;
  }

  async function reportOr404(tenantId: number, { id }: { id: string }) {
    const row = await findReport(db, tenantId, id);
    if (!row) throw new NotFound(`No duplicates report ${id}.`);
    return row;
  }

  app.post(
    '/',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Start a duplicates report over folders or the whole tenant',
        description: 'Runs in the background: poll the report for its progress. Without folderIds it covers every model of the tenant.',
        body: duplicateReportRequestSchema,
        response: { 202: duplicateReportResponseSchema },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'viewer');
      const body = request.body;
      const folderIds = body.folderIds?.length ? [...new Set(body.folderIds)] : null;
      if (folderIds) {
        const found = await existingFolderIds(db, auth.tenantId, folderIds);
        const missing = folderIds.filter((id) => !found.includes(id));
        if (missing.length) throw new NotFound(`No folder ${missing.join(', ')}.`);
      }
      if (!queue?.sendReport) throw new Conflict('Reports are run by workers, and this deployment has none.');
      const row = await createReport(db, {
        tenantId: auth.tenantId,
        folderIds,
        includeSubfolders: body.includeSubfolders,
        threshold: body.threshold,
        createdBy: auth.userId,
      });
      await queue.sendReport(row.id);
      return reply.status(202).send({ report: await presentOne(auth.tenantId, row) });
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'Duplicates reports, newest first',
        querystring: pageQuerySchema,
        response: { 200: duplicateReportListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const page = request.query;
      const { rows, total } = await listReports(db, auth.tenantId, page);
      return { reports: await present(auth.tenantId, rows), pageData: pageDataFor(total, page) };
    },
  );

  app.get(
    '/:id',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: 'A duplicates report: its progress, or its figures once ready',
        params: idParams,
        response: { 200: duplicateReportResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await reportOr404(auth.tenantId, request.params);
      const counts = new Map<string, number>();
      if (row.status === 'ready') counts.set(row.id, (await groupsOf(auth.tenantId, row)).groups.length);
      return { report: await presentOne(auth.tenantId, row, counts) };
    },
  );

  /** The report's groups with decisions applied, largest first, and those decisions. */
  async function groupsOf(tenantId: number, row: ReportRow) {
    const stored = row.result as StoredReport;
    const ids = [...new Set(stored.clusters.flatMap((c) => c.modelIds))];
    const decisions = await decisionsAmong(db, tenantId, ids);
    return { groups: proposedGroups(stored, decidedPairs(decisions), row.threshold), decisions };
  }

  /** Members decided duplicates of their group's decided master, in every group, not yet acted on from this report: what bulk actions take. */
  async function decidedDuplicates(
    tenantId: number,
    groups: ReturnType<typeof proposedGroups>,
    decisions: Awaited<ReturnType<typeof decisionsAmong>>,
    acted: Readonly<Record<string, string>>,
  ) {
    const pairs = decidedPairs(decisions);
    let found: { modelId: string; masterId: string }[] = [];
    for (const g of groups) {
      const master = decidedMaster(g.modelIds, pairs);
      if (!master) continue;
      for (const d of decisions) {
        const other = d.low_id === master ? d.high_id : d.high_id === master ? d.low_id : undefined;
        if (d.verdict === 'duplicate' && d.master_id === master && other && g.modelIds.includes(other))
          found.push({ modelId: other, masterId: master });
      }
    }
    const [models, usedIn] = await Promise.all([
      toModelsByIds(db, tenantId, [...new Set(found.flatMap((f) => [f.modelId, f.masterId]))], files),
      usedInAssemblies(
        db,
        tenantId,
        found.map((f) => f.modelId),
      ),
    ]);
    const byId = new Map(models.map((m) => [m.id, m]));
    // Acted on from this report: tagged, or still in the folder it was moved to (moved back, it is
    // to act on again; deleted, it is gone).
    const isActed = (id: string) => {
      const a = acted[id];
      if (a === undefined) return false;
      const movedTo = /^move:\d+:(\d+)$/.exec(a)?.[1];
      return movedTo === undefined || byId.get(id)?.folderId === Number(movedTo);
    };
    const actedCount = found.filter((f) => isActed(f.modelId)).length;
    found = found.filter((f) => !isActed(f.modelId));
    const decided = found.flatMap((f) =>
      byId.has(f.modelId) && byId.has(f.masterId)
        ? [{ model: byId.get(f.modelId)!, master: byId.get(f.masterId)!, usedIn: usedIn.get(f.modelId) ?? [] }]
        : [],
    );
    return { decidedDuplicates: decided, actedCount };
  }

  app.get(
    '/:id/groups',
    {
      schema: {
        tags: ['Duplicate review'],
        summary: "A page of a ready report's groups, largest first",
        description:
          'Each member with the assemblies that use it and its decision; the master its decisions name, else the suggested one (the CAD original over an exchange file over a mesh export, then used in most assemblies, then the oldest). Pairs decided "not a duplicate" at this threshold or below are not linked. 409 while the report runs.',
        params: idParams,
        querystring: pageQuerySchema,
        response: { 200: reportGroupsResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'viewer');
      const row = await reportOr404(auth.tenantId, request.params);
      const page = request.query;
      if (row.status !== 'ready')
        throw new Conflict(row.status === 'failed' ? `The report failed: ${row.error ?? ''}` : 'The report is not ready yet.');
      const { groups: all, decisions: reportDecisions } = await groupsOf(auth.tenantId, row);
      const start = (page.page - 1) * page.perPage;
      const slice = all.slice(start, start + page.perPage);
      const stored = row.result as StoredReport;
      const memberIds = slice.flatMap((g) => g.modelIds);
      const members = new Set(memberIds);
      const relations = stored.relations.filter((r) => members.has(r.a) || members.has(r.b));
      const [models, usedIn, decisions] = await Promise.all([
        toModelsByIds(db, auth.tenantId, [...new Set([...memberIds, ...relations.flatMap((r) => [r.a, r.b])])], files),
        usedInAssemblies(db, auth.tenantId, memberIds),
        decisionsAmong(db, auth.tenantId, memberIds),
      ]);
      const byId = new Map(models.map((m) => [m.id, m]));
      const pairs = decidedPairs(decisions);
      const names = await userNames(
        db,
        decisions.map((d) => d.decided_by),
      );
      const groups = slice.flatMap((g) => {
        // A member deleted since the report ran is left out; a group needs two.
        const alive = g.modelIds.filter((id) => byId.has(id));
        if (alive.length < 2) return [];
        const { id: suggested, reason: suggestedMasterReason } = suggestedMaster(
          alive.map((id) => ({
            id,
            fileName: byId.get(id)!.fileName,
            usedIn: usedIn.get(id)?.length ?? 0,
            createdAt: Date.parse(byId.get(id)!.createdAt),
          })),
        );
        const decided = decidedMaster(alive, pairs);
        const masterId = decided && alive.includes(decided) ? decided : suggested;
        const own = relations.filter((r) => alive.includes(r.a) || alive.includes(r.b)).filter((r) => byId.has(r.a) && byId.has(r.b));
        return [
          {
            key: g.key,
            members: alive.map((id) => {
              const decision = decisions.find((d) => d.master_id === masterId && (d.low_id === id || d.high_id === id) && id !== masterId);
              return {
                model: byId.get(id)!,
                usedIn: usedIn.get(id) ?? [],
                ...(decision ? { decision: decisionDto(decision, names) } : {}),
              };
            }),
            links: roundedLinks(g.links.filter((l) => byId.has(l.a) && byId.has(l.b))),
            suggestedMasterId: suggested,
            suggestedMasterReason,
            masterId,
            relations: roundedLinks(own),
            relatedModels: [...new Set(own.flatMap((r) => [r.a, r.b]))].filter((id) => !alive.includes(id)).map((id) => byId.get(id)!),
          },
        ];
      });
      const counts = new Map([[row.id, all.length]]);
      const report = await presentOne(auth.tenantId, row, counts);
      const body: ReportGroupsResponse = {
        report,
        groups,
        pageData: pageDataFor(all.length, page),
        ...(await decidedDuplicates(auth.tenantId, all, reportDecisions, row.acted)),
      };
      return body;
    },
  );
}
