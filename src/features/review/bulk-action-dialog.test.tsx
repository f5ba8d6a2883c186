import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { json, stubFetch } from '../../api/testing/test-fetch';
import type { DecidedDuplicate } from '../../contract/duplicate-review';
import { makeFolder, makeModel } from '../../api/testing/test-fixtures';
import { BulkActionDialog } from './bulk-action-dialog';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const reportId = '6f1c1a52-54a4-4a43-9b4e-0c51b1f7a9d1';
const master = makeModel({ id: 'master', name: 'Flange', filePath: 'parts/flange.stl', fileName: 'flange.stl' });
const duplicate = (i: number, usedIn: DecidedDuplicate['usedIn'] = []): DecidedDuplicate => ({
  model: makeModel({ id: `d${i}`, name: `Copy ${i}`, filePath: `copies/copy-${i}.stl`, fileName: `copy-${i}.stl` }),
  master,
  usedIn,
});

function setup(duplicates: DecidedDuplicate[], refuseAt?: number) {
  const sent: { action: string; modelIds: string[]; confirmedAssemblyIds?: string[]; reportId?: string }[] = [];
  stubFetch(async (url, init) => {
    if (url.pathname === '/v2/folders')
      return json({
        folders: [makeFolder(7, 'archive')],
        pageData: { total: 1, perPage: 100, currentPage: 1, lastPage: 1, startIndex: 0, endIndex: 1 },
      });
    if (url.pathname === '/v2/duplicate-decisions/actions') {
      const body = JSON.parse(String(init?.body)) as (typeof sent)[number];
      sent.push(body);
      if (sent.length === refuseAt)
        return json(
          { error: { message: 'A model with the path “archive/copy-150.stl” already exists; nothing was moved.', code: 'conflict' } },
          409,
        );
      return json({ action: body.action, modelIds: body.modelIds });
    }
    return json({ error: { message: 'Not found.', code: 'not_found' } }, 404);
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const dialog = (list: DecidedDuplicate[]) => (
    <QueryClientProvider client={client}>
      <BulkActionDialog reportId={reportId} duplicates={list} onClose={() => {}} />
    </QueryClientProvider>
  );
  const { rerender } = render(dialog(duplicates));
  return { sent, rerender: (list: DecidedDuplicate[]) => rerender(dialog(list)) };
}

describe('bulk action dialog', () => {
  it('deletes only after every assembly that references a duplicate is confirmed by name; shape-only users need none', async () => {
    const user = userEvent.setup();
    const rig = { id: 'rig', name: 'rig.step', filePath: 'assemblies/rig.step', by: 'reference' as const };
    const found = { id: 'cart', name: 'cart.step', filePath: 'assemblies/cart.step', by: 'shape' as const };
    const { sent, rerender } = setup([duplicate(1, [rig, found]), duplicate(2)]);
    const dialog = screen.getByRole('dialog');
    await user.click(within(dialog).getByRole('radio', { name: 'Delete them' }));
    expect(within(dialog).getByTestId('bulk-plan').textContent).toContain('copies/copy-1.stl is deleted (parts/flange.stl is kept)');
    const remove = within(dialog).getByRole('button', { name: 'Delete 2' });
    expect((remove as HTMLButtonElement).disabled).toBe(true);
    expect(within(dialog).queryByRole('checkbox', { name: /cart\.step/ })).toBeNull();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Delete parts used by assemblies/rig.step' }));
    await user.click(remove);
    await within(dialog).findByText('Done: 2 of 2.');
    expect(sent).toEqual([{ action: 'delete', confirmedAssemblyIds: ['rig'], modelIds: ['d1', 'd2'], reportId }]);
    // The report's list empties as it is acted on; the dialog still says what was done.
    rerender([]);
    expect(within(dialog).getByText('What was done:')).toBeTruthy();
    expect(within(dialog).getByTestId('bulk-plan').textContent).toContain('copies/copy-2.stl is deleted');
  });

  it('sends 100 models a request and stops at a refusal, saying how far it got', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 230 }, (_, i) => duplicate(i));
    const { sent } = setup(many, 2);
    const dialog = screen.getByRole('dialog');
    await user.click(await within(dialog).findByRole('radio', { name: 'archive' }));
    expect(within(dialog).getByTestId('bulk-plan').textContent).toContain('copies/copy-0.stl → archive/copy-0.stl');
    await user.click(within(dialog).getByRole('button', { name: 'Move 230' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('already exists; nothing was moved');
    expect(within(dialog).getByText('Stopped after 100 of 230.')).toBeTruthy();
    expect(sent.map((s) => s.modelIds.length)).toEqual([100, 100]);
    expect(sent.every((s) => s.action === 'move' && (s as unknown as { folderId: number }).folderId === 7)).toBe(true);
  });
});

describe('bulk move undo', () => {
  it('moves each duplicate back to the folder it came from, from the report', async () => {
    const user = userEvent.setup();
    const a = duplicate(1);
    const b = { ...duplicate(2), model: { ...duplicate(2).model, folderId: 9 } };
    const { sent } = setup([a, b]);
    const dialog = screen.getByRole('dialog');
    await user.click(await within(dialog).findByRole('radio', { name: 'archive' }));
    await user.click(within(dialog).getByRole('button', { name: 'Move 2' }));
    await within(dialog).findByText('Done: 2 of 2.');
    await user.click(within(dialog).getByRole('button', { name: 'Undo the move' }));
    await within(dialog).findByTestId('bulk-undone');
    expect(sent.slice(1).sort((x, y) => String(x.modelIds).localeCompare(String(y.modelIds)))).toEqual([
      { action: 'move', folderId: a.model.folderId, modelIds: ['d1'], reportId },
      { action: 'move', folderId: 9, modelIds: ['d2'], reportId },
    ]);
  });
});
