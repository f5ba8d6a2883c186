// Classes proposed from examples over HTTP, against the really started service with real
// ingestion: a few models of three kinds of part get a Category; every other model is proposed
// the category of its nearest examples, and accepted proposals become metadata.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptProposalsResponseSchema, classProposalsResponseSchema, metadataKeyResponseSchema } from '../../contract/metadata-keys';
import { modelResponseSchema } from '../../contract/models';
import { buildPart } from '../../geometry/testing/benchmark-dataset';
import { toStlBinary } from '../../geometry/testing/fixtures';
import { startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';

describe('classes proposed from examples', () => {
  let svc: IngestTestService;
  const id: Record<string, string> = {};
  let keyId: number;
  const kinds = { bracket: 'Bracket', plate: 'Plate', flange: 'Flange' } as const;

  beforeAll(async () => {
    svc = await startIngestTestService();
    for (const family of Object.keys(kinds) as (keyof typeof kinds)[])
      for (const variant of [0, 1, 2])
        id[`${family}${variant}`] = await svc.upload(
          `Parts/${family}/${family}-${variant}.stl`,
          toStlBinary(await buildPart(family, variant)),
        );
    await svc.ingestion.idle();
    const key = await svc.api('/v2/metadata-keys', { method: 'POST', token: svc.token, json: { name: 'Category' } });
    keyId = metadataKeyResponseSchema.parse(await key.json()).metadataKey.id;
    for (const [family, value] of Object.entries(kinds)) {
      const set = await svc.api(`/v2/models/${id[`${family}0`]}/metadata/${keyId}`, { method: 'PUT', token: svc.token, json: { value } });
      expect(set.status).toBe(200);
    }
  }, 300_000);
  afterAll(() => svc?.stop());

  const proposals = async (query = '', token = svc.token) => {
    const res = await svc.api(`/v2/metadata-keys/${keyId}/proposals${query}`, { token });
    const body = (await res.json()) as unknown;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return classProposalsResponseSchema.parse(body);
  };

  it('proposes each unlabelled model the kind of its nearest examples, most confident first', async () => {
    const r = await proposals('?perPage=100');
    expect(r).toMatchObject({ metadataKey: { id: keyId, name: 'Category' }, labelled: 3, unlabelled: 6 });
    for (const p of r.proposals) {
      const family = Object.keys(kinds).find((f) => p.model.filePath.includes(`/${f}/`)) as keyof typeof kinds;
      expect(p.value, p.model.filePath).toBe(kinds[family]);
      expect(p.neighbours).toHaveLength(3);
      expect(p.neighbours[0]!.value).toBe(p.value);
      expect(p.neighbours[0]!.name).toMatch(/-0\.stl$/);
    }
    const confidences = r.proposals.map((p) => p.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    expect(r.values.map((v) => v.count)).toEqual([2, 2, 2]);

    // Filters: a value, a confidence, a folder.
    expect((await proposals('?value=Plate')).proposals.map((p) => p.value)).toEqual(['Plate', 'Plate']);
    // The confidence as answered selects: at the second highest, the proposals from there up.
    const second = confidences[1]!;
    expect((await proposals(`?minConfidence=${second}`)).pageData.total).toBe(confidences.filter((c) => c >= second).length);
    expect((await proposals(`?minConfidence=${Math.min(100, confidences[0]! + 0.1)}`)).pageData.total).toBe(
      confidences[0] === 100 ? confidences.filter((c) => c === 100).length : 0,
    );
    const folder = modelResponseSchema.parse(await (await svc.api(`/v2/models/${id.flange1}`, { token: svc.token })).json()).model.folderId;
    const inFolder = await proposals(`?folderIds=${folder}`);
    expect(inFolder.proposals.map((p) => p.model.id).sort()).toEqual([id.flange1, id.flange2].sort());
  });

  it('accepted and corrected proposals become metadata; only editors may; nothing is set when one model is unknown', async () => {
    const accept = (items: { modelId: string; value: string }[], token = svc.token) =>
      svc.api(`/v2/metadata-keys/${keyId}/proposals/accept`, { method: 'POST', token, json: { items } });
    const viewer = await svc.viewerToken();
    expect((await accept([{ modelId: id.plate1!, value: 'Plate' }], viewer)).status).toBe(403);
    const unknown = await accept([
      { modelId: id.plate1!, value: 'Plate' },
      { modelId: '00000000-0000-4000-8000-000000000000', value: 'Plate' },
    ]);
    expect(unknown.status).toBe(400);
    expect((await proposals()).unlabelled).toBe(6);

    const ok = await accept([
      { modelId: id.plate1!, value: 'Plate' },
      { modelId: id.bracket1!, value: 'Angle bracket' }, // corrected
    ]);
    expect(acceptProposalsResponseSchema.parse(await ok.json())).toEqual({ accepted: 2 });
    const after = await proposals('?perPage=100');
    expect(after).toMatchObject({ labelled: 5, unlabelled: 4 });
    const bracket1 = modelResponseSchema.parse(await (await svc.api(`/v2/models/${id.bracket1}`, { token: svc.token })).json()).model;
    expect(bracket1.metadata).toEqual([expect.objectContaining({ metadataKeyId: keyId, value: 'Angle bracket' })]);

    const other = await svc.editorToken('globex');
    expect((await svc.api(`/v2/metadata-keys/${keyId}/proposals`, { token: other })).status).toBe(404);
  });
});
