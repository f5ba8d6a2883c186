import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, stubFetch } from '../../api/testing/test-fetch';
import type { Model } from '../../contract/models';
import { renderRoutes } from '../auth/testing/test-auth';
import { ImageSearchWorkspace } from './image-search-page';
import { createSelectionStore } from './selection-store';

const model = (id: string, name: string, folderId: number): Model => ({
  id,
  name,
  filePath: `Pumps/${name}.stl`,
  fileName: `${name}.stl`,
  fileType: 'stl',
  folderId,
  isAssembly: false,
  state: 'finished',
  metadata: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  thumbnail: `/thumbs/${id}.png`,
});

/** The service behind a stubbed fetch, and the signed PUT behind a stubbed XMLHttpRequest. */
function stubService({ refuse, total = 2 }: { refuse: Set<string>; total?: number }) {
  let created = 0;
  const puts: string[] = [];
  const fetchMock = stubFetch((url, init) => {
    if (url.pathname === '/v2/folders') {
      const folders = [
        { id: 1, name: 'Pumps', parentFolderId: null, path: 'Pumps', createdAt: '2026-01-01T00:00:00.000Z', modelCount: 2 },
        { id: 2, name: 'Housings', parentFolderId: 1, path: 'Pumps/Housings', createdAt: '2026-01-01T00:00:00.000Z', modelCount: 1 },
      ];
      return json({ folders, pageData: { total: 2, perPage: 100, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 2 } });
    }
    if (url.pathname === '/v2/images' && init?.method === 'POST') {
      const { filename } = JSON.parse(String(init.body)) as { filename: string };
      created++;
      return json(
        { image: { id: `img-${created}`, uploadUrl: `http://localhost:8080/files/images/${filename}`, headers: { 'x-sig': 's' } } },
        201,
      );
    }
    if (url.pathname === '/v2/images/model-matches') {
      const page = Number(url.searchParams.get('page') ?? 1);
      const perPage = Number(url.searchParams.get('perPage') ?? 20);
      const all = [
        { matchedModel: model('m1', 'Pump housing', 2), matchPercentage: 91.6 },
        { matchedModel: model('m2', 'Impeller', 1), matchPercentage: 40.2 },
        ...Array.from({ length: total - 2 }, (_, i) => ({
          matchedModel: model(`x${i}`, `Part ${i + 3}`, 1),
          matchPercentage: 30 - i * 0.1,
        })),
      ];
      const start = (page - 1) * perPage;
      const matches = all.slice(start, start + perPage);
      const pageData = {
        total,
        perPage,
        currentPage: page,
        lastPage: Math.max(1, Math.ceil(total / perPage)),
        startIndex: start,
        endIndex: start + matches.length,
      };
      return json({ matches, pageData, matchCount: total });
    }
    return json({ error: { message: 'Not found.', code: 'not_found' } }, 404);
  });
  class FakeXhr {
    status = 0;
    responseText = '';
    upload = { onprogress: null };
    onload: (() => void) | null = null;
    onerror = null;
    onabort = null;
    private url = '';
    open(_method: string, url: string) {
      this.url = url;
    }
    setRequestHeader() {}
    abort() {}
    send() {
      const name = this.url.split('/').pop()!;
      puts.push(name);
      setTimeout(() => {
        if (refuse.has(name)) {
          this.status = 415;
          this.responseText = JSON.stringify({
            error: { message: 'This file is not a PNG, JPEG or WebP image.', code: 'unsupported_media_type' },
          });
        } else this.status = 200;
        this.onload?.();
      });
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return { fetchMock, puts };
}

function renderPage(roles = ['viewer', 'editor']) {
  let n = 0;
  const store = createSelectionStore({ create: () => `blob:${++n}`, revoke: () => undefined });
  const { router } = renderRoutes(
    [
      { path: '/image-search', Component: () => <ImageSearchWorkspace store={store} /> },
      { path: '/models/:id', Component: () => <h1>Model page</h1> },
    ],
    '/image-search',
    roles,
  );
  return { store, router };
}

const png = (name: string) => new File(['png-bytes'], name, { type: 'image/png' });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('image search page', () => {
  it('shows the guidance beside the drop zone and offers only images in the pickers', () => {
    stubService({ refuse: new Set() });
    renderPage();
    const guidance = screen.getByRole('complementary', { name: 'For the best results' });
    expect(within(guidance).getByText(/The object is alone in the image/)).toBeTruthy();
    expect(within(guidance).getByText(/busy background perform poorly/)).toBeTruthy();
    expect(screen.getByLabelText('Choose images').getAttribute('accept')).toBe('image/png,image/jpeg,image/webp');
    const photo = screen.getByLabelText('Take a photo');
    expect(photo.getAttribute('capture')).toBe('environment');
    expect((screen.getByRole('button', { name: 'Search' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('checks files before sending, searches with the usable ones and shows ranked results', async () => {
    const user = userEvent.setup({ applyAccept: false });
    const { fetchMock, puts } = stubService({ refuse: new Set() });
    renderPage();
    await user.upload(screen.getByLabelText('Choose images'), [
      png('front.png'),
      new File(['x'], 'part.stl', { type: '' }),
      png('side.png'),
    ]);
    const items = screen.getAllByTestId('picked-image');
    expect(items).toHaveLength(3);
    expect(within(items[1]!).getByTestId('image-reason').textContent).toBe('Not a PNG, JPEG or WebP image (this is a .stl file).');
    expect(screen.getByText('2 images will be used; 1 cannot be used (each says why).')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Search' }));
    const cards = await screen.findAllByTestId('image-match');
    expect(puts).toEqual(['front.png', 'side.png']);
    const search = fetchMock.mock.calls.map(([u]) => new URL(String(u))).find((u) => u.pathname === '/v2/images/model-matches')!;
    expect(search.searchParams.getAll('id').sort()).toEqual(['img-1', 'img-2']);
    expect(search.searchParams.get('threshold')).toBe('50');
    expect(cards).toHaveLength(2);
    expect(within(cards[0]!).getByTestId('match-score').textContent).toBe('Score91.6%');
    expect(within(cards[0]!).getByTestId('match-name').textContent).toBe('Pump housing');
    await waitFor(() => expect(within(cards[0]!).getByText('Pumps/Housings')).toBeTruthy());
    expect(within(cards[0]!).getByRole('link').getAttribute('href')).toBe('/models/m1');

    // Filtering by a folder covers its subfolders and asks again.
    await user.selectOptions(screen.getByLabelText('Folder'), 'Pumps');
    await waitFor(() => {
      const last = fetchMock.mock.calls
        .map(([u]) => new URL(String(u)))
        .filter((u) => u.pathname === '/v2/images/model-matches')
        .at(-1)!;
      expect(last.searchParams.get('filter')).toBe('folderId(in(1,2))');
    });

    // Removing an image is one keyboard-reachable button per image.
    await user.click(screen.getByRole('button', { name: 'Remove part.stl' }));
    expect(screen.getAllByTestId('picked-image')).toHaveLength(2);
  });

  it("shows the service's reason against an image it refuses, and does not search without images", async () => {
    const user = userEvent.setup();
    const { fetchMock } = stubService({ refuse: new Set(['fake.png']) });
    renderPage();
    await user.upload(screen.getByLabelText('Choose images'), [png('fake.png')]);
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('This file is not a PNG, JPEG or WebP image.')).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toBe('The image could not be used; see why above.');
    expect(fetchMock.mock.calls.some(([u]) => String(u).includes('model-matches'))).toBe(false);
    expect((screen.getByRole('button', { name: 'Search' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('pages through many results, numbering them across pages', async () => {
    const user = userEvent.setup();
    const { fetchMock } = stubService({ refuse: new Set(), total: 30 });
    renderPage();
    await user.upload(screen.getByLabelText('Choose images'), [png('front.png')]);
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findAllByTestId('image-match')).toHaveLength(24);
    expect(screen.getByText('1–24 of 30')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /Next/ }));
    await waitFor(() => expect(screen.getAllByTestId('image-match')).toHaveLength(6));
    expect(screen.getByText('Page 2 of 2')).toBeTruthy();
    expect(within(screen.getAllByTestId('image-match')[0]!).getByText('Rank 25')).toBeTruthy();
    const pages = fetchMock.mock.calls
      .map(([u]) => new URL(String(u)))
      .filter((u) => u.pathname === '/v2/images/model-matches')
      .map((u) => u.searchParams.get('page'));
    expect(pages).toEqual(['1', '2']);
  });

  it('takes pasted images', async () => {
    stubService({ refuse: new Set() });
    renderPage();
    const event = new Event('paste', { bubbles: true, cancelable: true }) as Event & { clipboardData: unknown };
    event.clipboardData = { files: [png('image.png')] };
    document.dispatchEvent(event);
    expect(await screen.findByText('image.png')).toBeTruthy();
    expect(event.defaultPrevented).toBe(true);
  });
});
