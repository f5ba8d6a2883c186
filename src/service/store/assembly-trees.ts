// An assembly's tree as the service answers it, and the part list flattened from it. Ingestion
// stores the tree (models.assembly_tree) with the parts its file names; parts uploaded as files of
// their own are linked by name (assembly_links).
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { assemblyTreeNodeSchema, type AssemblyTreeNode } from '../../contract/models';
import { foldNameCase } from './folders';
import { assemblyLinksOf, modelsByIds } from './models';
import type { Database, ModelRow } from './schema';

/** The tree of an assembly in the published shape, each part node with the model it resolves to (empty when missing). */
export async function assemblyTreeOf(db: Kysely<Database>, row: ModelRow): Promise<AssemblyTreeNode[]> {
  const links = await assemblyLinksOf(db, row.id);
  const partByName = new Map(links.map((l) => [foldNameCase(l.ref_name), l.part_id]));
  const resolve = (node: AssemblyTreeNode): AssemblyTreeNode => ({
    ...node,
    modelId: node.modelId ?? (node.type === 'part' ? (partByName.get(foldNameCase(node.name)) ?? null) : null),
    ...(node.children ? { children: node.children.map(resolve) } : {}),
  });
  return publishedTree(storedTree(row.assembly_tree).map(resolve));
}

/**
 * The published shape: `assemblyPart` for parts, identical siblings (same kind, model and name)
 * as one node with `occurrences` and all their placements, `children` on every sub-assembly, and
 * an empty `modelId` for a missing part file.
 */
function publishedTree(nodes: AssemblyTreeNode[]): AssemblyTreeNode[] {
  const groups = new Map<string, AssemblyTreeNode>();
  for (const node of nodes) {
    // Ingestion writes every node's transform; the schema allows none because the published API sends none.
    const transform = node.transform ?? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const type = node.type === 'subAssembly' ? 'subAssembly' : 'assemblyPart';
    const key = `${type}\u0000${node.modelId ?? ''}\u0000${foldNameCase(node.name)}`;
    const seen = groups.get(key);
    if (seen) {
      seen.occurrences = (seen.occurrences ?? 1) + 1;
      seen.transforms?.push(transform);
      continue;
    }
    groups.set(key, {
      type,
      modelId: node.modelId ?? '',
      name: node.name,
      transform,
      occurrences: 1,
      transforms: [transform],
      ...(type === 'subAssembly' ? { children: publishedTree(node.children ?? []) } : {}),
    });
  }
  return [...groups.values()];
}

/** assembly_tree as ingestion writes it: `{children: [...]}` or the bare array of nodes. */
function storedTree(value: unknown): AssemblyTreeNode[] {
  const children = Array.isArray(value) ? value : (value as { children?: unknown } | null)?.children;
  const parsed = z.array(assemblyTreeNodeSchema).safeParse(children ?? []);
  return parsed.success ? parsed.data : [];
}

/** One line of a flattened part list: a part and how many of it the whole assembly places. */
export interface PartLine {
  /** Empty for a part whose file is missing. */
  modelId: string;
  name: string;
  quantity: number;
}

/** Sub-assemblies nested deeper than this are not followed (a tree that names itself would not end). */
const MAX_DEPTH = 32;

/**
 * The parts an assembly places, however deep, each once with its total quantity (occurrences
 * multiplied down the tree). A sub-assembly stored as a model of its own and written without
 * children in this tree is read from its own tree.
 */
export async function flattenedParts(db: Kysely<Database>, tenantId: number, row: ModelRow): Promise<PartLine[]> {
  const lines = new Map<string, PartLine>();
  const trees = new Map<string, AssemblyTreeNode[]>([[row.id, await assemblyTreeOf(db, row)]]);
  const treeOf = async (modelId: string): Promise<AssemblyTreeNode[]> => {
    let tree = trees.get(modelId);
    if (!tree) {
      const [sub] = await modelsByIds(db, tenantId, [modelId]);
      tree = sub ? await assemblyTreeOf(db, sub) : [];
      trees.set(modelId, tree);
    }
    return tree;
  };
  const walk = async (nodes: AssemblyTreeNode[], times: number, path: readonly string[]) => {
    for (const node of nodes) {
      const n = times * (node.occurrences ?? 1);
      if (node.type === 'subAssembly') {
        const id = node.modelId ?? '';
        if (path.length >= MAX_DEPTH || (id && path.includes(id))) continue;
        await walk(node.children?.length ? node.children : id ? await treeOf(id) : [], n, id ? [...path, id] : path);
        continue;
      }
      const key = node.modelId || `name:${foldNameCase(node.name)}`;
      const line = lines.get(key);
      if (line) line.quantity += n;
      else lines.set(key, { modelId: node.modelId ?? '', name: node.name, quantity: n });
    }
  };
  await walk(trees.get(row.id)!, 1, [row.id]);
  return [...lines.values()].sort((a, b) => a.name.localeCompare(b.name) || (a.modelId < b.modelId ? -1 : 1));
}
