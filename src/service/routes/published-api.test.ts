// Conformance to the published API (Physna Public API 2.0.1, src/service/testing/published-api): every
// operation the service shares with that document is called on the really started service, and
// its live answer — success and error — is validated against the document's schema, read at test
// time. Our extra fields are allowed (the document's `additionalProperties: false` is lifted).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { box, flange, toStlBinary } from '../../geometry/testing/fixtures';
import { benchPhoto } from '../testing/test-photos';
import { readTestFile, startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';

const documentPath = fileURLToPath(new URL('../testing/published-api/physna-openapi-2.0.1.facts.json', import.meta.url));

interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
}

/** The document with `additionalProperties: false` removed: our additions are allowed beside the published fields. */
function loadDocument(): OpenApi & Record<string, unknown> {
  const lift = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(lift);
    if (node && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) if (!(k === 'additionalProperties' && v === false)) out[k] = lift(v);
      return out;
    }
    return node;
  };
  return lift(JSON.parse(readFileSync(documentPath, 'utf8'))) as OpenApi & Record<string, unknown>;
}

const document = loadDocument();
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(document, 'published');

/** The published schema of `method path` for `status` (our 201 is checked against a published 200). */
function validatorFor(method: string, pathname: string, status: number): ValidateFunction | undefined {
  const responses = document.paths[pathname]?.[method.toLowerCase()]?.responses;
  if (!responses) throw new Error(`the published document has no ${method} ${pathname}`);
  const key = responses[String(status)] ? String(status) : status < 300 ? Object.keys(responses).find((k) => k.startsWith('2')) : undefined;
  const schema = key ? responses[key]?.content?.['application/json']?.schema : undefined;
  if (!schema) return undefined;
  const ref = (schema as { $ref?: string }).$ref;
  return ref ? ajv.getSchema(`published${ref}`) : ajv.compile(schema);
}

interface Call {
  /** The published path template (without /v2). */
  operation: string;
  method: string;
  /** The path actually called, with ids. */
  url: string;
  json?: unknown;
  status: number;
}

let svc: IngestTestService;
const ids: Record<string, string> = {};
const results: { call: string; ok: boolean; errors: string }[] = [];

beforeAll(async () => {
  svc = await startIngestTestService();
  ids.box = await svc.upload('Published/box.stl', toStlBinary((await box()).mesh));
  ids.boxCopy = await svc.upload('Published/box-copy.stl', toStlBinary((await box()).mesh));
  ids.flange = await svc.upload('Published/Sub/flange.stl', toStlBinary((await flange()).mesh));
  for (const f of ['HEAD_FRONT.stp', 'HEAD_BACK.stp', 'HEAD.stp'])
    ids[f] = await svc.upload(`Plane/${f}`, readTestFile('cax-if', 's1-c5-214', f));
  await svc.ingestion.idle();
}, 300_000);
afterAll(async () => {
  console.log(
    `published API conformance:\n${results.map((r) => `${r.ok ? '✓' : '✗'} ${r.call}${r.ok ? '' : `  ${r.errors}`}`).join('\n')}`,
  );
  await svc?.stop();
});

async function check({ operation, method, url, json, status }: Call) {
  const response = await svc.api(url, { method, token: svc.token, json });
  const text = await response.text();
  const name = `${method} ${operation} → ${status}`;
  expect(response.status, `${name}: ${text}`).toBe(status);
  const validate = validatorFor(method, operation, status);
  if (!validate) {
    results.push({ call: name, ok: true, errors: '' });
    return text ? (JSON.parse(text) as unknown) : undefined;
  }
  const body = JSON.parse(text) as unknown;
  const ok = validate(body) === true;
  const errors = ajv.errorsText(validate.errors);
  results.push({ call: name, ok, errors });
  expect(ok, `${name} does not conform: ${errors}\n${text.slice(0, 400)}`).toBe(true);
  return body;
}

describe('the published API (Physna Public API 2.0.1)', () => {
  it('models: list, one, create, metadata, viewer file, assembly tree, reprocess, delete', async () => {
    await check({ operation: '/models/{id}', method: 'GET', url: `/v2/models/${ids.box}`, status: 200 });
    await check({ operation: '/models', method: 'GET', url: '/v2/models?perPage=5', status: 200 });
    await check({ operation: '/models', method: 'GET', url: '/v2/models?filter=nonsense(', status: 400 });
    await check({ operation: '/models/{id}', method: 'GET', url: '/v2/models/00000000-0000-4000-8000-000000000000', status: 404 });
    await check({
      operation: '/models',
      method: 'POST',
      url: '/v2/models?createMissingFolders=true',
      json: { models: [{ filePath: 'Published/new.stl', name: 'new' }] },
      status: 201,
    });
    const key = (await check({
      operation: '/metadata-keys',
      method: 'POST',
      url: '/v2/metadata-keys',
      json: { metadataKeyName: 'material' },
      status: 201,
    })) as { metadataKey: { id: number } };
    await check({ operation: '/metadata-keys', method: 'GET', url: '/v2/metadata-keys', status: 200 });
    await check({
      operation: '/models/{id}/metadata/{metadataKeyId}',
      method: 'PUT',
      url: `/v2/models/${ids.box}/metadata/${key.metadataKey.id}`,
      json: { value: 'steel' },
      status: 200,
    });
    await check({ operation: '/models/{id}', method: 'GET', url: `/v2/models/${ids.box}`, status: 200 });
    await check({
      operation: '/models/{id}/metadata/{metadataKeyId}',
      method: 'DELETE',
      url: `/v2/models/${ids.box}/metadata/${key.metadataKey.id}`,
      status: 200,
    });
    await check({ operation: '/models/{id}/viewer-file', method: 'GET', url: `/v2/models/${ids.box}/viewer-file`, status: 200 });
    await check({ operation: '/models/{id}/assembly-tree', method: 'GET', url: `/v2/models/${ids.box}/assembly-tree`, status: 200 });
    const tree = (await check({
      operation: '/models/{id}/assembly-tree',
      method: 'GET',
      url: `/v2/models/${ids['HEAD.stp']}/assembly-tree`,
      status: 200,
    })) as { children: { type: string }[] };
    expect(tree.children.map((c) => c.type)).toEqual(['assemblyPart', 'assemblyPart']);
    const [doomed] = await svc.create(['Published/doomed.stl']);
    await check({ operation: '/models/{id}', method: 'DELETE', url: `/v2/models/${doomed!.id}`, status: 204 });
    // Ours answers 200 with the model (the published 202 has no body).
    await check({ operation: '/models/{id}/reprocess', method: 'POST', url: `/v2/models/${ids.boxCopy}/reprocess`, status: 200 });
    await check({
      operation: '/models/{id}/reprocess',
      method: 'POST',
      url: '/v2/models/00000000-0000-4000-8000-000000000000/reprocess',
      status: 404,
    });
  });

  it('matches: part-to-part, part-in-part, geo-related', async () => {
    await check({
      operation: '/models/{id}/part-to-part-matches',
      method: 'GET',
      url: `/v2/models/${ids.box}/part-to-part-matches?threshold=0`,
      status: 200,
    });
    await check({
      operation: '/models/{id}/part-in-part-matches',
      method: 'GET',
      url: `/v2/models/${ids.box}/part-in-part-matches?threshold=0`,
      status: 200,
    });
    await check({
      operation: '/models/{id}/geo-related-matches',
      method: 'GET',
      url: `/v2/models/${ids.box}/geo-related-matches?threshold=0`,
      status: 200,
    });
  });

  it('folders: list, create, one, rename, delete', async () => {
    await check({ operation: '/folders', method: 'GET', url: '/v2/folders', status: 200 });
    const created = (await check({
      operation: '/folders',
      method: 'POST',
      url: '/v2/folders',
      json: { name: 'Published new' },
      status: 201,
    })) as { folder: { id: number } };
    await check({ operation: '/folders/{id}', method: 'GET', url: `/v2/folders/${created.folder.id}`, status: 200 });
    await check({
      operation: '/folders/{id}',
      method: 'PATCH',
      url: `/v2/folders/${created.folder.id}`,
      json: { name: 'Published renamed' },
      status: 200,
    });
    await check({ operation: '/folders/{id}', method: 'DELETE', url: `/v2/folders/${created.folder.id}`, status: 204 });
  });

  it('images: create, search', async () => {
    const created = (await check({
      operation: '/images',
      method: 'POST',
      url: '/v2/images',
      json: { filename: 'photo.png' },
      status: 201,
    })) as { image: { id: string; uploadUrl: string; headers: Record<string, string> } };
    await check({ operation: '/images', method: 'POST', url: '/v2/images', json: {}, status: 400 });
    const photo = await benchPhoto((await flange()).mesh, 3);
    const put = await fetch(created.image.uploadUrl, { method: 'PUT', headers: created.image.headers, body: new Uint8Array(photo.bytes) });
    expect(put.status, await put.text()).toBe(200);
    const found = (await check({
      operation: '/images/model-matches',
      method: 'GET',
      url: `/v2/images/model-matches?id=${created.image.id}`,
      status: 200,
    })) as { images: { url: string }[] };
    expect(found.images[0]?.url).toMatch(/^data:image\/jpeg;base64,/);
    await check({
      operation: '/images/model-matches',
      method: 'GET',
      url: '/v2/images/model-matches?id=00000000-0000-4000-8000-000000000000',
      status: 404,
    });
  });

  it('the newer match names, reports, metadata, source file, folder contents, the current user', async () => {
    await svc.ingestion.idle(); // the reprocess asked for above has ended
    await check({ operation: '/models/{id}/matches', method: 'GET', url: `/v2/models/${ids.box}/matches?threshold=0`, status: 200 });
    await check({
      operation: '/models/{id}/part-matches',
      method: 'GET',
      url: `/v2/models/${ids.box}/part-matches?threshold=0`,
      status: 200,
    });
    const model = (await (await svc.api(`/v2/models/${ids.box}`, { token: svc.token })).json()) as { model: { folderId: number } };
    const folder = model.model.folderId;
    const states = (await check({
      operation: '/models/state-report',
      method: 'GET',
      url: `/v2/models/state-report?folderIds=${folder}`,
      status: 200,
    })) as { states: Record<string, number> };
    expect(states.states.finished).toBeGreaterThanOrEqual(3);
    const report = (await check({
      operation: '/models/match-report',
      method: 'GET',
      url: `/v2/models/match-report?threshold=98&folderIds=${folder}`,
      status: 200,
    })) as { results: { model: { id: string }; matchCount: number }[] };
    expect(report.results.map((r) => [r.model.id, r.matchCount]).sort()).toEqual(
      [
        [ids.box, 1],
        [ids.boxCopy, 1],
      ].sort(),
    );
    const grouped = (await check({
      operation: '/models/grouped-match-report',
      method: 'GET',
      url: `/v2/models/grouped-match-report?threshold=98&folderIds=${folder}`,
      status: 200,
    })) as { groups: { modelIds: string[] }[] };
    expect(grouped.groups.map((g) => [...g.modelIds].sort())).toEqual([[ids.box, ids.boxCopy].sort()]);
    await check({
      operation: '/models/grouped-match-report',
      method: 'GET',
      url: '/v2/models/grouped-match-report?threshold=98&folderIds=999999',
      status: 404,
    });
    const source = (await check({
      operation: '/models/{id}/source-file',
      method: 'GET',
      url: `/v2/models/${ids.box}/source-file`,
      status: 200,
    })) as { sourceFile: string };
    const download = await fetch(source.sourceFile);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''box.stl`);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(toStlBinary((await box()).mesh));
    const key = (await check({
      operation: '/metadata-keys',
      method: 'POST',
      url: '/v2/metadata-keys',
      json: { name: 'finish' },
      status: 201,
    })) as { metadataKey: { id: number } };
    await check({ operation: '/metadata-keys/{id}', method: 'GET', url: `/v2/metadata-keys/${key.metadataKey.id}`, status: 200 });
    await check({ operation: '/metadata-keys/{id}', method: 'GET', url: '/v2/metadata-keys/999999', status: 404 });
    await check({
      operation: '/models/{id}/metadata/{metadataKeyId}',
      method: 'PUT',
      url: `/v2/models/${ids.flange}/metadata/${key.metadataKey.id}`,
      json: { value: 'anodised' },
      status: 200,
    });
    await check({ operation: '/models/{id}/metadata', method: 'GET', url: `/v2/models/${ids.flange}/metadata`, status: 200 });
    const all = (await check({ operation: '/metadata', method: 'GET', url: `/v2/metadata?modelIds=${ids.flange}`, status: 200 })) as {
      metadata: { value: string }[];
    };
    expect(all.metadata.map((m) => m.value)).toEqual(['anodised']);
    const contents = (await check({
      operation: '/folders/{id}/contents',
      method: 'GET',
      url: `/v2/folders/${folder}/contents`,
      status: 200,
    })) as { data: { type: string; name: string }[] };
    expect(contents.data.map((d) => `${d.type}:${d.name}`)).toEqual(['folder:Sub', 'model:box-copy.stl', 'model:box.stl', 'model:new']);
    const me = (await check({ operation: '/users/me', method: 'GET', url: '/v2/users/me', status: 200 })) as { roles: string[] };
    expect([...me.roles].sort()).toEqual(['Authors', 'Viewers']);
  });

  it('bulk delete: all or nothing, at most 100', async () => {
    const [a, b] = await svc.create(['Bulk/a.stl', 'Bulk/b.stl']);
    await check({
      operation: '/models',
      method: 'DELETE',
      url: `/v2/models?ids=${a!.id}&ids=00000000-0000-4000-8000-000000000000`,
      status: 404,
    });
    expect((await svc.api(`/v2/models/${a!.id}`, { token: svc.token })).status).toBe(200);
    await check({ operation: '/models', method: 'DELETE', url: `/v2/models?ids=${a!.id},${b!.id}`, status: 204 });
    expect((await svc.api(`/v2/models/${b!.id}`, { token: svc.token })).status).toBe(404);
    const tooMany = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect((await svc.api(`/v2/models?${tooMany.map((id) => `ids=${id}`).join('&')}`, { method: 'DELETE', token: svc.token })).status).toBe(
      413,
    );
  });

  it('the published tenant header is honoured like ours', async () => {
    const tenant = (await (await svc.api('/v2/users/me', { token: svc.token })).json()) as { tenants: string[] };
    expect((await svc.api('/v2/folders', { token: svc.token, headers: { 'X-PHYSNA-TENANTID': tenant.tenants[0]! } })).status).toBe(200);
    const refused = await svc.api('/v2/folders', { token: svc.token, headers: { 'X-PHYSNA-TENANTID': 'someone-else' } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/X-PHYSNA-TENANTID/);
  });

  it('client credentials', async () => {
    await check({ operation: '/client-credentials', method: 'POST', url: '/v2/client-credentials', json: {}, status: 201 });
    const listed = (await check({ operation: '/client-credentials', method: 'GET', url: '/v2/client-credentials', status: 200 })) as {
      clientId: string;
    };
    await check({
      operation: '/client-credentials/{clientId}',
      method: 'DELETE',
      url: `/v2/client-credentials/${listed.clientId}`,
      status: 204,
    });
    await check({
      operation: '/client-credentials/{clientId}',
      method: 'DELETE',
      url: `/v2/client-credentials/${listed.clientId}`,
      status: 404,
    });
  });

  it("is documented at /docs/openapi.json (OpenAPI 3.1) from the routes' contract schemas, every operation with its answer", async () => {
    const response = await fetch(`${svc.baseUrl}/docs/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const operations = results.map((r) => r.call.split(' → ')[0]!).filter((c, i, all) => all.indexOf(c) === i);
    for (const operation of operations) {
      const [method, template] = operation.split(' ') as [string, string];
      const path = template === '/client-credentials' || template.startsWith('/client-credentials/') ? template : `/v2${template}`;
      const documented = doc.paths[path]?.[method.toLowerCase()];
      expect(documented, `${operation} is not documented`).toBeDefined();
      const success = Object.entries(documented!.responses).find(([status]) => status.startsWith('2'));
      expect(success, `${operation} documents no success answer`).toBeDefined();
      if (success![0] !== '204') expect(success![1].content?.['application/json']?.schema, `${operation}: no schema`).toBeDefined();
    }
    // The schemas are the contract's: the model record documents the published fields we added.
    const model = JSON.stringify(doc.paths['/v2/models/{id}']?.get?.responses['200']);
    for (const field of ['ownerId', 'units', 'filePath', 'stateReason']) expect(model).toContain(`"${field}"`);
    const page = await fetch(`${svc.baseUrl}/docs`);
    expect(page.status).toBe(200);
  });
});
