import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { modelCountsWithSubfolders, type Folder } from '../../contract/folders';
import { ancestorIds, buildFolderTree, treeKeyAction, visibleRows } from './folder-tree-model';

export interface FolderTreeProps {
  folders: readonly Folder[];
  selectedId: number | null;
  /** Opens a folder (click, Enter or Space). */
  onActivate: (folder: Folder) => void;
  label?: string;
}

/** A WAI-ARIA tree of folders: one tab stop, arrow keys to move, open and close, Enter to open a folder. */
export function FolderTree({ folders, selectedId, onActivate, label = 'Folders' }: FolderTreeProps) {
  const roots = useMemo(() => buildFolderTree(folders), [folders]);
  const totals = useMemo(() => modelCountsWithSubfolders(folders), [folders]);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set(selectedId === null ? [] : ancestorIds(folders, selectedId)));
  const [revealed, setRevealed] = useState<{ id: number | null; count: number }>({ id: selectedId, count: folders.length });
  // Opening a folder by link (or folders arriving later) reveals it: expand its ancestors once.
  if (revealed.id !== selectedId || revealed.count !== folders.length) {
    setRevealed({ id: selectedId, count: folders.length });
    if (selectedId !== null) setExpanded((prev) => new Set([...prev, ...ancestorIds(folders, selectedId)]));
  }
  const rows = useMemo(() => visibleRows(roots, expanded), [roots, expanded]);
  const [focusedId, setFocusedId] = useState<number | null>(null);
  const items = useRef(new Map<number, HTMLLIElement>());
  const moveFocus = useRef(false);

  // The one row in the tab order: the focused one, else the selected one, else the first.
  const tabStop =
    rows.find((r) => r.folder.id === focusedId)?.folder.id ?? rows.find((r) => r.folder.id === selectedId)?.folder.id ?? rows[0]?.folder.id;

  useEffect(() => {
    if (!moveFocus.current || focusedId === null) return;
    moveFocus.current = false;
    items.current.get(focusedId)?.focus();
  }, [focusedId, rows]);

  const toggle = (id: number, open?: boolean) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (open ?? !next.has(id)) next.add(id);
      else next.delete(id);
      return next;
    });

  const onKeyDown = (event: KeyboardEvent<HTMLLIElement>, id: number) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const action = treeKeyAction(event.key, rows, id);
    if (action.type === 'none') return;
    event.preventDefault();
    event.stopPropagation();
    switch (action.type) {
      case 'focus':
        moveFocus.current = true;
        setFocusedId(action.id);
        break;
      case 'expand':
        toggle(action.id, true);
        break;
      case 'collapse':
        toggle(action.id, false);
        break;
      case 'expand-siblings':
        setExpanded((prev) => new Set([...prev, ...action.ids]));
        break;
      case 'activate': {
        const row = rows.find((r) => r.folder.id === action.id);
        if (row) onActivate(row.folder);
        break;
      }
    }
  };

  return (
    <ul role="tree" aria-label={label} className="tree">
      {rows.map((row) => {
        const id = row.folder.id;
        const selected = id === selectedId;
        return (
          <li
            key={id}
            ref={(el) => {
              if (el) items.current.set(id, el);
              else items.current.delete(id);
            }}
            role="treeitem"
            aria-level={row.level}
            aria-setsize={row.setSize}
            aria-posinset={row.posInSet}
            aria-expanded={row.hasChildren ? row.expanded : undefined}
            aria-selected={selected}
            tabIndex={id === tabStop ? 0 : -1}
            className={`tree__item${selected ? ' tree__item--selected' : ''}`}
            style={{ paddingInlineStart: `${0.25 + (row.level - 1) * 1.1}rem` }}
            data-folder-id={id}
            onKeyDown={(event) => onKeyDown(event, id)}
            onFocus={(event) => {
              if (event.target === event.currentTarget) setFocusedId(id);
            }}
            onClick={() => {
              setFocusedId(id);
              onActivate(row.folder);
            }}
          >
            <span
              className={`tree__toggle${row.hasChildren ? '' : ' tree__toggle--leaf'}`}
              aria-hidden="true"
              onClick={(event) => {
                if (!row.hasChildren) return;
                event.stopPropagation();
                setFocusedId(id);
                toggle(id);
              }}
            >
              {row.hasChildren ? (row.expanded ? '▾' : '▸') : ''}
            </span>
            <span className="tree__icon" aria-hidden="true" />
            <span className="tree__name">{row.folder.name}</span>
            {row.folder.modelCount !== undefined && (
              <TreeCount own={row.folder.modelCount} total={totals.get(id) ?? row.folder.modelCount} />
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** How many models a folder holds, its subfolders' included (a project folder is not "0"); the title says how many are its own. */
function TreeCount({ own, total }: { own: number; total: number }) {
  const title = total === own ? `${own} models` : `${own} models here, ${total} with subfolders`;
  return (
    <span className="tree__count" aria-hidden="true" title={title}>
      {total.toLocaleString('en-US')}
    </span>
  );
}
