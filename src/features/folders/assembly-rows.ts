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
      seen.transforms = [...(seen.transforms ?? [seen.transform]), ...(node.transforms ?? [node.transform])];
      continue;
    }
    const row = { ...node, occurrences: count };
    byKey.set(key, row);
    rows.push(row);
  }
  return rows;
}
