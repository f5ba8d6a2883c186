// Test-only helpers: a small in-memory service behind a stubbed fetch (the only thing replaced).
import { makeFolder } from '../../../api/testing/test-fixtures';
import { json, stubFetch } from '../../../api/testing/test-fetch';
export { makeFolder, makeModel } from '../../../api/testing/test-fixtures';
import type { Folder } from '../../../contract/folders';
import type { MetadataKey } from '../../../contract/metadata-keys';
import type { Model } from '../../../contract/models';

export interface FakeService {
  folders: Folder[];
  models: Model[];
  metadataKeys: MetadataKey[];
  /** Answers for GET /v2/models/{id} in turn (the last one repeats); default: the model from `models`. */
  modelAnswers?: Model[];
  listFails?: boolean;
  /** Answer of GET /v2/models/{id}/viewer-file; default 404. */
  viewerFile?: string;
  /** How many matches each kind's list counts (`part-to-part`, …); default 0. */
  matchCounts?: Record<string, number>;
}

const notFound = () => json({ error: { message: 'Not found.', code: 'not_found' } }, 404);

function page<T>(items: T[], url: URL) {
  const perPage = Number(url.searchParams.get('perPage') ?? 20);
  const current = Number(url.searchParams.get('page') ?? 1);
  const start = (current - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    pageData: {
      total: items.length,
      perPage,
      currentPage: current,
      lastPage: Math.max(1, Math.ceil(items.length / perPage)),
      startIndex: Math.min(items.length, start),
      endIndex: Math.min(items.length, start + perPage),
    },
  };
}

export function stubService(service: FakeService) {
  return stubFetch((url, init) => {
    const method = init?.method ?? 'GET';
    const p = url.pathname;
    if (p === '/v2/folders' && method === 'GET') {
      const { items, pageData } = page(service.folders, url);
      return json({ folders: items, pageData });
    }
    if (p === '/v2/folders' && method === 'POST') {
      const body = JSON.parse(String(init?.body)) as { name: string; parentFolderId: number | null };
      if (
        service.folders.some((f) => f.parentFolderId === (body.parentFolderId ?? null) && f.name.toLowerCase() === body.name.toLowerCase())
      ) {
        return json({ error: { message: `A folder named "${body.name}" already exists here.`, code: 'conflict' } }, 409);
      }
      const folder = makeFolder(100 + service.folders.length, body.name, body.parentFolderId ?? null);
      service.folders.push(folder);
      return json({ folder }, 201);
    }
    const folderMatch = /^\/v2\/folders\/(\d+)$/.exec(p);
    if (folderMatch) {
      const folder = service.folders.find((f) => f.id === Number(folderMatch[1]));
      if (!folder) return notFound();
      if (method === 'DELETE') {
        if ((folder.modelCount ?? 0) > 0) return json({ error: { message: 'The folder is not empty.', code: 'conflict' } }, 409);
        service.folders = service.folders.filter((f) => f !== folder);
        return new Response(null, { status: 204 });
      }
      return json({ folder });
    }
    if (p === '/v2/models' && method === 'GET') {
      if (service.listFails) return new Response('down', { status: 503 });
      const { items, pageData } = page(service.models, url);
      return json({ models: items, pageData });
    }
    if (p === '/v2/models' && method === 'DELETE') {
      const ids = url.searchParams.getAll('ids').flatMap((v) => v.split(','));
      if (ids.some((id) => !service.models.some((m) => m.id === id))) return notFound();
      service.models = service.models.filter((m) => !ids.includes(m.id));
      return new Response(null, { status: 204 });
    }
    if (p === '/v2/metadata-keys' && method === 'GET') {
      const { items, pageData } = page(service.metadataKeys, url);
      return json({ metadataKeys: items, pageData });
    }
    const modelMatch = /^\/v2\/models\/([^/]+)(\/.*)?$/.exec(p);
    if (modelMatch) {
      const id = decodeURIComponent(modelMatch[1] ?? '');
      const rest = modelMatch[2] ?? '';
      const model = service.models.find((m) => m.id === id);
      if (!model) return notFound();
      if (rest === '' && method === 'GET') {
        const next = service.modelAnswers && service.modelAnswers.length > 1 ? service.modelAnswers.shift() : service.modelAnswers?.[0];
        return json({ model: next ?? model });
      }
      if (rest === '' && method === 'PATCH') {
        const { folderId } = JSON.parse(String(init?.body)) as { folderId: number };
        const folder = service.folders.find((f) => f.id === folderId);
        if (!folder) return json({ error: { message: `folderId: there is no folder ${folderId}.`, code: 'invalid_input' } }, 400);
        Object.assign(model, { folderId, filePath: `${folder.path}/${model.filePath.slice(model.filePath.lastIndexOf('/') + 1)}` });
        return json({ model });
      }
      if (rest === '' && method === 'DELETE') {
        service.models = service.models.filter((m) => m !== model);
        return new Response(null, { status: 204 });
      }
      const meta = /^\/metadata\/(\d+)$/.exec(rest);
      if (meta && method === 'PUT') {
        const keyId = Number(meta[1]);
        const { value } = JSON.parse(String(init?.body)) as { value: string };
        model.metadata = [...model.metadata.filter((m) => m.metadataKeyId !== keyId), { metadataKeyId: keyId, value }];
        return new Response(null, { status: 204 });
      }
      if (meta && method === 'DELETE') {
        model.metadata = model.metadata.filter((m) => m.metadataKeyId !== Number(meta[1]));
        return new Response(null, { status: 204 });
      }
      if (rest === '/viewer-file') return service.viewerFile ? json({ viewerFile: service.viewerFile }) : notFound();
      const kind = /^\/(part-to-part|part-in-part|geo-related)-matches$/.exec(rest)?.[1];
      if (kind) {
        const total = service.matchCounts?.[kind] ?? 0;
        return json({
          matches: [],
          matchCount: total,
          pageData: { total, perPage: 1, currentPage: 1, lastPage: Math.max(1, total), startIndex: 0, endIndex: 0 },
        });
      }
      if (rest === '/assembly-tree') return json({ type: 'assemblyTree', modelId: id, children: [] });
    }
    return notFound();
  });
}
