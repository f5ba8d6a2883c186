import { identity, multiply } from '../../geometry/mesh/transform';
import type { AssemblyTreeNode } from '../../contract/models';

/**
 * Sibling rows of the same model (or the same missing name) as one row with a quantity: a part
 * placed four times is "×4", not four rows. The first occurrence keeps its place in the list.
 */
export function withQuantities(nodes: readonly AssemblyTreeNode[]): AssemblyTreeNode[] {
  const rows: AssemblyTreeNode[] = [];
  const byKey = new Map<string, AssemblyTreeNode>();
  for (const node of nodes) {
    const key = `${node.type}\u0000${node.modelId ?? ''}\u0000${node.modelId ? '' : node.name}`;
    const count = node.occurrences ?? 1;
    const seen = byKey.get(key);
    if (seen) {
      seen.occurrences = (seen.occurrences ?? 1) + count;
      seen.transforms = [...placedAs(seen), ...placedAs(node)];
      continue;
    }
    const row = { ...node, occurrences: count };
    byKey.set(key, row);
    rows.push(row);
  }
  return rows;
}

/**
 * Where a row's model lies in the assembly: every occurrence of every parent placement times the
 * row's own transforms (column-major 4×4, relative to the parent as the tree gives them); none
 * when the tree gives no transforms.
 */
export function placementsOf(parentPlacements: readonly number[][], node: AssemblyTreeNode): number[][] {
  const own = placedAs(node);
  return parentPlacements.flatMap((parent) => own.map((t) => multiply(parent, t)));
}

/** A node's transforms relative to its parent; none when the tree does not say (the published API). */
function placedAs(node: AssemblyTreeNode): number[][] {
  return node.transforms ?? (node.transform ? [node.transform] : []);
}

export const assemblyOrigin: readonly number[][] = [identity()];
