import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderListResponseSchema, folderResponseSchema, type Folder } from '../../../contract/folders';
import { createModelsResponseSchema } from '../../../contract/models';
import { expectApiError as error } from '../../testing/api-expect';
import { startTestService, type TestService } from '../../testing/start-test-service';

let t: TestService;
let editor: string;
let viewer: string;
let other: string;

beforeAll(async () => {
  t = await startTestService();
  [editor, viewer, other] = await Promise.all([t.editorToken('acme'), t.viewerToken('acme'), t.editorToken('globex')]);
});
afterAll(() => t?.stop());

async function create(body: unknown, token = editor, query = ''): Promise<Response> {
  return t.api(`/v2/folders${query}`, { method: 'POST', token, ...(body === undefined ? {} : { json: body }) });
}

async function created(name: string, parentFolderId?: number): Promise<Folder> {
  const response = await create({ name, ...(parentFolderId === undefined ? {} : { parentFolderId }) });
  expect(response.status, name).toBe(201);
  return folderResponseSchema.parse(await response.json()).folder;
}

async function list(query: string, token = editor) {
  const response = await t.api(`/v2/folders${query}`, { token });
  expect(response.status, query).toBe(200);
  return folderListResponseSchema.parse(await response.json());
}

describe('folders', () => {
  it('creates nested folders from JSON or query parameters, with path and model count', async () => {
    const root = await created('Fixtures');
    expect(root).toMatchObject({ name: 'Fixtures', path: 'Fixtures', modelCount: 0 });
    expect(root).not.toHaveProperty('parentFolderId'); // a number or nothing, as published
    const child = await created('Clamps', root.id);
    expect(child).toMatchObject({ parentFolderId: root.id, path: 'Fixtures/Clamps' });
    const viaQuery = await create(undefined, editor, `?name=Vises&parentFolderId=${child.id}`);
    expect(viaQuery.status).toBe(201);
    expect(folderResponseSchema.parse(await viaQuery.json()).folder.path).toBe('Fixtures/Clamps/Vises');

    // modelCount is real: models created in the folder count
    const models = await t.api('/v2/models', {
      method: 'POST',
      token: editor,
      json: {
        models: [
          { filePath: 'Fixtures/Clamps/a.stl', name: 'a' },
          { filePath: 'Fixtures/Clamps/b.stl', name: 'b' },
        ],
      },
    });
    expect(models.status).toBe(201);
    createModelsResponseSchema.parse(await models.json());
    const got = await t.api(`/v2/folders/${child.id}`, { token: viewer });
    expect(folderResponseSchema.parse(await got.json()).folder).toMatchObject({ id: child.id, modelCount: 2 });
  });

  it('enforces the name rules and case-insensitive sibling uniqueness', async () => {
    for (const bad of [
      '',
      'a/b',
      'x:y',
      'q?',
      'star*',
      'pipe|',
      'quote"',
      'hash#',
      'lt<',
      '[x]',
      'back\\slash',
      'line\nbreak',
      '.',
      '..',
      'n'.repeat(101),
    ]) {
      const e = await error(await create({ name: bad }), 400);
      expect(e.message, JSON.stringify(bad)).toMatch(/^name: /);
    }
    expect((await create({ name: 'n'.repeat(100) })).status).toBe(201);
    const parent = await created('Unique');
    await created('Bolts', parent.id);
    expect((await error(await create({ name: 'BOLTS', parentFolderId: parent.id }), 409)).message).toMatch(/already exists/);
    await created('bolts'); // same name elsewhere (at the root) is fine
    expect((await error(await create({ name: 'x', parentFolderId: 999999 }), 400)).message).toMatch(/parentFolderId/);
    expect((await error(await create({ parentFolderId: parent.id }), 400)).message).toMatch(/name/);
  });

  it('renames (rewriting model paths below it) and refuses a sibling name', async () => {
    const top = await created('Renames');
    const a = await created('A', top.id);
    const sub = await created('Sub', a.id);
    await created('B', top.id);
    const made = await t.api('/v2/models', {
      method: 'POST',
      token: editor,
      json: { models: [{ filePath: 'Renames/A/Sub/p.step', name: 'p' }] },
    });
    const [entry] = createModelsResponseSchema.parse(await made.json()).models;

    expect((await error(await t.api(`/v2/folders/${a.id}`, { method: 'PATCH', token: editor, json: { name: 'b' } }), 409)).message).toMatch(
      /already exists/,
    );
    expect((await t.api(`/v2/folders/${a.id}`, { method: 'PATCH', token: editor, json: { name: 'bad/name' } })).status).toBe(400);
    const renamed = await t.api(`/v2/folders/${a.id}`, { method: 'PATCH', token: editor, json: { name: 'Alpha' } });
    expect(renamed.status).toBe(200);
    expect(folderResponseSchema.parse(await renamed.json()).folder).toMatchObject({ name: 'Alpha', path: 'Renames/Alpha' });
    expect(folderResponseSchema.parse(await (await t.api(`/v2/folders/${sub.id}`, { token: editor })).json()).folder.path).toBe(
      'Renames/Alpha/Sub',
    );
    const model = (await (await t.api(`/v2/models/${entry?.model.id}`, { token: editor })).json()) as { model: { filePath: string } };
    expect(model.model.filePath).toBe('Renames/Alpha/Sub/p.step');
    // the new path is the model's: created again while it waits for its file, it is the same record
    const again = await t.api('/v2/models?createMissingFolders=true', {
      method: 'POST',
      token: editor,
      json: { models: [{ filePath: 'Renames/alpha/sub/P.STEP', name: 'p' }] },
    });
    expect(again.status).toBe(201);
    expect(createModelsResponseSchema.parse(await again.json()).models[0]?.model.id).toBe(entry?.model.id);
  });

  it('deletes only empty folders', async () => {
    const top = await created('Deletes');
    const child = await created('Child', top.id);
    expect((await error(await t.api(`/v2/folders/${top.id}`, { method: 'DELETE', token: editor }), 409)).message).toMatch(/subfolders/);
    await t.api('/v2/models', { method: 'POST', token: editor, json: { models: [{ filePath: 'Deletes/Child/x.stl', name: 'x' }] } });
    expect((await error(await t.api(`/v2/folders/${child.id}`, { method: 'DELETE', token: editor }), 409)).message).toMatch(/models/);
    const empty = await created('Empty', top.id);
    expect((await t.api(`/v2/folders/${empty.id}`, { method: 'DELETE', token: editor })).status).toBe(204);
    await error(await t.api(`/v2/folders/${empty.id}`, { token: editor }), 404);
    await error(await t.api(`/v2/folders/${empty.id}`, { method: 'DELETE', token: editor }), 404);
    await error(await t.api('/v2/folders/not-a-number', { token: editor }), 404);
  });

  it('lists with paging, filter, order and search', async () => {
    const top = await created('Listing');
    const names = ['delta', 'Alpha', 'charlie', 'bravo', 'echo'];
    const ids: number[] = [];
    for (const name of names) ids.push((await created(name, top.id)).id);

    const byParent = await list(`?filter=parentFolderId(eq(${top.id}))&perPage=2&page=2`);
    expect(byParent.pageData).toEqual({ total: 5, perPage: 2, currentPage: 2, lastPage: 3, startIndex: 2, endIndex: 4 });
    const all = await list(`?filter=parentFolderId(eq(${top.id}))&order=-name`);
    expect(all.folders.map((f) => f.name)).toEqual(['echo', 'delta', 'charlie', 'bravo', 'Alpha']);
    expect(all.folders.every((f) => f.path === `Listing/${f.name}`)).toBe(true);

    const some = await list(`?filter=id(in(${ids[0]},${ids[2]})),name(ne(delta))`);
    expect(some.folders.map((f) => f.name)).toEqual(['charlie']);
    const liked = await list(`?filter=parentFolderId(eq(${top.id})),name(like('*A*'))`);
    expect(liked.folders.map((f) => f.name).sort()).toEqual(['Alpha', 'bravo', 'charlie', 'delta']);
    const notIn = await list(`?filter=parentFolderId(eq(${top.id})),name(not(in(Alpha,bravo)))&order=createdAt`);
    expect(notIn.folders.map((f) => f.name)).toEqual(['delta', 'charlie', 'echo']);
    const roots = await list('?filter=parentFolderId(eq(null))&perPage=100');
    expect(roots.folders.every((f) => f.parentFolderId == null)).toBe(true);
    expect(roots.folders.map((f) => f.name)).toContain('Listing');

    const searched = await list('?search=HARL');
    expect(searched.folders.map((f) => f.name)).toEqual(['charlie']);

    const bad = await error(await t.api('/v2/folders?filter=name(eq(x)),size(gt(3))', { token: editor }), 400);
    expect(bad).toMatchObject({ code: 'invalid_input', parameter: 'filter', position: 12 });
    expect(bad.message).toMatch(/unknown field 'size' at character 12/);
    expect(await error(await t.api('/v2/folders?order=name,,', { token: editor }), 400)).toMatchObject({ parameter: 'order', position: 5 });
    expect((await error(await t.api('/v2/folders?order=state', { token: editor }), 400)).message).toMatch(/unknown field 'state'/);
  });

  it('keeps writes to editors and every tenant to itself', async () => {
    const mine = await created('Private');
    expect((await error(await create({ name: 'nope' }, viewer), 403)).message).toMatch(/editor/);
    await error(await t.api(`/v2/folders/${mine.id}`, { method: 'PATCH', token: viewer, json: { name: 'x' } }), 403);
    await error(await t.api(`/v2/folders/${mine.id}`, { method: 'DELETE', token: viewer }), 403);

    await error(await t.api(`/v2/folders/${mine.id}`, { token: other }), 404);
    await error(await t.api(`/v2/folders/${mine.id}`, { method: 'PATCH', token: other, json: { name: 'x' } }), 404);
    await error(await t.api(`/v2/folders/${mine.id}`, { method: 'DELETE', token: other }), 404);
    expect((await error(await create({ name: 'x', parentFolderId: mine.id }, other), 400)).message).toMatch(/parentFolderId/);
    const theirs = await list(`?perPage=100`, other);
    expect(theirs.pageData.total).toBe(0);
    expect((await list(`?filter=id(eq(${mine.id}))`, other)).folders).toEqual([]);
    // the same name in another tenant is no conflict
    expect((await create({ name: 'Private' }, other)).status).toBe(201);
  });
});
