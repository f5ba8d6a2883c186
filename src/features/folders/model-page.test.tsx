import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { ModelPage } from './model-page';
import { setDisplayUnit } from '../../ui/lengths';
import { renderRoutes } from '../auth/testing/test-auth';
import { makeFolder, makeModel, stubService, type FakeService } from './testing/test-harness';

const routes = [
  { path: '/models/:modelId', Component: ModelPage },
  { path: '/folders/:folderId', Component: () => <h1>Folder page</h1> },
];

function service(overrides: Partial<FakeService> = {}): FakeService {
  return {
    folders: [makeFolder(1, 'Brackets')],
    models: [
      makeModel({
        metadata: [{ metadataKeyId: 1, value: 'Brass' }],
        fileSize: 4_718_592,
        facts: {
          triangles: 1200,
          boundingBox: { min: [0, 0, 0], max: [10, 20, 5] },
          surfaceArea: 700,
          volume: 1000,
          shells: 1,
          units: 'mm',
        },
      }),
    ],
    metadataKeys: [
      { id: 1, name: 'Material' },
      { id: 2, name: 'Supplier' },
    ],
    ...overrides,
  };
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('ModelPage', () => {
  it('shows the model, its facts with units and its match counts near the top', async () => {
    stubService(service({ matchCounts: { 'part-to-part': 3, 'geo-related': 12 } }));
    renderRoutes(routes, '/models/m1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Bracket' })).toBeTruthy();
    expect(screen.getByText('Brackets/bracket.stl')).toBeTruthy();
    expect(screen.getByText('Ready')).toBeTruthy();
    expect(screen.getByText('10 × 20 × 5 mm')).toBeTruthy();
    expect(screen.getByText('1,000 mm³')).toBeTruthy();
    expect(screen.getByText('File size').nextElementSibling?.textContent).toBe('4.5 MiB');
    // The length unit is chosen beside the details, not only in the user menu.
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'Inches' }));
    expect(screen.getByText('0.3937 × 0.7874 × 0.1969 in')).toBeTruthy();
    await user.click(screen.getByRole('radio', { name: 'Millimetres' }));
    expect(screen.getByText('10 × 20 × 5 mm')).toBeTruthy();
    const summary = screen.getByRole('navigation', { name: 'Matches at 80% or more' });
    await waitFor(() =>
      expect(
        within(summary)
          .getAllByRole('link')
          .map((l) => l.textContent),
      ).toEqual([
        '3 Part-to-part matches the same part, however it is placed or exported',
        '0 Part-in-part matches assemblies containing it, parts it contains',
        '12 Geo-related models similar size, proportions and holes',
      ]),
    );
    expect(
      within(summary)
        .getByRole('link', { name: /^12 Geo-related/ })
        .getAttribute('href'),
    ).toBe('/models/m1/matches/geo-related');
    expect(await screen.findByText('Material')).toBeTruthy();
  });

  it('shows lengths in inches when the reader chose them, and says when a file gave no unit', async () => {
    setDisplayUnit('in');
    try {
      stubService(
        service({
          models: [
            makeModel({
              facts: {
                triangles: 12,
                boundingBox: { min: [0, 0, 0], max: [25.4, 50.8, 12.7] },
                surfaceArea: 645.16,
                volume: null,
                shells: 1,
                units: 'unknown',
              },
            }),
          ],
        }),
      );
      renderRoutes(routes, '/models/m1');
      expect(await screen.findByText('1 × 2 × 0.5 in')).toBeTruthy();
      expect(screen.getByText('1 in²')).toBeTruthy();
      expect(screen.getByText('Not stated in the file; read as millimetres')).toBeTruthy();
    } finally {
      setDisplayUnit('mm');
    }
  });

  it('moves the model to another folder', async () => {
    const state = service({ folders: [makeFolder(1, 'Brackets'), makeFolder(2, 'Gears')] });
    const fetchMock = stubService(state);
    const user = userEvent.setup();
    renderRoutes(routes, '/models/m1', ['viewer', 'editor']);
    await user.click(await screen.findByRole('button', { name: 'Move to folder' }));
    const dialog = screen.getByRole('dialog', { name: 'Move Bracket' });
    // The folder picker: the model's own folder is not offered; a search narrows the rest.
    expect(within(dialog).queryByRole('radio', { name: 'Brackets' })).toBeNull();
    await user.type(within(dialog).getByRole('searchbox', { name: 'Search folders' }), 'gea');
    await user.click(await within(dialog).findByRole('radio', { name: 'Gears' }));
    expect(within(dialog).getByText('Gears/bracket.stl')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Move to Gears' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const patch = fetchMock.mock.calls.find(([, init]) => init?.method === 'PATCH');
    expect(JSON.parse(String(patch?.[1]?.body))).toEqual({ folderId: 2 });
    expect(await screen.findByText('Gears/bracket.stl')).toBeTruthy();
  });

  it('lets editors add, edit and remove metadata', async () => {
    const state = service();
    const fetchMock = stubService(state);
    renderRoutes(routes, '/models/m1', ['viewer', 'editor']);
    const user = userEvent.setup();
    const section = (await screen.findByRole('heading', { name: 'Metadata' })).closest('section') as HTMLElement;
    await within(section).findByText('Material');
    expect(within(section).getByRole('button', { name: 'Edit Material' })).toBeTruthy();
    expect(within(section).getByRole('button', { name: 'Remove Material' })).toBeTruthy();

    // Only keys the model does not have yet are offered.
    const keySelect = within(section).getByLabelText('Key') as HTMLSelectElement;
    expect([...keySelect.options].map((o) => o.text)).toEqual(['Supplier', 'New key…']);
    await user.type(within(section).getByLabelText('Value'), 'ACME <b>Ltd</b>');
    await user.click(within(section).getByRole('button', { name: 'Add' }));
    expect(await within(section).findByText('ACME <b>Ltd</b>')).toBeTruthy(); // text, never HTML
    expect(fetchMock.mock.calls.some(([u, i]) => String(u).endsWith('/v2/models/m1/metadata/2') && i?.method === 'PUT')).toBe(true);

    await user.click(within(section).getByRole('button', { name: 'Edit Material' }));
    const input = within(section).getByLabelText('Value of Material');
    await user.clear(input);
    await user.type(input, 'Steel{Enter}');
    expect(await within(section).findByText('Steel')).toBeTruthy();

    await user.click(within(section).getByRole('button', { name: 'Remove Supplier' }));
    await waitFor(() => expect(within(section).queryByText('ACME <b>Ltd</b>')).toBeNull());
    expect(state.models[0]?.metadata).toEqual([{ metadataKeyId: 1, value: 'Steel' }]);
  });

  it('shows metadata read-only to viewers, without model actions', async () => {
    stubService(service());
    renderRoutes(routes, '/models/m1', ['viewer']);
    const section = (await screen.findByRole('heading', { name: 'Metadata' })).closest('section') as HTMLElement;
    expect(await within(section).findByText('Material')).toBeTruthy();
    expect(within(section).getByText('Brass')).toBeTruthy();
    expect(within(section).queryByRole('button')).toBeNull();
    expect(within(section).queryByLabelText('Value')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reprocess' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('polls while processing, with progress words, until the model is settled', async () => {
    const processing = makeModel({ state: 'processing' });
    stubService(service({ models: [processing], modelAnswers: [processing, makeModel({ state: 'finished' })] }));
    renderRoutes(routes, '/models/m1');
    const status = await screen.findByText(/Processing the file/);
    expect(status.closest('[role=status]')).toBeTruthy();
    expect(screen.getByText('This page updates by itself.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Reprocess' }).hasAttribute('disabled')).toBe(true);
    expect(await screen.findByText('Ready', undefined, { timeout: 5000 })).toBeTruthy();
    expect(screen.queryByText(/Processing the file/)).toBeNull();
  });

  it('lazy-loads the 3D preview of the viewer file (the thumbnail where WebGL is missing)', async () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    stubService(
      service({ viewerFile: 'http://localhost:8080/files/m1.glb?sig=abc', models: [makeModel({ thumbnail: '/thumbs/m1.png' })] }),
    );
    renderRoutes(routes, '/models/m1');
    const preview = await screen.findByRole('img', { name: '3D preview of Bracket' }, { timeout: 5000 });
    expect(preview.querySelector('img')?.getAttribute('src')).toBe('/thumbs/m1.png');
    expect(preview.closest('[data-viewer-status]')?.getAttribute('data-viewer-status')).toBe('error');
  });

  it('shows why a model failed', async () => {
    stubService(service({ models: [makeModel({ state: 'failed', stateReason: 'The file is not an STL file.' })] }));
    renderRoutes(routes, '/models/m1');
    expect(await screen.findByText('The file is not an STL file.')).toBeTruthy();
    expect(screen.getByText(/geometry of this file could not be read/)).toBeTruthy();
  });

  it('deletes after confirmation and goes to the folder', async () => {
    const state = service();
    stubService(state);
    const { router } = renderRoutes(routes, '/models/m1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('heading', { name: 'Folder page' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/folders/1');
    expect(state.models).toHaveLength(0);
  });

  it('lists assembly parts as links and flags missing ones', async () => {
    const asm = makeModel({
      id: 'asm',
      name: 'Gearbox',
      isAssembly: true,
      state: 'finished-incomplete',
      missingParts: ['bolt.stp'],
      partCount: 2,
    });
    const state = service({ models: [asm] });
    const fetchMock = stubService(state);
    const base = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) => {
      if (String(input).endsWith('/assembly-tree')) {
        return new Response(
          JSON.stringify({
            type: 'assemblyTree',
            modelId: 'asm',
            children: [
              { type: 'part', modelId: 'p1', name: 'housing.stp', transform: [] },
              { type: 'part', modelId: null, name: 'bolt.stp', transform: [] },
            ],
          }),
          { status: 200 },
        );
      }
      return base(input, init);
    });
    renderRoutes(routes, '/models/asm');
    const link = await screen.findByRole('link', { name: 'housing.stp' });
    expect(link.getAttribute('href')).toBe('/models/p1');
    expect(screen.getByText('Missing')).toBeTruthy();
    expect(screen.getByText('1 part is missing.')).toBeTruthy();
  });
});
