// Part-in-part that ingestion already knows: an external-reference assembly's tree names the part
// models it placed and where (assembly-parts.ts). Such a pair needs no geometry: the part is all
// there (≈ 100 %) and covers its area share of the assembly (copies × part area / assembly area).
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { assemblyTreeNodeSchema, type AssemblyTreeNode } from '../../contract/models';
import { identity, invertRigidMat4, multiply } from '../../geometry/mesh/transform';
import { assembliesPlacing } from '../store/models';
import type { Database, ModelRow } from '../store/schema';

export interface Placement {
  /** Part model placed in the assembly. */
  partId: string;
  copies: number;
  /** Column-major 4×4: the part in the assembly's frame (first occurrence). */
  transform: number[];
}

/** Every model placed anywhere in an assembly tree, with its world placement and copy count. */
export function placementsOf(storedTree: unknown): Placement[] {
  const children = Array.isArray(storedTree) ? storedTree : (storedTree as { children?: unknown } | null)?.children;
  const parsed = z.array(assemblyTreeNodeSchema).safeParse(children ?? []);
  if (!parsed.success) return [];
  const found = new Map<string, Placement>();
  const walk = (nodes: AssemblyTreeNode[], world: number[]) => {
    for (const n of nodes) {
      const placed = multiply(world, n.transform?.length === 16 ? n.transform : identity());
      if (n.modelId && !(n as { missing?: boolean }).missing) {
        const p = found.get(n.modelId);
        if (p) p.copies++;
        else found.set(n.modelId, { partId: n.modelId, copies: 1, transform: placed });
      }
      if (n.children) walk(n.children, placed);
    }
  };
  walk(parsed.data, identity());
  return [...found.values()];
}

export interface KnownContainment {
  modelId: string;
  forward: number;
  reverse: number;
  /** Times the part is placed in the assembly. */
  copies: number;
  transform: number[];
}

/**
 * Known containment pairs of `query`: its own placed parts (query = assembly) and the assemblies
 * that place it (query = part). `areaOf` gives stored surface areas (mm²).
 */
export async function knownContainment(
  db: Kysely<Database>,
  query: ModelRow,
  areaOf: (ids: string[]) => Promise<Map<string, number>>,
): Promise<KnownContainment[]> {
  const own = placementsOf(query.assembly_tree).filter((p) => p.partId !== query.id);
  const parents = await assembliesPlacing(db, query.tenant_id, query.id);
  const asPart = parents.flatMap((a) =>
    placementsOf(a.assembly_tree)
      .filter((p) => p.partId === query.id)
      .map((p) => ({ assemblyId: a.id, ...p })),
  );
  const areas = await areaOf([query.id, ...own.map((p) => p.partId), ...asPart.map((p) => p.assemblyId)]);
  const qArea = areas.get(query.id);
  const out: KnownContainment[] = [];
  if (!qArea) return out;
  const share = (part: number | undefined, copies: number, whole: number | undefined) =>
    part && whole ? Math.min(100, (100 * copies * part) / whole) : 0;
  for (const p of own) {
    // The query (assembly) in the part's frame: the inverse of the part's placement.
    out.push({
      modelId: p.partId,
      forward: share(areas.get(p.partId), p.copies, qArea),
      reverse: 100,
      copies: p.copies,
      transform: invertRigidMat4(p.transform),
    });
  }
  for (const p of asPart) {
    out.push({
      modelId: p.assemblyId,
      forward: 100,
      reverse: share(qArea, p.copies, areas.get(p.assemblyId)),
      copies: p.copies,
      transform: p.transform,
    });
  }
  return out;
}
