// The match endpoints and folder duplicates over HTTP, against the really started service with
// real ingestion (descriptors computed by the workers, stored, indexed, searched).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addedDuplicatesResponseSchema,
  containmentMatchesResponseSchema,
  folderDuplicatesResponseSchema,
  similarityMatchesResponseSchema,
} from '../../contract/matches';
import { buildPart, randomRigid, subdivide } from '../../geometry/testing/benchmark-dataset';
import { prng } from '../../geometry/search/descriptors/sampling';
import { toGlb, toObj, toStlBinary } from '../../geometry/testing/fixtures';
import { applyToMesh, mergeMeshes, type Mesh } from '../../geometry/mesh/mesh';
import { multiply, scaling, transformPoint, translation } from '../../geometry/mesh/transform';
import { readTestFile, startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';
import { PAIR_VERSION } from './pairs';
import { PDFDocument } from 'pdf-lib';
import { deviationFiguresSchema } from '../../contract/deviation-report';
import { partListResponseSchema, whereUsedResponseSchema } from '../../contract/models';
import { descriptorDistance, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import { similarDistance, VIEWS_BEYOND } from '../../geometry/search/similar-distance';
import { viewSetDistance } from '../../geometry/search/views/view-set-distance';
import { viewSetsOf } from '../images/model-views-store';
import { loadFeatures } from './features-store';

describe('geometric search endpoints', () => {
  let svc: IngestTestService;
  const id: Record<string, string> = {};
  let bracket: Mesh;
  let placement: number[];

  beforeAll(async () => {
    svc = await startIngestTestService();
    bracket = await buildPart('bracket', 1);
    const plate = await buildPart('plate', 2);
    const flange = await buildPart('flange', 0);
    const moved = applyToMesh(bracket, randomRigid(prng(21)));
    placement = multiply(translation(180, 30, 12), randomRigid(prng(8), 0));
    const uploads: [string, Uint8Array | Promise<Uint8Array>][] = [
      ['original', toStlBinary(bracket)],
      ['glbCopy', toGlb(moved)],
      ['objCopy', toObj(applyToMesh(subdivide(bracket), randomRigid(prng(22))))],
      ['mirrored', toStlBinary(applyToMesh(bracket, scaling(-1, 1, 1)))],
      ['scaled', toStlBinary(applyToMesh(bracket, multiply(randomRigid(prng(23)), scaling(2))))],
      ['flange', toStlBinary(flange)],
      // A multi-shell assembly: the plate, and the bracket placed beside it.
      ['assembly', toStlBinary(mergeMeshes([plate, applyToMesh(bracket, placement)]))],
    ];
    const paths: Record<string, string> = {
      original: 'parts/bracket.stl',
      glbCopy: 'parts/bracket-copy.glb',
      objCopy: 'parts/other/bracket-fine.obj',
      mirrored: 'parts/bracket-mirrored.stl',
      scaled: 'parts/bracket-twice.stl',
      flange: 'parts/flange.stl',
      assembly: 'assemblies/plate-and-bracket.stl',
    };
    for (const [key, bytes] of uploads) id[key] = await svc.upload(paths[key]!, await bytes);
    for (const f of ['HEAD_FRONT.stp', 'HEAD_BACK.stp', 'HEAD.stp'])
      id[f] = await svc.upload(`plane/${f}`, readTestFile('cax-if', 's1-c5-214', f));
    await svc.ingestion.idle();
    for (const [key, model] of Object.entries(id)) expect((await svc.model(model)).state, key).toMatch(/^finished/);
  }, 300_000);
  afterAll(() => svc?.stop());

  const get = async (path: string, token = svc.token) => {
    const res = await svc.api(path, { token });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const similarity = async (kind: 'part-to-part' | 'geo-related', model: string, query = '') => {
    const { status, body } = await get(`/v2/models/${model}/${kind}-matches${query}`);
    expect(status, JSON.stringify(body)).toBe(200);
    return similarityMatchesResponseSchema.parse(body);
  };
  const containmentOf = async (model: string, query = '') => {
    const { status, body } = await get(`/v2/models/${model}/part-in-part-matches${query}`);
    expect(status, JSON.stringify(body)).toBe(200);
    return containmentMatchesResponseSchema.parse(body);
  };
  const scoreOf = (r: { matches: { matchedModel: { id: string }; matchPercentage: number }[] }, model: string) =>
    r.matches.find((m) => m.matchedModel.id === model)?.matchPercentage;
  /** Stored exact pair rows (migration 0005) touching `model`, straight from the database. */
  const pairRows = async (model: string) =>
    (
      await sql<{
        tenant_id: number;
        model_id: string;
        other_id: string;
        kind: string;
        version: number;
        score: number | null;
        forward: number | null;
        reverse: number | null;
        transform: number[];
      }>`
        select * from search_pairs where model_id = ${model} or other_id = ${model}`.execute(svc.db)
    ).rows;
  const pairRow = async (kind: string, a: string, b: string) =>
    (await pairRows(a)).find((r) => r.kind === kind && r.model_id === a && r.other_id === b);
  const near = (x: number[] | undefined, y: number[] | undefined) => {
    expect(x).toHaveLength(16);
    x!.forEach((v, i) => expect(v).toBeCloseTo(y![i]!, 9));
  };

  it('part-to-part: the same part in other formats, poses and tessellations scores ≥ 98; mirrored and different parts lower; never itself', async () => {
    const r = await similarity('part-to-part', id.original!, '?perPage=100');
    expect(r.matches.map((m) => m.matchedModel.id)).not.toContain(id.original);
    expect(scoreOf(r, id.glbCopy!)).toBeGreaterThanOrEqual(98);
    expect(scoreOf(r, id.objCopy!)).toBeGreaterThanOrEqual(98);
    expect(scoreOf(r, id.mirrored!) ?? 0).toBeLessThan(98);
    expect(scoreOf(r, id.flange!) ?? 0).toBeLessThan(90);
    // Mirror images and scaled copies are relations, not duplicates.
    const mirror = r.matches.find((m) => m.matchedModel.id === id.mirrored)!;
    expect(mirror.relation).toBe('mirrored');
    const twice = r.matches.find((m) => m.matchedModel.id === id.scaled)!;
    expect(twice.relation).toBe('scaled');
    expect(twice.scale).toBeCloseTo(2, 1);
    expect(twice.matchPercentage).toBeLessThan(98);
    expect(r.matches.find((m) => m.matchedModel.id === id.glbCopy)!.relation).toBeUndefined();
    // The same relation seen from the other side: the original is the scaled copy's half.
    const back = (await similarity('part-to-part', id.scaled!, '?perPage=100')).matches.find((m) => m.matchedModel.id === id.original)!;
    expect(back.relation).toBe('scaled');
    expect(back.scale).toBeCloseTo(0.5, 2);
    // best first by default
    const scores = r.matches.map((m) => m.matchPercentage);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(r.matchCount).toBe(r.pageData.total);
    expect(r.matches.every((m) => ['finished', 'finished-incomplete'].includes(m.matchedModel.state))).toBe(true);
  });

  it('part-to-part below the rule: one score for a pair whichever model asks; pairs the descriptor finds far apart are compared by their views too', async () => {
    const models = ['original', 'flange', 'assembly', 'HEAD_FRONT.stp', 'HEAD_BACK.stp'].map((k) => id[k]!);
    const lists = new Map<string, Awaited<ReturnType<typeof similarity>>>();
    for (const m of models) lists.set(m, await similarity('part-to-part', m, '?perPage=100'));
    let far = 0;
    const features = await loadFeatures(svc.db, models);
    const { tenant_id } = await svc.db.selectFrom('models').select('tenant_id').where('id', '=', models[0]!).executeTakeFirstOrThrow();
    const views = await viewSetsOf(svc.db, tenant_id, models);
    for (const a of models)
      for (const b of models) {
        if (a >= b) continue;
        const ab = scoreOf(lists.get(a)!, b),
          ba = scoreOf(lists.get(b)!, a);
        expect(ab, `${a} → ${b}`).toBeDefined();
        expect(ab).toBe(ba);
        const d = descriptorDistance(features.get(a)!.global, features.get(b)!.global);
        if (d <= VIEWS_BEYOND) continue;
        far++;
        // Half its views' distance: not what the descriptor alone would score.
        const mixed = scoreFromDistance(similarDistance(d, () => viewSetDistance(views.get(a)!, views.get(b)!)));
        expect(ab).toBeCloseTo(mixed, 1);
        expect(Math.abs(ab! - scoreFromDistance(d))).toBeGreaterThan(0.1);
      }
    expect(far, 'pairs of different designs').toBeGreaterThanOrEqual(4);
  });

  it('part-to-part: the transform places the query on the match (a known pose)', async () => {
    // glbCopy = original moved by randomRigid(prng(21)): the transform of original → glbCopy is that motion.
    const r = await similarity('part-to-part', id.original!, '?threshold=98');
    const m = r.matches.find((x) => x.matchedModel.id === id.glbCopy)!;
    expect(m.transform).toHaveLength(16);
    const truth = randomRigid(prng(21));
    for (const p of [
      [0, 0, 0],
      [50, 0, 0],
      [0, 50, 30],
    ] as [number, number, number][]) {
      const a = transformPoint(m.transform!, p),
        b = transformPoint(truth, p);
      expect(Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2])).toBeLessThan(2);
    }
  });

  it('threshold, paging, filter and order', async () => {
    const dup = await similarity('part-to-part', id.original!, '?threshold=98');
    expect(dup.matches.map((m) => m.matchedModel.id).sort()).toEqual([id.glbCopy, id.objCopy].sort());
    expect(dup.matchCount).toBe(2);
    const all = await similarity('part-to-part', id.original!, '?perPage=100');
    const p2 = await similarity('part-to-part', id.original!, '?perPage=2&page=2');
    expect(p2.matches.map((m) => m.matchedModel.id)).toEqual(all.matches.slice(2, 4).map((m) => m.matchedModel.id));
    expect(p2.pageData).toMatchObject({ currentPage: 2, perPage: 2, total: all.matchCount, startIndex: 2 });
    const byName = await similarity('part-to-part', id.original!, '?perPage=100&order=name');
    const names = byName.matches.map((m) => m.matchedModel.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    const asc = await similarity('part-to-part', id.original!, '?perPage=100&order=matchPercentage');
    expect(asc.matches.map((m) => m.matchPercentage)).toEqual([...all.matches.map((m) => m.matchPercentage)].reverse());
    const folder = (await svc.model(id.glbCopy!)).folderId;
    const inFolder = await similarity(
      'part-to-part',
      id.original!,
      `?perPage=100&filter=${encodeURIComponent(`folderId(eq(${folder})),fileType(in(glb,stl))`)}`,
    );
    expect(inFolder.matches.length).toBeGreaterThan(0);
    expect(inFolder.matches.every((m) => m.matchedModel.folderId === folder && ['glb', 'stl'].includes(m.matchedModel.fileType))).toBe(
      true,
    );
    expect(inFolder.matches.map((m) => m.matchedModel.id)).not.toContain(id.objCopy);
    expect((await get(`/v2/models/${id.original}/part-to-part-matches?filter=${encodeURIComponent('folderId(eq(')}`)).status).toBe(400);
    expect((await get(`/v2/models/${id.original}/part-to-part-matches?order=reverseMatchPercentage`)).status).toBe(400);
    expect((await get(`/v2/models/${id.original}/part-to-part-matches?threshold=101`)).status).toBe(400);
  });

  it('geo-related: the same part first, its own score ordering', async () => {
    const r = await similarity('geo-related', id.original!, '?perPage=100');
    expect(r.matches.map((m) => m.matchedModel.id)).not.toContain(id.original);
    expect(r.matches.slice(0, 3).map((m) => m.matchedModel.id)).toEqual(expect.arrayContaining([id.glbCopy, id.objCopy]));
    expect(r.matches.every((m) => m.transform === undefined)).toBe(true);
  });

  it('part-in-part: a part inside a multi-shell assembly (forward ≥ 90, reverse ≈ its share) and the other way round', async () => {
    const fromPart = await containmentOf(id.original!, '?perPage=100');
    const inAssembly = fromPart.matches.find((m) => m.matchedModel.id === id.assembly);
    expect(
      inAssembly,
      JSON.stringify(fromPart.matches.map((m) => [m.matchedModel.name, m.forwardMatchPercentage, m.reverseMatchPercentage])),
    ).toBeDefined();
    expect(inAssembly!.forwardMatchPercentage).toBeGreaterThanOrEqual(90);
    expect(inAssembly!.reverseMatchPercentage).toBeLessThan(80);
    expect(inAssembly!.transform).toHaveLength(16);
    // the transform puts the bracket where the assembly has it
    const p = transformPoint(inAssembly!.transform!, [10, 10, 10]),
      q = transformPoint(placement, [10, 10, 10]);
    expect(Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2])).toBeLessThan(3);
    const fromAssembly = await containmentOf(id.assembly!, '?perPage=100');
    const part = fromAssembly.matches.find((m) => m.matchedModel.id === id.original);
    expect(part?.reverseMatchPercentage).toBeGreaterThanOrEqual(90);
    // Symmetric: the same pair of scores seen from the other side, for every pair either side lists.
    for (const m of fromPart.matches) {
      const back = (await containmentOf(m.matchedModel.id, '?perPage=100')).matches.find((x) => x.matchedModel.id === id.original);
      expect(back, `${m.matchedModel.name} lists the bracket too`).toBeDefined();
      expect(back!.forwardMatchPercentage).toBeCloseTo(m.reverseMatchPercentage, 3);
      expect(back!.reverseMatchPercentage).toBeCloseTo(m.forwardMatchPercentage, 3);
    }
    // threshold on the larger of the two
    const strict = await containmentOf(id.assembly!, '?threshold=90');
    expect(strict.matches.every((m) => Math.max(m.forwardMatchPercentage, m.reverseMatchPercentage) >= 90)).toBe(true);
    expect(strict.matches.map((m) => m.matchedModel.id)).toContain(id.original);
    // Two lists: the assembly's parts (its reverse share at the threshold), the part's assemblies (forward).
    const parts = await containmentOf(id.assembly!, '?threshold=90&direction=contained&perPage=100');
    expect(parts.matches.every((m) => m.reverseMatchPercentage >= 90)).toBe(true);
    expect(parts.matches.map((m) => m.matchedModel.id)).toContain(id.original);
    expect(
      (await containmentOf(id.assembly!, '?threshold=90&direction=contains&perPage=100')).matches.map((m) => m.matchedModel.id),
    ).not.toContain(id.original);
    const assemblies = await containmentOf(id.original!, '?threshold=90&direction=contains&perPage=100');
    expect(assemblies.matches.every((m) => m.forwardMatchPercentage >= 90)).toBe(true);
    expect(assemblies.matches.map((m) => m.matchedModel.id)).toContain(id.assembly);
  });

  it('part-in-part: linked parts of a STEP external-reference assembly are known containment', async () => {
    const fromPart = await containmentOf(id['HEAD_FRONT.stp']!);
    const head = fromPart.matches.find((m) => m.matchedModel.id === id['HEAD.stp']);
    expect(head?.forwardMatchPercentage).toBeGreaterThanOrEqual(90);
    expect(head!.reverseMatchPercentage).toBeGreaterThan(0);
    expect(head!.reverseMatchPercentage).toBeLessThan(100);
    const fromAssembly = await containmentOf(id['HEAD.stp']!);
    const front = fromAssembly.matches.find((m) => m.matchedModel.id === id['HEAD_FRONT.stp']);
    const back = fromAssembly.matches.find((m) => m.matchedModel.id === id['HEAD_BACK.stp']);
    expect(front?.reverseMatchPercentage).toBeGreaterThanOrEqual(90);
    expect(back?.reverseMatchPercentage).toBeGreaterThanOrEqual(90);
    // the two parts' shares of the assembly add up to about all of it
    expect(front!.forwardMatchPercentage + back!.forwardMatchPercentage).toBeGreaterThan(90);
    expect(front!.forwardMatchPercentage + back!.forwardMatchPercentage).toBeLessThan(110);
  });

  it('stored pairs: ingestion settled both directions before the model turned searchable; a query reads them, and recomputes a missing one identically', async () => {
    // Background (ingest-job.ts → settleExactPairs): the duplicate pair is stored both ways, the
    // reverse direction being the inverse placement of the same result.
    const ab = await pairRow('part-to-part', id.original!, id.glbCopy!);
    const ba = await pairRow('part-to-part', id.glbCopy!, id.original!);
    expect(ab?.version).toBe(PAIR_VERSION);
    expect(ab!.score).toBeGreaterThanOrEqual(98);
    expect(ba!.score).toBe(ab!.score);
    const roundTrip = multiply(ab!.transform, ba!.transform);
    [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1].forEach((v, i) => expect(roundTrip[i]).toBeCloseTo(v, 6));
    // The endpoint answers with the stored result.
    const fromStore = await similarity('part-to-part', id.original!, '?threshold=98');
    const served = fromStore.matches.find((m) => m.matchedModel.id === id.glbCopy)!;
    expect(served.matchPercentage).toBe(Number(ab!.score!.toFixed(3)));
    near(served.transform, ab!.transform);

    // Removed from the store, the pair is computed by the query (another filter: not a cached
    // result) — the same numbers — and stored again.
    await sql`delete from search_pairs where kind = 'part-to-part' and ((model_id = ${id.original} and other_id = ${id.glbCopy}) or (model_id = ${id.glbCopy} and other_id = ${id.original}))`.execute(
      svc.db,
    );
    const recomputed = await similarity(
      'part-to-part',
      id.original!,
      `?threshold=98&filter=${encodeURIComponent('fileType(in(glb,obj))')}`,
    );
    const again = recomputed.matches.find((m) => m.matchedModel.id === id.glbCopy)!;
    expect(again.matchPercentage).toBe(served.matchPercentage);
    near(again.transform, served.transform);
    const restored = await pairRow('part-to-part', id.original!, id.glbCopy!);
    expect(restored!.score).toBe(ab!.score);
    near(restored!.transform, ab!.transform);

    // Part-in-part likewise: the bracket in the assembly, settled by ingestion.
    const pip = await pairRow('part-in-part', id.original!, id.assembly!);
    const pipBack = await pairRow('part-in-part', id.assembly!, id.original!);
    expect(pip!.forward).toBeGreaterThanOrEqual(90);
    expect(pipBack!.reverse).toBe(pip!.forward);
    expect(pipBack!.forward).toBe(pip!.reverse);
    await sql`delete from search_pairs where kind = 'part-in-part' and (model_id in (${id.original}, ${id.assembly}) or other_id in (${id.original}, ${id.assembly}))`.execute(
      svc.db,
    );
    const computed = await containmentOf(id.original!, `?perPage=100&filter=${encodeURIComponent('fileType(in(stl))')}`);
    const hit = computed.matches.find((m) => m.matchedModel.id === id.assembly)!;
    expect(hit.forwardMatchPercentage).toBe(Number(pip!.forward!.toFixed(3)));
    expect(hit.reverseMatchPercentage).toBe(Number(pip!.reverse!.toFixed(3)));
    near(hit.transform, pip!.transform);
    expect((await pairRow('part-in-part', id.original!, id.assembly!))!.forward).toBe(pip!.forward);
  });

  it('404 for unknown and other tenants’ models, 409 while the query model is not finished, other tenants never matched', async () => {
    expect((await get(`/v2/models/00000000-0000-4000-8000-000000000000/part-to-part-matches`)).status).toBe(404);
    expect((await get(`/v2/models/not-a-uuid/geo-related-matches`)).status).toBe(404);
    const [pending] = await svc.create(['parts/pending.stl']);
    const r = await get(`/v2/models/${pending!.id}/part-to-part-matches`);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: { code: expect.any(String), message: expect.stringMatching(/incomplete-upload/) } });

    // Another tenant uploads the same bracket: it sees neither our models nor we theirs.
    const other = await svc.editorToken('globex');
    const created = await svc.api('/v2/models?createMissingFolders=true', {
      method: 'POST',
      token: other,
      json: { models: [{ filePath: 'x/bracket.stl', name: 'bracket' }] },
    });
    const target = ((await created.json()) as { models: { model: { id: string }; uploadUrl: string; headers: Record<string, string> }[] })
      .models[0]!;
    await svc.put(target, toStlBinary(bracket));
    await svc.ingestion.idle();
    for (const kind of ['part-to-part', 'geo-related', 'part-in-part']) {
      const ours = await get(`/v2/models/${id.original}/${kind}-matches?perPage=100`);
      expect(JSON.stringify(ours.body)).not.toContain(target.model.id);
      expect((await get(`/v2/models/${id.original}/${kind}-matches`, other)).status).toBe(404);
      const theirs = await get(`/v2/models/${target.model.id}/${kind}-matches?perPage=100`, other);
      expect(theirs.status).toBe(200);
      expect((theirs.body as { matchCount: number }).matchCount).toBe(0);
    }
    // Stored pairs never join two tenants: both sides of every row belong to the row's tenant.
    const { rows: crossing } = await sql<{ n: number }>`
      select count(*)::int as n from search_pairs p join models a on a.id = p.model_id join models b on b.id = p.other_id
      where a.tenant_id <> p.tenant_id or b.tenant_id <> p.tenant_id`.execute(svc.db);
    expect(crossing[0]!.n).toBe(0);
    expect((await pairRows(target.model.id)).filter((r) => r.kind === 'part-to-part')).toEqual([]);
  });

  it('folder duplicates: the folder’s copies form one cluster; the mirrored and the flange stay out', async () => {
    const folder = (await svc.model(id.original!)).folderId;
    const { status, body } = await get(`/v2/folders/${folder}/duplicates`);
    expect(status, JSON.stringify(body)).toBe(200);
    const r = folderDuplicatesResponseSchema.parse(body);
    expect(r.threshold).toBe(98);
    expect(r.modelCount).toBe(5); // bracket, glb copy, mirrored, twice the size, flange (the obj copy is in a subfolder)
    expect(r.clusters).toHaveLength(1);
    expect(r.clusters[0]!.models.map((m) => m.id).sort()).toEqual([id.original, id.glbCopy].sort());
    expect(r.clusters[0]!.links[0]!.matchPercentage).toBeGreaterThanOrEqual(98);
    // Beside the cluster: the mirror image and the scaled copy of the bracket, each as a relation, with their models.
    const relationOf = (x: string, y: string) => r.relations?.find((l) => [l.a, l.b].sort().join() === [x, y].sort().join());
    expect(relationOf(id.mirrored!, id.original!)?.relation).toBe('mirrored');
    const twice = relationOf(id.scaled!, id.original!);
    expect(twice?.relation).toBe('scaled');
    expect(twice!.b === id.scaled ? twice!.scale : 1 / twice!.scale!).toBeCloseTo(2, 2);
    expect(r.relations!.every((l) => l.relation === 'mirrored' || l.relation === 'scaled')).toBe(true);
    expect(r.relatedModels!.map((m) => m.id)).toEqual(expect.arrayContaining([id.mirrored, id.scaled, id.original]));
    expect(r.relations!.some((l) => [l.a, l.b].includes(id.flange!))).toBe(false);
    const loose = folderDuplicatesResponseSchema.parse((await get(`/v2/folders/${folder}/duplicates?threshold=0`)).body);
    // At threshold 0 every pair is linked by its descriptor score — the mirror image and the scaled
    // copy not to the bracket (relations are never links) but through the flange.
    expect(loose.clusters[0]!.models).toHaveLength(5);
    expect((await get(`/v2/folders/999999/duplicates`)).status).toBe(404);
  });

  it('where used and part list: the STEP assembly references its two part files; the list counts them, also as CSV', async () => {
    const used = whereUsedResponseSchema.parse((await get(`/v2/models/${id['HEAD_FRONT.stp']}/where-used`)).body);
    expect(used.assemblies.map((a) => [a.model.id, a.by, a.quantity])).toEqual([[id['HEAD.stp'], 'reference', 1]]);
    const list = partListResponseSchema.parse((await get(`/v2/models/${id['HEAD.stp']}/part-list`)).body);
    expect(list.parts.map((p) => [p.modelId, p.filePath, p.quantity, p.state])).toEqual(
      expect.arrayContaining([
        [id['HEAD_BACK.stp'], 'plane/HEAD_BACK.stp', 1, expect.stringMatching(/^finished/)],
        [id['HEAD_FRONT.stp'], 'plane/HEAD_FRONT.stp', 1, expect.stringMatching(/^finished/)],
      ]),
    );
    expect(list.parts).toHaveLength(2);
    expect(list.parts.every((p) => p.units === 'mm')).toBe(true);
    const csv = await svc.api(`/v2/models/${id['HEAD.stp']}/part-list?format=csv`, { token: svc.token });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines[0]).toBe('Name,Path,Quantity,State,Units,Model id');
    expect(lines).toHaveLength(3);
    expect(lines.some((l) => l.includes('plane/HEAD_FRONT.stp,1,'))).toBe(true);
    expect((await get(`/v2/models/${id['HEAD.stp']}/part-list?format=pdf`)).status).toBe(400);
  });

  it('added duplicates: of the models asked about, the copies of an earlier model; never the first, a mirror image or a scaled copy', async () => {
    const asked = ['original', 'glbCopy', 'objCopy', 'mirrored', 'scaled', 'flange'].map((k) => id[k]!);
    const byIds = await get(`/v2/models/added-duplicates?modelIds=${asked.join(',')}&modelIds=${id.objCopy}`);
    expect(byIds.status, JSON.stringify(byIds.body)).toBe(200);
    const r = addedDuplicatesResponseSchema.parse(byIds.body);
    expect(r).toMatchObject({ checked: 6, pending: 0 });
    const of = (model: string) => r.results.find((x) => x.model.id === model)?.duplicates.map((d) => d.matchedModel.id);
    // Uploaded in this order: each copy duplicates what was there before it.
    expect(r.results.map((x) => x.model.id).sort()).toEqual([id.glbCopy, id.objCopy].sort());
    expect(of(id.glbCopy!)).toEqual([id.original]);
    expect(of(id.objCopy!)?.sort()).toEqual([id.original, id.glbCopy].sort());
    for (const x of r.results) for (const d of x.duplicates) expect(d.matchPercentage).toBeGreaterThanOrEqual(98);
    // The same answer as the copy's own match list at 98.
    const listed = await similarity('part-to-part', id.glbCopy!, '?threshold=98');
    expect(listed.matches.map((m) => m.matchedModel.id)).toContain(id.original);

    // Since a time, in a folder with its subfolders (the obj copy is in parts/other).
    const original = await svc.model(id.original!);
    const since = encodeURIComponent(original.createdAt);
    const inFolder = addedDuplicatesResponseSchema.parse(
      (await get(`/v2/models/added-duplicates?since=${since}&folderIds=${original.folderId}`)).body,
    );
    expect(inFolder.results.map((x) => x.model.id).sort()).toEqual([id.glbCopy, id.objCopy].sort());
    const shallow = addedDuplicatesResponseSchema.parse(
      (await get(`/v2/models/added-duplicates?since=${since}&folderIds=${original.folderId}&includeSubfolders=false`)).body,
    );
    expect(shallow.results.map((x) => x.model.id)).toEqual([id.glbCopy]);
    const later = addedDuplicatesResponseSchema.parse((await get(`/v2/models/added-duplicates?since=2999-01-01T00:00:00Z`)).body);
    expect(later).toMatchObject({ results: [], checked: 0 });

    // Clear refusals; another tenant learns nothing of our models.
    expect((await get('/v2/models/added-duplicates')).body).toMatchObject({
      error: { message: expect.stringMatching(/modelIds, or since/) },
    });
    expect((await get('/v2/models/added-duplicates?since=yesterday')).status).toBe(400);
    expect((await get('/v2/models/added-duplicates?since=2020-01-01T00:00:00Z&folderIds=999999')).status).toBe(404);
    const other = await svc.editorToken('globex');
    const theirs = await get(`/v2/models/added-duplicates?modelIds=${asked.join(',')}`, other);
    expect(theirs.body).toMatchObject({ results: [], checked: 0, pending: 0 });
  });

  it('deviation report: a turned copy lies on the original within tolerance both ways; a PDF to hand on; a pair without a placement is refused', async () => {
    const report = async (model: string, body: Record<string, unknown>) => {
      const res = await svc.api(`/v2/models/${model}/deviation-report`, { method: 'POST', token: svc.token, json: body });
      return res;
    };
    const json = await report(id.glbCopy!, { otherId: id.original, format: 'json' });
    const figures = deviationFiguresSchema.parse(await json.json());
    expect(figures.placementSource).toMatch(/part-to-part alignment/);
    expect(figures.units).toBe('mm');
    expect(figures.tolerance).toBeGreaterThan(0);
    for (const way of [figures.aToB, figures.bToA]) {
      expect(way.within).toBeGreaterThan(0.98);
      expect(way.max).toBeLessThan(figures.tolerance * 2);
      expect(way.histogram.shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    }
    // The same in inches, with a tolerance given in inches.
    const inches = deviationFiguresSchema.parse(
      await (await report(id.glbCopy!, { otherId: id.original, format: 'json', units: 'in', tolerance: 0.004 })).json(),
    );
    expect(inches).toMatchObject({ units: 'in', tolerance: 0.004 });
    expect(inches.aToB.max).toBeCloseTo(figures.aToB.max / 25.4, 4);

    // A different part with no placement: refused; placed by hand (as it lies): measured, and far off.
    const none = await report(id.flange!, { otherId: id.original, format: 'json' });
    expect(none.status).toBe(409);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/give one as transform/);
    const placed = deviationFiguresSchema.parse(
      await (
        await report(id.flange!, { otherId: id.original, format: 'json', transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] })
      ).json(),
    );
    expect(placed.placementSource).toBe('given with the request');
    expect(placed.aToB.within).toBeLessThan(0.5);

    const pdf = await report(id.glbCopy!, { otherId: id.original, units: 'in' });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await pdf.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getTitle()).toBe('Deviation report: bracket-copy.glb against bracket.stl');
    expect(doc.getSubject()).toMatch(/^Within ±0\.\d+ in: \d+\.\d % of bracket-copy\.glb/);

    expect((await report(id.original!, { otherId: id.original, format: 'json' })).status).toBe(400);
    const other = await svc.editorToken('globex');
    const theirs = await svc.api(`/v2/models/${id.glbCopy}/deviation-report`, {
      method: 'POST',
      token: other,
      json: { otherId: id.original },
    });
    expect(theirs.status).toBe(404);
  });

  it('cached results follow changes of the tenant’s models: a deleted copy is gone at once', async () => {
    const before = await similarity('part-to-part', id.original!, '?threshold=98');
    expect(before.matchCount).toBe(2);
    expect((await svc.api(`/v2/models/${id.glbCopy}`, { method: 'DELETE', token: svc.token })).status).toBe(204);
    const after = await similarity('part-to-part', id.original!, '?threshold=98');
    expect(after.matches.map((m) => m.matchedModel.id)).toEqual([id.objCopy]);
    // Its stored pairs went with it (both directions), the survivors' pair stays.
    expect(await pairRows(id.glbCopy!)).toEqual([]);
    expect(await pairRow('part-to-part', id.original!, id.objCopy!)).toBeDefined();
  });
});
