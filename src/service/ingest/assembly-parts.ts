import { sql, type Kysely } from 'kysely';
import { BlobNotFoundError, type BlobStore } from '../files/blob-store';
import type { Database } from '../store/schema';
import type { PartInput } from './process-model';
import { isStepFileName } from './process-model';
import type { WorkerPool } from './worker-pool';

/** One node of a model's `assembly_tree` (api-contract.md, GET /v2/models/{id}/assembly-tree). */
export interface AssemblyTreeNode {
  type: 'part' | 'subAssembly';
  /** The model that supplied this file; null when it is missing (or the node is embedded). */
  modelId: string | null;
  name: string;
  /** Column-major 4×4 placement in the parent. */
  transform: number[];
  /** Set when no model with this file name was found. */
  missing?: true;
  children?: AssemblyTreeNode[];
}

export interface ResolvedAssembly {
  /** Direct references of the assembly with the model found for each (null = missing). */
  links: { refName: string; partId: string | null }[];
  tree: AssemblyTreeNode[];
  /** Every file to import, leaves and sub-assemblies (which may carry geometry of their own). */
  parts: PartInput[];
  /** File names not found anywhere in the tree, in order of first appearance. */
  missing: string[];
  /** Part models whose stored file could not be read; they count as missing. */
  unreadable: string[];
}

interface ModelRef {
  id: string;
  tenant_id: number;
  folder_id: number;
  file_name: string;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const MAX_DEPTH = 8;

/**
 * Finds the files an external-reference STEP assembly needs among the tenant's models: by file
 * name (case-insensitively) in the assembly's folder or any subfolder, the nearest folder first
 * (service-interface.md, States and transitions, rule 3). Sub-assemblies are followed down to
 * their parts, in their own folder first; cycles and absurd depths stop the descent.
 */
export async function resolveAssembly(
  deps: { db: Kysely<Database>; blobs: BlobStore; pool: WorkerPool },
  assembly: ModelRef,
  references: string[],
): Promise<ResolvedAssembly> {
  const { db, blobs, pool } = deps;
  const out: ResolvedAssembly = { links: [], tree: [], parts: [], missing: [], unreadable: [] };
  const subtrees = new Map<number, Map<number, number>>();
  const subtree = async (folderId: number) => {
    let s = subtrees.get(folderId);
    if (!s) subtrees.set(folderId, (s = await folderSubtree(db, assembly.tenant_id, folderId)));
    return s;
  };
  const addMissing = (name: string) => {
    if (!out.missing.some((m) => m.toLowerCase() === name.toLowerCase())) out.missing.push(name);
  };

  const walk = async (owner: ModelRef, refs: string[], path: string, ancestry: Set<string>, depth: number): Promise<AssemblyTreeNode[]> => {
    const nodes: AssemblyTreeNode[] = [];
    for (const ref of refs) {
      const refPath = path ? `${path}/${ref}` : ref;
      const found =
        (await findPart(db, assembly.tenant_id, await subtree(owner.folder_id), ref, ancestry)) ??
        (owner.id !== assembly.id ? await findPart(db, assembly.tenant_id, await subtree(assembly.folder_id), ref, ancestry) : undefined);
      let bytes: Uint8Array | undefined;
      if (found) {
        try {
          bytes = await blobs.get(found.blob_key);
        } catch (error) {
          if (!(error instanceof BlobNotFoundError)) throw error;
          out.unreadable.push(found.id);
        }
      }
      if (depth === 0) out.links.push({ refName: ref, partId: found?.id ?? null });
      if (!found || !bytes) {
        addMissing(ref);
        nodes.push({ type: 'part', modelId: found?.id ?? null, name: ref, transform: IDENTITY, missing: true });
        continue;
      }
      out.parts.push({ path: refPath, fileName: found.file_name, bytes });
      let subRefs: string[] = [];
      if (isStepFileName(found.file_name) && depth + 1 < MAX_DEPTH) {
        const scan = await pool.run({ kind: 'scan', fileName: found.file_name, bytes }, { timeoutMs: 30_000 });
        subRefs = scan.references;
      }
      if (subRefs.length === 0) {
        nodes.push({ type: 'part', modelId: found.id, name: ref, transform: IDENTITY });
      } else {
        const children = await walk(found, subRefs, refPath, new Set([...ancestry, found.id]), depth + 1);
        nodes.push({ type: 'subAssembly', modelId: found.id, name: ref, transform: IDENTITY, children });
      }
    }
    return nodes;
  };

  out.tree = await walk(assembly, references, '', new Set([assembly.id]), 0);
  return out;
}

/** Folder ids of `folderId` and everything below it, each with its depth below `folderId`. */
export async function folderSubtree(db: Kysely<Database>, tenantId: number, folderId: number): Promise<Map<number, number>> {
  const { rows } = await sql<{ id: number; depth: number }>`
    with recursive sub(id, depth) as (
      select id, 0 from folders where id = ${folderId} and tenant_id = ${tenantId}
      union all
      select f.id, sub.depth + 1 from folders f join sub on f.parent_folder_id = sub.id
      where f.tenant_id = ${tenantId} and sub.depth < 64
    )
    select id, min(depth)::int as depth from sub group by id`.execute(db);
  return new Map(rows.map((r) => [r.id, r.depth]));
}

/** Folder ids of `folderId` and all its ancestors. */
export async function folderAncestry(db: Kysely<Database>, tenantId: number, folderId: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    with recursive up(id, parent, depth) as (
      select id, parent_folder_id, 0 from folders where id = ${folderId} and tenant_id = ${tenantId}
      union all
      select f.id, f.parent_folder_id, up.depth + 1 from folders f join up on f.id = up.parent
      where f.tenant_id = ${tenantId} and up.depth < 64
    )
    select distinct id from up`.execute(db);
  return rows.map((r) => r.id);
}

async function findPart(db: Kysely<Database>, tenantId: number, folders: Map<number, number>, fileName: string, exclude: Set<string>) {
  if (folders.size === 0) return undefined;
  const rows = await db
    .selectFrom('models')
    .select(['id', 'tenant_id', 'folder_id', 'file_name', 'blob_key', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('file_name_lower', '=', fileName.toLowerCase())
    .where('folder_id', 'in', [...folders.keys()])
    .where('state', '<>', 'incomplete-upload')
    .where('blob_key', 'is not', null)
    .execute();
  const candidates = rows
    .filter((r): r is typeof r & { blob_key: string } => r.blob_key !== null && !exclude.has(r.id))
    // nearest folder first, then the newest upload
    .sort((a, b) => (folders.get(a.folder_id) ?? 0) - (folders.get(b.folder_id) ?? 0) || b.created_at.getTime() - a.created_at.getTime());
  return candidates[0];
}
