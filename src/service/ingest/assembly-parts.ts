import { sql, type Kysely } from 'kysely';
import { BlobNotFoundError, type BlobStore } from '../files/blob-store';
import { identity, multiply } from '../../geometry/mesh/transform';
import { parseStepPlacements, topOccurrences, type StepOccurrence } from '../../geometry/step/step-placements';
import { storedFilesNamed } from '../store/models';
import type { Database } from '../store/schema';
import type { PartInput } from './process-model';
import { isStepFile } from '../../contract/file-types';
import type { WorkerPool } from './worker-pool';

/** One node of a model's `assembly_tree` (GET /v2/models/{id}/assembly-tree). */
export interface AssemblyTreeNode {
  type: 'part' | 'subAssembly';
  /** The model that supplied this file; null when it is missing (or the node is embedded). */
  modelId: string | null;
  name: string;
  /** Column-major 4×4 placement in the parent, lengths in millimetres. */
  transform: number[];
  /** Set when no model with this file name was found. */
  missing?: true;
  children?: AssemblyTreeNode[];
}

export interface ResolvedAssembly {
  /** Direct references of the assembly with the model found for each (null = missing). */
  links: { refName: string; partId: string | null }[];
  tree: AssemblyTreeNode[];
  /**
   * Every file to import, leaves and sub-assemblies (which may carry geometry of their own), each
   * distinct file once with all its occurrences' placements in the assembly (millimetres, as the
   * importers return).
   */
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

const MAX_DEPTH = 8;

/**
 * Finds the files an external-reference STEP assembly needs among the tenant's models: by file
 * name (case-insensitively) in the assembly's folder or any subfolder, the nearest folder first
 * (an assembly is finished only when its parts are). Sub-assemblies are followed down to
 * their parts, in their own folder first; cycles and absurd depths stop the descent.
 *
 * Placements come from the assembly files' product structure (step-placements.ts): every
 * occurrence of a file becomes one part to import, placed by the product of the transforms
 * from the top down; the tree keeps each occurrence's transform relative to its parent.
 * `assemblyBytes` is the assembly file itself; without it (or for references the structure
 * does not place) parts stay where their own file has them.
 */
export async function resolveAssembly(
  deps: { db: Kysely<Database>; blobs: BlobStore; pool: WorkerPool },
  assembly: ModelRef,
  references: string[],
  assemblyBytes?: Uint8Array,
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
  const linked = new Set<string>();
  // Part model id → its entry in out.parts: a file placed several times is sent and imported once.
  const partsByModel = new Map<string, PartInput>();

  // One lookup, read and scan per (owner, file name), however many occurrences it has.
  type Found = { model: ModelRef & { blob_key: string }; bytes: Uint8Array | undefined } | undefined;
  const lookups = new Map<string, Promise<Found>>();
  const lookup = (owner: ModelRef, ref: string, ancestry: Set<string>) => {
    const key = `${owner.id}\n${ref.toLowerCase()}\n${[...ancestry].join(',')}`;
    let p = lookups.get(key);
    if (!p) {
      p = (async () => {
        const found =
          (await findPart(db, assembly.tenant_id, await subtree(owner.folder_id), ref, ancestry)) ??
          (owner.id !== assembly.id ? await findPart(db, assembly.tenant_id, await subtree(assembly.folder_id), ref, ancestry) : undefined);
        if (!found) return undefined;
        try {
          return { model: found, bytes: await blobs.get(found.blob_key) };
        } catch (error) {
          if (!(error instanceof BlobNotFoundError)) throw error;
          if (!out.unreadable.includes(found.id)) out.unreadable.push(found.id);
          return { model: found, bytes: undefined };
        }
      })();
      lookups.set(key, p);
    }
    return p;
  };
  const subStructures = new Map<string, Promise<StepOccurrence[]>>();
  const subStructure = (found: ModelRef, bytes: Uint8Array) => {
    let p = subStructures.get(found.id);
    if (!p) {
      p = (async () => {
        if (!isStepFile(found.file_name)) return [];
        const scan = await pool.run({ kind: 'scan', fileName: found.file_name, bytes }, { timeoutMs: 30_000 });
        return scan.references.length ? occurrencesOf(bytes, scan.references) : [];
      })();
      subStructures.set(found.id, p);
    }
    return p;
  };

  const walk = async (
    owner: ModelRef,
    occurrences: StepOccurrence[],
    path: string,
    ancestry: Set<string>,
    depth: number,
    world: number[],
  ): Promise<AssemblyTreeNode[]> => {
    const nodes: AssemblyTreeNode[] = [];
    for (const occ of occurrences) {
      const transform = occ.transform.slice();
      const placed = multiply(world, transform);
      const ref = occ.referencedFile;
      if (ref === null) {
        // A product inside the owner file: its geometry (if any) comes with the owner's own.
        if (occ.children.length) {
          nodes.push({
            type: 'subAssembly',
            modelId: null,
            name: occ.name,
            transform,
            children: await walk(owner, occ.children, path, ancestry, depth, placed),
          });
        } else {
          nodes.push({ type: 'part', modelId: null, name: occ.name, transform });
        }
        continue;
      }
      const refPath = path ? `${path}/${ref}` : ref;
      const found = await lookup(owner, ref, ancestry);
      if (depth === 0 && !linked.has(ref.toLowerCase())) {
        linked.add(ref.toLowerCase());
        out.links.push({ refName: ref, partId: found?.model.id ?? null });
      }
      if (!found?.bytes) {
        addMissing(ref);
        nodes.push({ type: 'part', modelId: found?.model.id ?? null, name: ref, transform, missing: true });
        continue;
      }
      const { model, bytes } = found;
      const entry = partsByModel.get(model.id);
      if (entry) entry.placements.push({ path: refPath, transform: placed });
      else {
        const part: PartInput = { fileName: model.file_name, bytes, placements: [{ path: refPath, transform: placed }] };
        partsByModel.set(model.id, part);
        out.parts.push(part);
      }
      const sub = depth + 1 < MAX_DEPTH ? await subStructure(model, bytes) : [];
      if (sub.length === 0) {
        nodes.push({ type: 'part', modelId: model.id, name: ref, transform });
      } else {
        const children = await walk(model, sub, refPath, new Set([...ancestry, model.id]), depth + 1, placed);
        nodes.push({ type: 'subAssembly', modelId: model.id, name: ref, transform, children });
      }
    }
    return nodes;
  };

  const top = assemblyBytes ? occurrencesOf(assemblyBytes, references) : references.map(unplaced);
  out.tree = await walk(assembly, top, '', new Set([assembly.id]), 0, identity());
  return out;
}

/**
 * The occurrences below a STEP assembly file's product, with placements. References the product
 * structure does not reach (or a structure that cannot be read) are kept, unplaced.
 */
export function occurrencesOf(bytes: Uint8Array, references: string[]): StepOccurrence[] {
  let occurrences: StepOccurrence[];
  try {
    occurrences = topOccurrences(parseStepPlacements(bytes));
  } catch {
    occurrences = [];
  }
  // Only the scan's references are external files (it leaves out e.g. the file naming itself).
  const known = new Set(references.map((r) => r.toLowerCase()));
  const reached = new Set<string>();
  const keep = (os: StepOccurrence[]): StepOccurrence[] =>
    os.map((o) => {
      const file = o.referencedFile?.toLowerCase();
      if (file !== undefined && known.has(file)) {
        reached.add(file);
        return o;
      }
      return { ...o, referencedFile: null, referencedPath: null, children: keep(o.children) };
    });
  occurrences = keep(occurrences);
  // Nothing placed at all (e.g. references outside NEXT_ASSEMBLY_USAGE_OCCURRENCE): old behaviour.
  if (reached.size === 0) return references.map(unplaced);
  return [...occurrences, ...references.filter((r) => !reached.has(r.toLowerCase())).map(unplaced)];
}

function unplaced(ref: string): StepOccurrence {
  return { name: ref, instance: '', referencedFile: ref, referencedPath: ref, transform: identity(), children: [] };
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
  const rows = await storedFilesNamed(db, tenantId, [...folders.keys()], [fileName]);
  const candidates = rows
    .filter((r) => !exclude.has(r.id))
    // nearest folder first, then the newest upload
    .sort((a, b) => (folders.get(a.folder_id) ?? 0) - (folders.get(b.folder_id) ?? 0) || b.created_at.getTime() - a.created_at.getTime());
  return candidates[0];
}
