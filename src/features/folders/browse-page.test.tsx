import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FolderPage } from './folder-page';
import { FoldersPage } from './folders-page';
import { renderRoutes } from '../auth/testing/test-auth';
import { makeFolder, makeModel, stubService, type FakeService } from './testing/test-harness';

const routes = [
  { path: '/folders', Component: FoldersPage },
  { path: '/folders/:folderId', Component: FolderPage },
  { path: '/models/:modelId', Component: () => <h1>Model page</h1> },
];

function service(overrides: Partial<FakeService> = {}): FakeService {
  return {
    folders: [makeFolder(1, 'Brackets', null, 2), makeFolder(2, 'Steel', 1), makeFolder(3, 'Gears', null, 0)],
    models: [
      makeModel({ id: 'm1', name: 'Bracket A', state: 'finished', thumbnail: 'http://localhost:8080/thumbs/m1.png' }),
      makeModel({ id: 'm2', name: 'Bracket B', state: 'processing', fileType: 'step' }),
    ],
    metadataKeys: [],
    ...overrides,
  };
}

function modelRequests(fetchMock: ReturnType<typeof stubService>) {
  return fetchMock.mock.calls.map(([u]) => new URL(String(u))).filter((u) => u.pathname === '/v2/models');
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('folder browsing', () => {
  it('asks for exactly the view in the URL', async () => {
    const fetchMock = stubService(service());
    renderRoutes(routes, '/folders/1?state=finished,failed&type=step&order=-createdAt&page=1&perPage=48&search=bracket');
    expect(await screen.findByRole('heading', { level: 1, name: 'Brackets' })).toBeTruthy();
    await screen.findAllByTestId('model-card');
    const last = modelRequests(fetchMock).at(-1)!;
    expect(Object.fromEntries(last.searchParams)).toEqual({
      page: '1',
      perPage: '48',
      search: 'bracket',
      filter: 'folderId(eq(1)),state(in(failed,finished)),fileType(in(step,stp,p21))',
      order: '-createdAt',
    });
    // The controls show the same view.
    expect((screen.getByLabelText('Search models') as HTMLInputElement).value).toBe('bracket');
    expect((screen.getByLabelText('Order') as HTMLSelectElement).value).toBe('-createdAt');
  });

  it('shows cards with thumbnail or placeholder, type and state in words', async () => {
    stubService(service());
    renderRoutes(routes, '/folders/1');
    const cards = await screen.findAllByTestId('model-card');
    expect(cards).toHaveLength(2);
    expect(cards[0]!.querySelector('img')?.getAttribute('src')).toBe('http://localhost:8080/thumbs/m1.png');
    expect(within(cards[0]!).getByText('Ready')).toBeTruthy();
    expect(within(cards[1]!).getByText('Processing')).toBeTruthy();
    expect(within(cards[1]!).getAllByText('STEP').length).toBeGreaterThan(0);
    expect(within(cards[0]!).getByRole('link').getAttribute('href')).toBe('/models/m1');
  });

  it('writes the debounced search, filters, order, layout and page into the URL', async () => {
    const fetchMock = stubService(service());
    const { router } = renderRoutes(routes, '/folders/1?page=3');
    const user = userEvent.setup();
    await screen.findByRole('heading', { level: 1, name: 'Brackets' });

    await user.type(screen.getByLabelText('Search models'), 'gear');
    await waitFor(() => expect(router.state.location.search).toBe('?search=gear'));
    await waitFor(() => expect(modelRequests(fetchMock).at(-1)?.searchParams.get('search')).toBe('gear'));
    // One request for the finished word, none per keystroke.
    expect(modelRequests(fetchMock).filter((u) => u.searchParams.has('search'))).toHaveLength(1);

    await user.click(screen.getByText('State', { selector: 'summary' }));
    await user.click(screen.getByLabelText('Failed'));
    await user.selectOptions(screen.getByLabelText('Order'), 'Newest first');
    await user.click(screen.getByRole('button', { name: 'Table' }));
    expect(router.state.location.search).toBe('?search=gear&state=failed&order=-createdAt&view=table');
  });

  it('switches to the table view with name, type, state and created', async () => {
    stubService(service());
    renderRoutes(routes, '/folders/1?view=table');
    const rows = await screen.findAllByTestId('model-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByRole('link', { name: 'Bracket A' })).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: 'Created' })).toBeTruthy();
  });

  it('shows an empty folder with a way to upload', async () => {
    stubService(service({ models: [] }));
    renderRoutes(routes, '/folders/3');
    expect(await screen.findByText('This folder is empty')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upload models' }).getAttribute('href')).toBe('/upload');
  });

  it('lists subfolders first; a folder with no models of its own shows those of its subfolders until told not to', async () => {
    const folders = [
      makeFolder(1, 'Pumps', null, 0),
      { ...makeFolder(2, 'Housings', 1, 2), path: 'Pumps/Housings' },
      { ...makeFolder(3, 'Old', 2, 1), path: 'Pumps/Housings/Old' },
    ];
    const fetchMock = stubService(service({ folders, models: [] }));
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, '/folders/1');
    const subfolders = await screen.findByRole('navigation', { name: 'Subfolders' });
    expect(within(subfolders).getByRole('link').textContent).toBe('Housings 2 models, 3 with subfolders');
    await waitFor(() => expect(modelRequests(fetchMock).at(-1)?.searchParams.get('filter')).toBe('folderId(in(1,2,3))'));
    expect(screen.getByRole('heading', { name: 'Models in Pumps and its subfolders' })).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Include subfolders' }).checked).toBe(true);

    await user.click(screen.getByRole('checkbox', { name: 'Include subfolders' }));
    await waitFor(() => expect(modelRequests(fetchMock).at(-1)?.searchParams.get('filter')).toBe('folderId(eq(1))'));
    expect(router.state.location.search).toBe('?subfolders=0');
    expect(await screen.findByText('No models directly in Pumps')).toBeTruthy();
  });

  it('offers to clear filters when nothing matches', async () => {
    stubService(service({ models: [] }));
    const { router } = renderRoutes(routes, '/folders/3?state=failed');
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Clear search and filters' }));
    expect(router.state.location.search).toBe('');
  });

  it('shows a load error with a retry', async () => {
    const state = service({ listFails: true });
    stubService(state);
    renderRoutes(routes, '/folders/1');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/could not be loaded/);
    state.listFails = false;
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByTestId('model-card')).toHaveLength(2);
  });

  it('opens another folder from the tree, keeping the view but not the page', async () => {
    stubService(service());
    const { router } = renderRoutes(routes, '/folders/1?view=table&page=2');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('treeitem', { name: 'Gears' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/folders/3'));
    expect(router.state.location.search).toBe('?view=table');
  });

  it('creates a subfolder and shows the service error when the name is taken', async () => {
    stubService(service());
    const { router } = renderRoutes(routes, '/folders/1', ['viewer', 'editor']);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'New subfolder' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Folder name'), 'steel');
    await user.click(within(dialog).getByRole('button', { name: 'Create folder' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('A folder named "steel" already exists here.');

    await user.clear(within(dialog).getByLabelText('Folder name'));
    await user.type(within(dialog).getByLabelText('Folder name'), 'a/b');
    await user.click(within(dialog).getByRole('button', { name: 'Create folder' }));
    expect((await within(dialog).findByRole('alert')).textContent).toMatch(/cannot contain/);

    await user.clear(within(dialog).getByLabelText('Folder name'));
    await user.type(within(dialog).getByLabelText('Folder name'), 'Brass');
    await user.click(within(dialog).getByRole('button', { name: 'Create folder' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/folders/103'));
    expect(screen.queryByRole('dialog')).toBeNull();
    const tree = await screen.findByRole('tree');
    expect((await within(tree).findByRole('treeitem', { name: 'Brass' })).getAttribute('aria-selected')).toBe('true');
  });

  it('deletes selected models in one request after a confirmation naming them', async () => {
    const state = service();
    const fetchMock = stubService(state);
    const user = userEvent.setup();
    renderRoutes(routes, '/folders/1', ['viewer', 'editor']);
    await user.click(await screen.findByRole('checkbox', { name: 'Select Bracket A' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select Bracket B' }));
    expect(screen.getByText('2 selected')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Delete selected' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete 2 models?' });
    expect(
      within(dialog)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Bracket A', 'Bracket B']);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const deletes = fetchMock.mock.calls.filter(([, init]) => init?.method === 'DELETE').map(([u]) => new URL(String(u)));
    expect(deletes.map((u) => u.searchParams.getAll('ids'))).toEqual([['m1', 'm2']]);
    expect(state.models).toEqual([]);
    expect(await screen.findByText('No models directly in Brackets')).toBeTruthy(); // its subfolder remains
  });

  it('hides folder changes from viewers', async () => {
    stubService(service());
    renderRoutes(routes, '/folders/1', ['viewer']);
    await screen.findByRole('heading', { level: 1, name: 'Brackets' });
    expect(screen.queryByRole('checkbox', { name: /^Select / })).toBeNull();
    expect(screen.queryByRole('button', { name: 'New subfolder' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'New folder' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('deletes an empty folder and goes to its parent', async () => {
    const state = service();
    stubService(state);
    const { router } = renderRoutes(routes, '/folders/2', ['editor']);
    const user = userEvent.setup();
    await screen.findByRole('heading', { level: 1, name: 'Steel' });
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/folders/1'));
    expect(state.folders.map((f) => f.id)).toEqual([1, 3]);
  });

  it('shows all models on /folders and an empty state without folders', async () => {
    stubService(service({ folders: [], models: [] }));
    renderRoutes(routes, '/folders');
    expect(await screen.findByRole('heading', { level: 1, name: 'Folders' })).toBeTruthy();
    expect(await screen.findByText('No folders yet')).toBeTruthy();
  });
});
