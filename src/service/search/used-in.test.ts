// "Used in" by shape over HTTP against a really started service: an assembly exported as one mesh
// and its parts arrive in one batch, ingested side by side, and the duplicate review still lists
// the assembly under each part — from pairs ingestion settled, not from pairs a query happened to
// store. The assembly's part list counts the part's copies.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duplicateReportResponseSchema, reportGroupsResponseSchema } from '../../contract/duplicate-review';
import { containmentMatchesResponseSchema } from '../../contract/matches';
import { partListResponseSchema, whereUsedResponseSchema } from '../../contract/models';
import { applyToMesh, mergeMeshes } from '../../geometry/mesh/mesh';
import { multiply, translation } from '../../geometry/mesh/transform';
import { buildPart, randomRigid } from '../../geometry/testing/benchmark-dataset';
import { prng } from '../../geometry/search/descriptors/sampling';
import { toGlb, toStlBinary } from '../../geometry/testing/fixtures';
import { startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';

describe('used in, from pairs settled at ingestion', () => {
  let svc: IngestTestService;
  const id: Record<string, string> = {};

  beforeAll(async () => {
    // Two worker threads: the batch's models are processed at the same time, so each model's first
    // settling pass sees the others still processing.
    svc = await startIngestTestService({ concurrency: 2 });
    const leaf = await buildPart('bracket', 3);
    const plate = await buildPart('plate', 4);
    const rig = mergeMeshes([
      plate,
      applyToMesh(leaf, multiply(translation(200, 0, 0), randomRigid(prng(5), 0))),
      applyToMesh(leaf, multiply(translation(-200, 40, 0), randomRigid(prng(6), 0))),
    ]);
    const files: [string, Uint8Array][] = [
      ['Hinge/leaf.stl', toStlBinary(leaf)],
      ['Hinge/leaf-export.glb', await toGlb(applyToMesh(leaf, randomRigid(prng(7))))],
      ['Hinge/rig.stl', toStlBinary(rig)],
    ];
    const targets = await svc.create(files.map(([p]) => p));
    await Promise.all(targets.map((t, i) => svc.put(t, files[i]![1])));
    for (const [i, key] of ['leaf', 'export', 'rig'].entries()) id[key] = targets[i]!.id;
    await svc.ingestion.idle();
    for (const [key, model] of Object.entries(id)) expect((await svc.model(model)).state, key).toMatch(/^finished/);
  }, 300_000);
  afterAll(() => svc?.stop());

  const get = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await svc.api(path, { token: svc.token, ...init });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('ingestion stores the part-in-part pair of each part and the assembly mesh, in both directions', async () => {
    const { rows } = await sql<{ model_id: string; other_id: string; forward: number }>`
      select model_id::text, other_id::text, forward from search_pairs
      where kind = 'part-in-part' and other_id = ${id.rig}`.execute(svc.db);
    for (const part of ['leaf', 'export']) {
      const row = rows.find((r) => r.model_id === id[part]);
      expect(row, `${part} in the rig`).toBeDefined();
      expect(row!.forward).toBeGreaterThanOrEqual(90);
    }
  });

  it('the duplicate review lists the assembly mesh under each copy of the part, by shape', async () => {
    const started = await get('/v2/duplicate-reports', { method: 'POST', json: {} });
    expect(started.status).toBe(202);
    let report = duplicateReportResponseSchema.parse(started.body).report;
    for (const deadline = Date.now() + 60_000; report.status !== 'ready' && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      report = duplicateReportResponseSchema.parse((await get(`/v2/duplicate-reports/${report.id}`)).body).report;
    }
    expect(report.status).toBe('ready');
    const { groups } = reportGroupsResponseSchema.parse((await get(`/v2/duplicate-reports/${report.id}/groups`)).body);
    const leaves = groups.find((g) => g.members.some((m) => m.model.id === id.leaf));
    expect(leaves?.members.map((m) => m.model.id).sort()).toEqual([id.leaf, id.export].sort());
    for (const member of leaves!.members)
      expect(member.usedIn, member.model.name).toEqual([{ id: id.rig, name: 'rig.stl', filePath: 'Hinge/rig.stl', by: 'shape' }]);
  });

  it('part-in-part counts copies: the rig holds the leaf twice, seen from either side', async () => {
    const parts = containmentMatchesResponseSchema.parse(
      (await get(`/v2/models/${id.rig}/part-in-part-matches?direction=contained&threshold=90`)).body,
    );
    expect(parts.matches.find((m) => m.matchedModel.id === id.leaf)?.copies).toBe(2);
    const assemblies = containmentMatchesResponseSchema.parse(
      (await get(`/v2/models/${id.leaf}/part-in-part-matches?direction=contains&threshold=90`)).body,
    );
    const rig = assemblies.matches.find((m) => m.matchedModel.id === id.rig);
    expect(rig?.copies).toBe(2);
    // Duplicates are not parts of each other: no copy count says otherwise.
    expect(assemblies.matches.find((m) => m.matchedModel.id === id.export)?.copies ?? 1).toBe(1);
  });

  it('where used: the rig, found by shape, with the two copies and the share of the leaf found in it; a mesh has no part list', async () => {
    for (const part of ['leaf', 'export']) {
      const { status, body } = await get(`/v2/models/${id[part]}/where-used`);
      expect(status, JSON.stringify(body)).toBe(200);
      const { assemblies } = whereUsedResponseSchema.parse(body);
      expect(assemblies.map((a) => [a.model.id, a.by, a.quantity])).toEqual([[id.rig, 'shape', 2]]);
      expect(assemblies[0]!.matchPercentage).toBeGreaterThanOrEqual(90);
    }
    // The rig itself is used nowhere; it is one mesh, so it lists no parts.
    expect(whereUsedResponseSchema.parse((await get(`/v2/models/${id.rig}/where-used`)).body).assemblies).toEqual([]);
    expect(partListResponseSchema.parse((await get(`/v2/models/${id.rig}/part-list`)).body).parts).toEqual([]);
    expect((await get('/v2/models/00000000-0000-4000-8000-000000000000/where-used')).status).toBe(404);
    const other = await svc.editorToken('globex');
    expect((await svc.api(`/v2/models/${id.leaf}/where-used`, { token: other })).status).toBe(404);
  });
});
