// Duplicate review over HTTP against a really started service with its workers: reports over a
// scope run in the background, go stale when the scope changes, and apply decisions; decisions are
// recorded, exported and seen as match feedback; bulk actions refuse what they must and act all or
// nothing. Models carry real parts' search features, stored through the store's own writer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  duplicateDecisionListResponseSchema,
  duplicateDecisionResponseSchema,
  duplicateReportResponseSchema,
  matchFeedbackListResponseSchema,
  reportGroupsResponseSchema,
  type DuplicateReport,
} from '../../../contract/duplicate-review';
import { analyseShape } from '../../../geometry/search/descriptors/analysis';
import { buildPart } from '../../../geometry/testing/benchmark-dataset';
import { meshFacts, weld } from '../../../geometry/mesh/mesh-facts';
import { computeSearchFeatures, encodePrepared, type SearchFeatures } from '../../../geometry/search/search-features';
import { startIngestTestService, type IngestTestService } from '../../ingest/ingest-test-helpers';
import { storeSearchFeatures } from '../../search/features-store';
import { createFolder, folderPath } from '../../store/folders';
import type { TestUser } from '../../testing/start-test-service';

describe('duplicate review', () => {
  let t: IngestTestService;
  let editor: TestUser, viewer: TestUser;
  let editorToken: string, viewerToken: string, strangerToken: string;
  const folder: Record<'parts' | 'sub' | 'other' | 'archive', number> = { parts: 0, sub: 0, other: 0, archive: 0 };
  const m: Record<string, string> = {};
  const features: Record<string, SearchFeatures> = {};

  async function addModel(tenantId: number, folderId: number, name: string, shape: 'bracket' | 'flange' | 'plate') {
    const id = crypto.randomUUID();
    const path = `${await folderPath(t.db, tenantId, folderId)}/${name}`;
    await t.db
      .insertInto('models')
      .values({
        id,
        tenant_id: tenantId,
        folder_id: folderId,
        name,
        file_path: path,
        file_path_lower: path.toLowerCase(),
        file_name: name,
        file_name_lower: name.toLowerCase(),
        file_type: 'stl',
        state: 'finished',
      })
      .execute();
    await storeSearchFeatures(t.db, { id, tenant_id: tenantId }, features[shape]!);
    return id;
  }

  beforeAll(async () => {
    t = await startIngestTestService();
    editor = await t.createUser({ tenantKey: 'review', roles: ['viewer', 'editor'], name: 'Ada Editor' });
    viewer = await t.createUser({ tenantKey: 'review', roles: ['viewer'] });
    const stranger = await t.createUser({ tenantKey: 'review-stranger', roles: ['viewer', 'editor'] });
    [editorToken, viewerToken, strangerToken] = await Promise.all([t.tokenFor(editor), t.tokenFor(viewer), t.tokenFor(stranger)]);
    for (const shape of ['bracket', 'flange', 'plate'] as const) {
      const mesh = await buildPart(shape, 0);
      const welded = weld(mesh);
      const f = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
      f.prepared = encodePrepared(analyseShape(mesh, { samples: 512 }));
      features[shape] = f;
    }
    const tenant = editor.tenantId;
    folder.parts = (await createFolder(t.db, { tenantId: tenant, name: 'parts' })).id;
    folder.sub = (await createFolder(t.db, { tenantId: tenant, name: 'sub', parentFolderId: folder.parts })).id;
    folder.other = (await createFolder(t.db, { tenantId: tenant, name: 'other' })).id;
    folder.archive = (await createFolder(t.db, { tenantId: tenant, name: 'archive' })).id;
    m.b1 = await addModel(tenant, folder.parts, 'bracket-a.stl', 'bracket');
    m.b2 = await addModel(tenant, folder.sub, 'bracket-b.stl', 'bracket');
    m.b3 = await addModel(tenant, folder.other, 'bracket-c.stl', 'bracket');
    m.f1 = await addModel(tenant, folder.parts, 'flange-a.stl', 'flange');
    m.f2 = await addModel(tenant, folder.sub, 'flange-b.stl', 'flange');
    m.p1 = await addModel(tenant, folder.parts, 'plate.stl', 'plate');
    // An assembly that uses b2 and f2: b2 is the suggested master of the brackets.
    m.asm = crypto.randomUUID();
    await t.db
      .insertInto('models')
      .values({
        id: m.asm,
        tenant_id: tenant,
        folder_id: folder.other,
        name: 'rig.step',
        file_path: 'other/rig.step',
        file_path_lower: 'other/rig.step',
        file_name: 'rig.step',
        file_name_lower: 'rig.step',
        file_type: 'step',
        is_assembly: true,
        state: 'finished-incomplete',
      })
      .execute();
    await t.db
      .insertInto('assembly_links')
      .values([
        { assembly_id: m.asm, part_id: m.b2, ref_name: 'bracket-b.stl' },
        { assembly_id: m.asm, part_id: m.f2, ref_name: 'flange-b.stl' },
      ])
      .execute();
    // Another tenant's copy of the bracket: never in this tenant's reports.
    const theirs = await createFolder(t.db, { tenantId: stranger.tenantId, name: 'parts' });
    m.theirs = await addModel(stranger.tenantId, theirs.id, 'bracket-a.stl', 'bracket');
  }, 300_000);
  afterAll(() => t?.stop());

  const call = async (path: string, init: { method?: string; token?: string; json?: unknown } = {}) => {
    const res = await t.api(path, { token: editorToken, ...init });
    const text = await res.text();
    return {
      status: res.status,
      text,
      body: text && res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as unknown) : undefined,
    };
  };

  async function runReport(json: unknown, token = viewerToken): Promise<DuplicateReport> {
    const started = await call('/v2/duplicate-reports', { method: 'POST', json, token });
    expect(started.status, started.text).toBe(202);
    const { report } = duplicateReportResponseSchema.parse(started.body);
    expect(['queued', 'running']).toContain(report.status);
    const phases = new Set<string>();
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const res = await call(`/v2/duplicate-reports/${report.id}`, { token });
      expect(res.status, res.text).toBe(200);
      const now = duplicateReportResponseSchema.parse(res.body).report;
      phases.add(now.progress.phase);
      if (now.status === 'ready' || now.status === 'failed') return now;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`report ${report.id} did not finish; saw ${[...phases].join(', ')}`);
  }

  const groupsOf = async (id: string, token = viewerToken) => {
    const res = await call(`/v2/duplicate-reports/${id}/groups?perPage=50`, { token });
    expect(res.status, res.text).toBe(200);
    return reportGroupsResponseSchema.parse(res.body);
  };
  const memberSets = (g: Awaited<ReturnType<typeof groupsOf>>) =>
    g.groups
      .map((x) =>
        x.members
          .map((y) => y.model.id)
          .sort()
          .join(','),
      )
      .sort();
  const set = (...keys: string[]) =>
    keys
      .map((k) => m[k]!)
      .sort()
      .join(',');

  it('reports a scope: folders with or without subfolders, or the whole tenant, never another tenant', async () => {
    const withSub = await runReport({ folderIds: [folder.parts] });
    expect(withSub.status).toBe('ready');
    expect(withSub.progress.phase).toBe('done');
    expect(withSub.modelCount).toBe(5);
    expect(withSub.scope.folders).toEqual([{ id: folder.parts, path: 'parts' }]);
    expect(withSub.groupCount).toBe(2);
    expect(withSub.stale).toBe(false);
    expect(memberSets(await groupsOf(withSub.id))).toEqual([set('b1', 'b2'), set('f1', 'f2')].sort());

    const own = await runReport({ folderIds: [folder.parts], includeSubfolders: false });
    expect(own.modelCount).toBe(3);
    expect((await groupsOf(own.id)).groups).toEqual([]);

    const everything = await runReport({});
    expect(everything.scope.folders).toBeNull();
    const all = await groupsOf(everything.id);
    // Largest first; the assembly's user is the suggested master; the assembly is listed by name.
    expect(all.groups.map((g) => g.members.length)).toEqual([3, 2]);
    expect(memberSets(all)).toEqual([set('b1', 'b2', 'b3'), set('f1', 'f2')].sort());
    const brackets = all.groups[0]!;
    expect(brackets.suggestedMasterId).toBe(m.b2);
    expect(brackets.masterId).toBe(m.b2);
    expect(brackets.members.find((x) => x.model.id === m.b2)!.usedIn).toEqual([
      { id: m.asm, name: 'rig.step', filePath: 'other/rig.step', by: 'reference' },
    ]);
    expect(brackets.members.find((x) => x.model.id === m.b1)!.usedIn).toEqual([]);
    expect(brackets.links.every((l) => l.matchPercentage >= 98)).toBe(true);

    // Another tenant sees neither the report nor the models.
    expect((await call(`/v2/duplicate-reports/${everything.id}`, { token: strangerToken })).status).toBe(404);
    expect((await call(`/v2/duplicate-reports/${everything.id}/groups`, { token: strangerToken })).status).toBe(404);
    const theirs = await runReport({}, strangerToken);
    expect(theirs.modelCount).toBe(1);
  }, 120_000);

  it('is documented on /docs with its request and answer schemas', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags: string[]; responses: Record<string, unknown> }>>;
    };
    for (const [path, method] of [
      ['/v2/duplicate-reports', 'post'],
      ['/v2/duplicate-reports/{id}', 'get'],
      ['/v2/duplicate-reports/{id}/groups', 'get'],
      ['/v2/duplicate-decisions', 'post'],
      ['/v2/duplicate-decisions/export', 'get'],
      ['/v2/duplicate-decisions/actions', 'post'],
      ['/v2/duplicate-decisions/{id}', 'delete'],
      ['/v2/models/{id}/part-to-part-matches/{matchedModelId}/feedback', 'put'],
      ['/v2/models/{id}/match-feedback', 'get'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.tags).toEqual(['Duplicate review']);
    }
  });

  it('refuses bad report requests with the contract error', async () => {
    for (const [json, status] of [
      [{ threshold: 40 }, 400],
      [{ folderIds: ['x'] }, 400],
      [{ folderIds: [999_999] }, 404],
      [{ color: 'red' }, 400],
    ] as const) {
      const res = await call('/v2/duplicate-reports', { method: 'POST', json });
      expect(res.status, res.text).toBe(status);
      expect(res.body).toEqual({ error: { message: expect.any(String), code: expect.any(String) } });
    }
    expect((await call('/v2/duplicate-reports/not-an-id')).status).toBe(404);
    expect((await call('/v2/duplicate-reports', { method: 'POST', json: {}, token: '' })).status).toBe(401);
  });

  it('records decisions: editors only, applied to reports, kept across reruns, seen as match feedback', async () => {
    const decide = (json: unknown, token = editorToken) => call('/v2/duplicate-decisions', { method: 'POST', json, token });
    expect((await decide({ masterId: m.b2, modelId: m.b1, verdict: 'duplicate' }, viewerToken)).status).toBe(403);
    expect((await decide({ masterId: m.b2, modelId: m.b2, verdict: 'duplicate' })).status).toBe(400);
    expect((await decide({ masterId: m.b2, modelId: m.theirs, verdict: 'duplicate' })).status).toBe(404);
    expect((await decide({ masterId: m.b2, modelId: m.b1, verdict: 'duplicate' }, strangerToken)).status).toBe(404);

    const dup = await decide({ masterId: m.b2, modelId: m.b1, verdict: 'duplicate', note: '=HYPERLINK("x")' });
    expect(dup.status, dup.text).toBe(200);
    const { decision } = duplicateDecisionResponseSchema.parse(dup.body);
    expect(decision).toMatchObject({
      masterId: m.b2,
      modelId: m.b1,
      verdict: 'duplicate',
      masterPath: 'parts/sub/bracket-b.stl',
      modelPath: 'parts/bracket-a.stl',
      decidedBy: { id: editor.id, name: 'Ada Editor' },
    });
    expect(decision.matchPercentage).toBeGreaterThanOrEqual(98);
    // b3 is not a duplicate of either: that pair is not linked again at 98.
    expect((await decide({ masterId: m.b2, modelId: m.b3, verdict: 'not-duplicate' })).status).toBe(200);
    expect((await decide({ masterId: m.b1, modelId: m.b3, verdict: 'not-duplicate', threshold: 98 })).status).toBe(200);

    const report = await runReport({});
    const groups = await groupsOf(report.id);
    expect(memberSets(groups)).toEqual([set('b1', 'b2'), set('f1', 'f2')].sort());
    const brackets = groups.groups.find((g) => g.members.some((x) => x.model.id === m.b1))!;
    expect(brackets.masterId).toBe(m.b2);
    expect(brackets.members.find((x) => x.model.id === m.b1)!.decision).toMatchObject({ verdict: 'duplicate', masterId: m.b2 });
    // What a bulk action would take: every decided duplicate of the report, with the assemblies that use it.
    expect(groups.decidedDuplicates.map((d) => [d.model.id, d.master.id, d.usedIn.length])).toEqual([[m.b1, m.b2, 0]]);
    // At a lower threshold the "not a duplicate" pairs are proposed again (same family, small changes).
    expect(memberSets(await groupsOf((await runReport({ threshold: 90 })).id))).toContain(set('b1', 'b2', 'b3'));

    // Published match feedback: the same decisions from one model; FamilyMatch records "not a duplicate".
    const fb = await call(`/v2/models/${m.b1}/match-feedback`, { token: viewerToken });
    expect(fb.status).toBe(200);
    const list = matchFeedbackListResponseSchema.parse(fb.body).feedback;
    expect(list.map((f) => [f.matchedModelId, f.feedbackType]).sort()).toEqual(
      [
        [m.b2, 'ExactMatch'],
        [m.b3, 'FamilyMatch'],
      ].sort(),
    );
    const put = await call(`/v2/models/${m.f1}/part-to-part-matches/${m.f2}/feedback`, {
      method: 'PUT',
      json: { feedback: 'thicker hub', feedbackType: 'FamilyMatch' },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      modelId: m.f1,
      matchedModelId: m.f2,
      feedbackType: 'FamilyMatch',
      feedback: 'thicker hub',
      decision: { verdict: 'not-duplicate', masterId: m.f1 },
    });
    expect((await call(`/v2/models/${m.f1}/part-to-part-matches/${m.f2}/feedback`, { method: 'PUT', json: { feedback: 1 } })).status).toBe(
      400,
    );
    // Deciding again replaces the pair's decision.
    const again = await call(`/v2/models/${m.f1}/part-to-part-matches/${m.f2}/feedback`, {
      method: 'PUT',
      json: { feedback: 'same part', feedbackType: 'ExactMatch' },
    });
    expect(again.body).toMatchObject({ decision: { verdict: 'duplicate', masterId: m.f1, modelId: m.f2 } });
    const all = duplicateDecisionListResponseSchema.parse((await call('/v2/duplicate-decisions?perPage=100', { token: viewerToken })).body);
    expect(all.decisions).toHaveLength(4);
  }, 120_000);

  it('exports the decisions as JSON and as CSV that a spreadsheet does not run', async () => {
    const json = await call('/v2/duplicate-decisions/export?format=json', { token: viewerToken });
    expect(json.status).toBe(200);
    expect(duplicateDecisionListResponseSchema.pick({ decisions: true }).parse(json.body).decisions.length).toBe(4);
    const csv = await t.api('/v2/duplicate-decisions/export?format=csv', { token: viewerToken });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/attachment; filename="duplicate-decisions-\d{4}-\d\d-\d\d\.csv"/);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('masterId,masterPath,modelId,modelPath,verdict,matchPercentage,threshold,note,decidedBy,decidedAt');
    expect(lines).toHaveLength(5);
    const b1 = lines.find((l) => l.includes('parts/bracket-a.stl') && l.includes(',duplicate,'))!;
    expect(b1).toContain(`${m.b2},parts/sub/bracket-b.stl,${m.b1},parts/bracket-a.stl,duplicate,`);
    expect(b1).toContain(`"'=HYPERLINK(""x"")"`);
    expect(b1).toContain('Ada Editor');
  });

  it('acts in bulk on decided duplicates only, never a master, and deletes a used one only after its assembly is confirmed', async () => {
    const act = (json: unknown, token = editorToken) => call('/v2/duplicate-decisions/actions', { method: 'POST', json, token });
    expect((await act({ action: 'move', modelIds: [m.b1], folderId: folder.archive }, viewerToken)).status).toBe(403);
    expect((await act({ action: 'move', modelIds: [m.b1, m.b2], folderId: folder.archive })).status).toBe(409); // b2 is a master
    expect((await act({ action: 'move', modelIds: [m.p1], folderId: folder.archive })).status).toBe(409); // undecided
    expect(
      (await act({ action: 'move', modelIds: Array.from({ length: 101 }, () => crypto.randomUUID()), folderId: folder.archive })).status,
    ).toBe(400);
    expect((await act({ action: 'move', modelIds: [m.b1], folderId: folder.archive }, strangerToken)).status).toBe(404);
    expect((await act({ action: 'explode', modelIds: [m.b1] })).status).toBe(400);
    // A refused request changed nothing.
    expect((await t.db.selectFrom('models').select('folder_id').where('id', '=', m.b1!).executeTakeFirstOrThrow()).folder_id).toBe(
      folder.parts,
    );

    // Tag: without a value, the master's path.
    const key = await call('/v2/metadata-keys', { method: 'POST', json: { name: 'duplicateOf' } });
    expect(key.status, key.text).toBeLessThan(300);
    const keyId = (key.body as { metadataKey: { id: number } }).metadataKey.id;
    expect((await act({ action: 'set-metadata', modelIds: [m.b1], metadataKeyId: keyId })).status).toBe(200);
    const meta = await call(`/v2/models/${m.b1}/metadata`, { token: viewerToken });
    expect(meta.body).toMatchObject({ metadata: [{ metadataKeyId: keyId, value: 'parts/sub/bracket-b.stl' }] });

    // Move from a report, then see it in the archive folder's contents. The report's own action
    // keeps it current, and it lists only the duplicates left to act on.
    const from = await runReport({});
    expect((await groupsOf(from.id)).decidedDuplicates.map((d) => d.model.id).sort()).toEqual([m.b1, m.f2].sort());
    const unknown = crypto.randomUUID();
    expect((await act({ action: 'move', modelIds: [m.b1], folderId: folder.archive, reportId: unknown })).status).toBe(404);
    const moved = await act({ action: 'move', modelIds: [m.b1], folderId: folder.archive, reportId: from.id });
    expect(moved.status, moved.text).toBe(200);
    const after = await groupsOf(from.id);
    expect(after.report.stale).toBe(false);
    expect(after.decidedDuplicates.map((d) => d.model.id)).toEqual([m.f2]);
    expect(after.actedCount).toBe(1);
    // Undone from the report (moved back): to act on again, and still current.
    expect((await act({ action: 'move', modelIds: [m.b1], folderId: folder.parts, reportId: from.id })).status).toBe(200);
    const undone = await groupsOf(from.id);
    expect(undone.report.stale).toBe(false);
    expect(undone.decidedDuplicates.map((d) => d.model.id).sort()).toEqual([m.b1, m.f2].sort());
    expect(undone.actedCount).toBe(0);
    // The same change made elsewhere marks a report out of date.
    const other = await runReport({});
    expect((await act({ action: 'move', modelIds: [m.b1], folderId: folder.archive })).status).toBe(200);
    expect((await groupsOf(other.id)).report.stale).toBe(true);
    expect((await groupsOf(other.id)).actedCount).toBe(0);
    const contents = await call(`/v2/folders/${folder.archive}/contents`, { token: viewerToken });
    expect(JSON.stringify(contents.body)).toContain('archive/bracket-a.stl');

    // The moved model makes reports over its old and new folders stale.
    const before = await runReport({ folderIds: [folder.archive] });
    expect(before.stale).toBe(false);
    await t.db.updateTable('models').set({ folder_id: folder.other }).where('id', '=', m.b1!).execute();
    const later = duplicateReportResponseSchema.parse((await call(`/v2/duplicate-reports/${before.id}`)).body).report;
    expect(later.stale).toBe(true);
    await t.db.updateTable('models').set({ folder_id: folder.archive }).where('id', '=', m.b1!).execute();

    // f2 (a duplicate of f1) is used in rig.step: deleting it needs that assembly confirmed.
    const refused = await act({ action: 'delete', modelIds: [m.f2] });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('other/rig.step');
    expect((await call(`/v2/models/${m.f2}`)).status).toBe(200);
    expect((await act({ action: 'delete', modelIds: [m.f2], confirmedAssemblyIds: [m.b3] })).status).toBe(409);
    const deleted = await act({ action: 'delete', modelIds: [m.f2], confirmedAssemblyIds: [m.asm] });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await call(`/v2/models/${m.f2}`)).status).toBe(404);
    expect((await call(`/v2/models/${m.f1}`)).status).toBe(200);
    // The decision outlives the deleted duplicate, with its paths.
    const decisions = duplicateDecisionListResponseSchema.parse((await call('/v2/duplicate-decisions')).body).decisions;
    expect(decisions.find((d) => d.modelId === m.f2)).toMatchObject({ modelPath: 'parts/sub/flange-b.stl', masterId: m.f1 });
  }, 120_000);
});
