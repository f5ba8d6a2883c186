import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { json, stubFetch } from '../../api/testing/test-fetch';
import { FakeService } from './testing/fake-service';
import { stepText } from './testing/test-files';
import { memoryBatchStore } from './persistence';
import { UploadSession } from './upload-session';
import { UploadWorkspace } from './upload-page';
import { UploadQueue } from './upload-queue';

function file(relativePath: string, content: string | Uint8Array) {
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  const f = new File([content as BlobPart], name, { lastModified: 1_700_000_000_000 });
  Object.defineProperty(f, 'webkitRelativePath', { value: relativePath });
  return f;
}

const projects = {
  id: 1,
  name: 'Projects',
  path: 'Projects',
  parentFolderId: null,
  modelCount: 0,
  folderCount: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

function setup(entry = '/upload', finalState: (filePath: string) => string = () => 'finished') {
  stubFetch((url) =>
    url.pathname === '/v2/folders/1'
      ? json({ folder: projects })
      : json({
          folders: [projects],
          pageData: { total: 1, perPage: 100, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 1 },
        }),
  );
  const service = new FakeService({ createLatencyMs: 1, putLatencyMs: 5, listLatencyMs: 1, processingMs: 1, finalState });
  const deps = { transport: service, store: memoryBatchStore(), window: null, notifyIntervalMs: 0 };
  const session = new UploadSession(deps);
  const queue = new UploadQueue(session, deps);
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(
    [
      { path: '/upload', element: <UploadWorkspace queue={queue} /> },
      { path: '/models/:id', element: <p>model page</p> },
    ],
    {
      initialEntries: [entry],
    },
  );
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { service, session, queue };
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('UploadPage', () => {
  it('shows only the files that failed when asked', async () => {
    const user = userEvent.setup();
    const { session } = setup('/upload', (p) => (p.endsWith('b.stl') ? 'failed' : 'finished'));
    await user.type(screen.getByLabelText('Target folder'), 'Projects');
    await user.upload(document.querySelector<HTMLInputElement>('[data-testid=upload-file-input]')!, [
      file('a.stl', 'solid a'),
      file('b.stl', 'solid b'),
      file('c.stl', 'solid c'),
    ]);
    await waitFor(() => expect(screen.getAllByTestId('upload-review-row')).toHaveLength(3));
    await user.click(screen.getByRole('button', { name: 'Start upload' }));
    const only = await screen.findByRole('checkbox', { name: 'Only the file that failed or needs something' }, { timeout: 5000 });
    expect(screen.getAllByTestId('upload-row')).toHaveLength(3);
    await user.click(only);
    expect(screen.getAllByTestId('upload-row').map((r) => r.getAttribute('data-status'))).toEqual(['failed']);
    await session.clear();
  });

  it('opened from a folder, uploads into it unless another target is typed', async () => {
    const user = userEvent.setup();
    const { service, session } = setup('/upload?into=1');
    await waitFor(() => expect((screen.getByLabelText('Target folder') as HTMLInputElement).value).toBe('Projects'));
    await user.upload(document.querySelector<HTMLInputElement>('[data-testid=upload-file-input]')!, [file('a.stl', 'solid a')]);
    await waitFor(() => expect(screen.getAllByTestId('upload-review-row')).toHaveLength(1));
    await user.click(screen.getByRole('button', { name: 'Start upload' }));
    await waitFor(() => expect(service.calls.create.flat().map((m) => m.filePath)).toEqual(['Projects/a.stl']));
    await session.clear();
  });

  it('reviews a dropped folder, drops the problem files, sends the rest and follows their states', async () => {
    const user = userEvent.setup();
    const { session } = setup();
    await user.type(screen.getByLabelText('Target folder'), 'Projects');

    const input = document.querySelector<HTMLInputElement>('[data-testid=upload-input]')!;
    expect(input.type).toBe('file');
    expect(input.hasAttribute('webkitdirectory')).toBe(true);
    await user.upload(input, [
      file('pump/asm.stp', stepText('a.stl')),
      file('pump/parts/a.stl', 'solid a\nendsolid a\n'),
      file('pump/readme.txt', 'hello'),
      file('pump/empty.stl', ''),
    ]);

    await waitFor(() => expect(screen.getAllByTestId('upload-review-row')).toHaveLength(4));
    await waitFor(() => expect(session.getState().targetFolder).toBe('Projects'));
    const rows = () => screen.getAllByTestId('upload-review-row');
    // In path order, inside the target folder named above the list.
    await waitFor(() => expect(within(rows()[0]!).getByText('pump/asm.stp')).toBeTruthy());
    expect(within(rows()[0]!).getByText('Assembly')).toBeTruthy();
    expect(within(rows()[0]!).getByRole('cell', { name: 'pump/asm.stp' }).title).toBe('Projects/pump/asm.stp');
    expect(within(rows()[1]!).getByText('The file is empty.')).toBeTruthy();
    expect(within(rows()[2]!).getByText('Part')).toBeTruthy();
    expect(within(rows()[3]!).getByText(/files are not supported/)).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: 'File path' })).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: 'Role' })).toBeTruthy();

    // Nothing goes out while problem files are listed.
    await user.click(screen.getByRole('button', { name: 'Start upload' }));
    expect(screen.getByRole('alert').textContent).toMatch(/Remove the 2 files with problems first/);
    expect(session.getState().phase).toBe('review');

    await user.click(screen.getByRole('button', { name: 'Remove 2 files with problems' }));
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(rows().map((r) => within(r).getAllByRole('cell')[0]!.textContent)).toEqual(['pump/asm.stp', 'pump/parts/a.stl']);

    await user.click(screen.getByRole('button', { name: 'Start upload' }));
    await waitFor(() => expect(screen.getAllByTestId('upload-row')).toHaveLength(2));
    expect(screen.queryByTestId('upload-review-row')).toBeNull();
    const summary = screen.getByTestId('upload-summary');
    expect(summary.getAttribute('aria-live')).toBe('polite');
    await waitFor(() => expect(summary.textContent).toBe('2 ready'), { timeout: 8000 });
    const link = within(screen.getAllByTestId('upload-row')[1]!).getByRole('link', { name: 'pump/parts/a.stl' });
    expect(link.getAttribute('href')).toMatch(/^\/models\/.+/);
    expect(screen.getByRole('progressbar', { name: 'Bytes sent' }).getAttribute('aria-valuenow')).toBe('100');
    await session.clear();
  }, 15_000);

  it('starts on a click that also commits a freshly typed target folder (the blur replans the review)', async () => {
    const user = userEvent.setup();
    const { service, session } = setup();
    await user.upload(document.querySelector<HTMLInputElement>('[data-testid=upload-file-input]')!, [file('a.stl', 'solid a')]);
    await waitFor(() => expect(screen.getAllByTestId('upload-review-row')).toHaveLength(1));
    // Typed and clicked before the field's 300 ms debounce: the click's blur replans the review.
    const field = screen.getByLabelText('Target folder');
    field.focus();
    await user.paste('Projects');
    expect(session.getState().targetFolder).toBe('');
    await user.click(screen.getByRole('button', { name: 'Start upload' }));
    await waitFor(() => expect(screen.getAllByTestId('upload-row')).toHaveLength(1));
    expect(service.calls.create.flat().map((m) => m.filePath)).toEqual(['Projects/a.stl']);
    await session.clear();
  });

  it('cancels a review without sending anything', async () => {
    const user = userEvent.setup();
    const { service, session } = setup();
    await user.upload(document.querySelector<HTMLInputElement>('[data-testid=upload-file-input]')!, [file('a.stl', 'solid a')]);
    await waitFor(() => expect(screen.getAllByTestId('upload-review-row')).toHaveLength(1));
    // No target folder yet.
    await user.click(screen.getByRole('button', { name: 'Start upload' }));
    expect(screen.getByRole('alert').textContent).toMatch(/Type the folder to put the file/);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByTestId('upload-review-row')).toBeNull();
    expect(session.getState().phase).toBe('empty');
    expect(service.calls.create).toHaveLength(0);
  });
});
