import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Folder } from '../../contract/folders';
import { FolderTree } from './folder-tree';
import { buildFolderTree, treeKeyAction, visibleRows } from './folder-tree-model';

function folder(id: number, name: string, parentFolderId: number | null = null): Folder {
  return { id, name, parentFolderId, path: name, createdAt: '2026-01-01T00:00:00.000Z', modelCount: id };
}

// Brackets
//   Aluminium
//     Cast
//   Steel
// Gears
const folders = [folder(1, 'Brackets'), folder(2, 'Steel', 1), folder(3, 'Aluminium', 1), folder(4, 'Cast', 3), folder(5, 'Gears')];

afterEach(cleanup);

describe('folder tree model', () => {
  it('nests by parent and sorts siblings by name', () => {
    const roots = buildFolderTree(folders);
    expect(roots.map((r) => r.folder.name)).toEqual(['Brackets', 'Gears']);
    expect(roots[0]?.children.map((c) => c.folder.name)).toEqual(['Aluminium', 'Steel']);
  });

  it('shows children of expanded folders only, with level and position', () => {
    const rows = visibleRows(buildFolderTree(folders), new Set([1]));
    expect(rows.map((r) => [r.folder.name, r.level, r.posInSet, r.setSize])).toEqual([
      ['Brackets', 1, 1, 2],
      ['Aluminium', 2, 1, 2],
      ['Steel', 2, 2, 2],
      ['Gears', 1, 2, 2],
    ]);
  });

  it('maps keys to actions as the ARIA tree pattern says', () => {
    const rows = visibleRows(buildFolderTree(folders), new Set([1]));
    expect(treeKeyAction('ArrowDown', rows, 1)).toEqual({ type: 'focus', id: 3 });
    expect(treeKeyAction('ArrowUp', rows, 3)).toEqual({ type: 'focus', id: 1 });
    expect(treeKeyAction('ArrowUp', rows, 1)).toEqual({ type: 'none' });
    expect(treeKeyAction('ArrowRight', rows, 1)).toEqual({ type: 'focus', id: 3 }); // open: into the first child
    expect(treeKeyAction('ArrowRight', rows, 3)).toEqual({ type: 'expand', id: 3 }); // closed: open it
    expect(treeKeyAction('ArrowRight', rows, 2)).toEqual({ type: 'none' }); // leaf
    expect(treeKeyAction('ArrowLeft', rows, 1)).toEqual({ type: 'collapse', id: 1 });
    expect(treeKeyAction('ArrowLeft', rows, 2)).toEqual({ type: 'focus', id: 1 }); // to the parent
    expect(treeKeyAction('End', rows, 1)).toEqual({ type: 'focus', id: 5 });
    expect(treeKeyAction('Home', rows, 5)).toEqual({ type: 'focus', id: 1 });
    expect(treeKeyAction('Enter', rows, 2)).toEqual({ type: 'activate', id: 2 });
    expect(treeKeyAction('x', rows, 2)).toEqual({ type: 'none' });
  });
});

describe('<FolderTree>', () => {
  it('is one tab stop and is driven by arrow keys and Enter', async () => {
    const onActivate = vi.fn();
    const user = userEvent.setup();
    render(
      <>
        <button type="button">before</button>
        <FolderTree folders={folders} selectedId={null} onActivate={onActivate} />
      </>,
    );
    expect(screen.getByRole('tree', { name: 'Folders' })).toBeTruthy();
    expect(screen.getAllByRole('treeitem').map((i) => i.querySelector('.tree__name')?.textContent)).toEqual(['Brackets', 'Gears']);

    await user.click(screen.getByRole('button', { name: 'before' }));
    await user.tab();
    const brackets = screen.getByRole('treeitem', { name: 'Brackets' });
    expect(document.activeElement).toBe(brackets);
    expect(brackets.getAttribute('aria-expanded')).toBe('false');

    await user.keyboard('{ArrowRight}');
    expect(brackets.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getAllByRole('treeitem')).toHaveLength(4);

    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(screen.getByRole('treeitem', { name: 'Aluminium' }));
    await user.keyboard('{ArrowRight}{ArrowDown}');
    expect(document.activeElement).toBe(screen.getByRole('treeitem', { name: 'Cast' }));
    expect(screen.getByRole('treeitem', { name: 'Cast' }).getAttribute('aria-level')).toBe('3');

    // Only the focused row is in the tab order.
    expect(screen.getAllByRole('treeitem').filter((i) => i.tabIndex === 0)).toEqual([document.activeElement]);

    await user.keyboard('{ArrowLeft}');
    expect(document.activeElement).toBe(screen.getByRole('treeitem', { name: 'Aluminium' }));
    await user.keyboard('{ArrowLeft}');
    expect(screen.queryByRole('treeitem', { name: 'Cast' })).toBeNull();
    await user.keyboard('{End}');
    expect(document.activeElement).toBe(screen.getByRole('treeitem', { name: 'Gears' }));

    await user.keyboard('{Enter}');
    expect(onActivate).toHaveBeenCalledWith(expect.objectContaining({ id: 5, name: 'Gears' }));
  });

  it('opens the way to the selected folder and marks it selected', () => {
    render(<FolderTree folders={folders} selectedId={4} onActivate={() => undefined} />);
    const cast = screen.getByRole('treeitem', { name: 'Cast' });
    expect(cast.getAttribute('aria-selected')).toBe('true');
    expect(cast.tabIndex).toBe(0);
    expect(screen.getByRole('treeitem', { name: 'Brackets' }).getAttribute('aria-selected')).toBe('false');
  });

  it('opens a folder on click', async () => {
    const onActivate = vi.fn();
    render(<FolderTree folders={folders} selectedId={null} onActivate={onActivate} />);
    await userEvent.setup().click(screen.getByRole('treeitem', { name: 'Gears' }));
    expect(onActivate).toHaveBeenCalledWith(expect.objectContaining({ id: 5 }));
  });
});
