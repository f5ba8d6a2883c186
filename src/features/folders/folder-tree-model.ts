// The folder tree as plain data: built from the flat folder list, flattened into the rows a
// tree widget shows, and the WAI-ARIA tree keyboard rules as a pure function.
import type { Folder } from '../../contract/folders';

export interface FolderNode {
  folder: Folder;
  children: FolderNode[];
}

export interface TreeRow {
  folder: Folder;
  level: number;
  parentId: number | null;
  hasChildren: boolean;
  expanded: boolean;
  posInSet: number;
  setSize: number;
}

const byName = (a: FolderNode, b: FolderNode) =>
  a.folder.name.localeCompare(b.folder.name, undefined, { sensitivity: 'base', numeric: true }) || a.folder.id - b.folder.id;

/** Nests folders by parentFolderId; a folder whose parent is not in the list becomes a root. */
export function buildFolderTree(folders: readonly Folder[]): FolderNode[] {
  const nodes = new Map<number, FolderNode>(folders.map((f) => [f.id, { folder: f, children: [] }]));
  const roots: FolderNode[] = [];
  for (const node of nodes.values()) {
    const parentId = node.folder.parentFolderId;
    const parent = parentId == null ? undefined : nodes.get(parentId);
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const sort = (list: FolderNode[]) => {
    list.sort(byName);
    for (const n of list) sort(n.children);
  };
  sort(roots);
  return roots;
}

/** Ids of a folder's ancestors, nearest last (for expanding the way to the selected folder). */
export function ancestorIds(folders: readonly Folder[], id: number): number[] {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const out: number[] = [];
  const seen = new Set<number>([id]);
  let parent = byId.get(id)?.parentFolderId ?? null;
  while (parent !== null && !seen.has(parent) && byId.has(parent)) {
    out.unshift(parent);
    seen.add(parent);
    parent = byId.get(parent)?.parentFolderId ?? null;
  }
  return out;
}

/** The rows on screen: each root, and the children of every expanded folder, depth first. */
export function visibleRows(roots: readonly FolderNode[], expanded: ReadonlySet<number>): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (list: readonly FolderNode[], level: number, parentId: number | null) => {
    list.forEach((node, index) => {
      const isOpen = node.children.length > 0 && expanded.has(node.folder.id);
      rows.push({
        folder: node.folder,
        level,
        parentId,
        hasChildren: node.children.length > 0,
        expanded: isOpen,
        posInSet: index + 1,
        setSize: list.length,
      });
      if (isOpen) walk(node.children, level + 1, node.folder.id);
    });
  };
  walk(roots, 1, null);
  return rows;
}

export type TreeAction =
  | { type: 'focus'; id: number }
  | { type: 'expand'; id: number }
  | { type: 'collapse'; id: number }
  | { type: 'expand-siblings'; ids: number[] }
  | { type: 'activate'; id: number }
  | { type: 'none' };

/**
 * What a key does on the focused row (WAI-ARIA APG tree view): Up/Down move, Right opens a closed
 * folder or moves into an open one, Left closes an open folder or moves to the parent, Home/End
 * jump, Enter opens the folder's page, `*` expands the focused folder's siblings.
 */
export function treeKeyAction(key: string, rows: readonly TreeRow[], focusedId: number): TreeAction {
  const index = rows.findIndex((r) => r.folder.id === focusedId);
  const row = rows[index];
  if (!row) return rows[0] ? { type: 'focus', id: rows[0].folder.id } : { type: 'none' };
  const at = (i: number): TreeAction => {
    const target = rows[i];
    return target ? { type: 'focus', id: target.folder.id } : { type: 'none' };
  };
  switch (key) {
    case 'ArrowDown':
      return at(index + 1);
    case 'ArrowUp':
      return at(index - 1);
    case 'Home':
      return at(0);
    case 'End':
      return at(rows.length - 1);
    case 'ArrowRight':
      if (!row.hasChildren) return { type: 'none' };
      return row.expanded ? at(index + 1) : { type: 'expand', id: row.folder.id };
    case 'ArrowLeft':
      if (row.expanded) return { type: 'collapse', id: row.folder.id };
      return row.parentId === null ? { type: 'none' } : { type: 'focus', id: row.parentId };
    case 'Enter':
    case ' ':
      return { type: 'activate', id: row.folder.id };
    case '*':
      return {
        type: 'expand-siblings',
        ids: rows.filter((r) => r.parentId === row.parentId && r.hasChildren).map((r) => r.folder.id),
      };
    default:
      return { type: 'none' };
  }
}
