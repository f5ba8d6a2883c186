// The strict deployment (PUBLISHED_FIELDS_ONLY): answers carry only the published document's
// fields, so they pass its schemas with `additionalProperties: false` kept, while our own
// operations answer as usual. Checked on a really started service, against the document read
// from the in-repo facts of the document (src/service/testing/published-api).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { box, toStlBinary } from '../../geometry/testing/fixtures';
import { startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';

const documentPath = fileURLToPath(new URL('../testing/published-api/physna-openapi-2.0.1.facts.json', import.meta.url));
const document = JSON.parse(readFileSync(documentPath, 'utf8')) as { components: { schemas: Record<string, unknown> } };
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(document, 'published');
const schema = (name: string) => ajv.getSchema(`published#/components/schemas/${name}`)!;

let svc: IngestTestService;
let modelId: string;

beforeAll(async () => {
  svc = await startIngestTestService({}, { publishedFieldsOnly: documentPath });
  modelId = await svc.upload('Strict/box.stl', toStlBinary((await box()).mesh));
  await svc.ingestion.idle();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

async function get(url: string) {
  const response = await svc.api(url, { token: svc.token });
  expect(response.status, url).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('PUBLISHED_FIELDS_ONLY', () => {
  it('a model carries the published fields and none of ours', async () => {
    const { model } = (await get(`/v2/models/${modelId}`)) as { model: Record<string, unknown> };
    const validate = schema('ModelWithMetadata');
    expect(validate(model), ajv.errorsText(validate.errors)).toBe(true);
    expect(model).toMatchObject({ id: modelId, fileName: 'box.stl', state: 'finished' });
    for (const ours of ['filePath', 'stateReason', 'viewerFile', 'missingParts', 'facts']) expect(model).not.toHaveProperty(ours);
  });

  it('lists and matches are written from the published schemas too', async () => {
    const list = (await get('/v2/models?perPage=5')) as { models: Record<string, unknown>[] };
    expect(list.models.length).toBe(1);
    expect(list.models[0]).not.toHaveProperty('filePath');
    const matches = (await get(`/v2/models/${modelId}/part-to-part-matches?threshold=0`)) as {
      matches: { matchedModel: Record<string, unknown> }[];
    };
    for (const m of matches.matches) expect(m.matchedModel).not.toHaveProperty('filePath');
    const folders = (await get('/v2/folders')) as { folders: Record<string, unknown>[] };
    const validate = schema('Folder');
    for (const f of folders.folders) expect(validate(f), ajv.errorsText(validate.errors)).toBe(true);
  });

  it('errors keep the published error shape', async () => {
    const response = await svc.api('/v2/models/00000000-0000-4000-8000-000000000000', { token: svc.token });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: Record<string, unknown> };
    const validate = schema('ErrorResponse');
    expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
    expect(body.error.message).toMatch(/model/i);
  });
});
