// The groups a duplicates report proposes once decisions are applied (pure). A pair decided "not a
// duplicate" at the report's threshold or below is not linked again, so a group may split or
// shrink; a group's master is the one its decisions name, else the suggested one: the CAD original
// over an exchange file over a mesh export of it, then the member used in most assemblies, then the oldest.
import { fileKindOf, type FileKind } from '../../contract/file-types';
import type { StoredReport } from './duplicate-report-job';

export interface DecidedPair {
  lowId: string;
  highId: string;
  masterId: string;
  verdict: 'duplicate' | 'not-duplicate';
  threshold: number;
  decidedAt: number;
}

export interface ProposedGroup {
  key: string;
  modelIds: string[];
  links: { a: string; b: string; matchPercentage: number }[];
}

const pairKey = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/** The report's clusters without the links decided "not a duplicate", regrouped; largest first. */
export function proposedGroups(
  report: Pick<StoredReport, 'clusters'>,
  decisions: readonly DecidedPair[],
  threshold: number,
): ProposedGroup[] {
  const rejected = new Set(
    decisions.filter((d) => d.verdict === 'not-duplicate' && d.threshold <= threshold).map((d) => pairKey(d.lowId, d.highId)),
  );
  const out: ProposedGroup[] = [];
  for (const cluster of report.clusters) {
    const links = cluster.links.filter((l) => !rejected.has(pairKey(l.a, l.b)));
    const parent = new Map(cluster.modelIds.map((id) => [id, id]));
    const find = (x: string): string => {
      let r = x;
      while (parent.get(r) !== r) r = parent.get(r)!;
      parent.set(x, r);
      return r;
    };
    for (const l of links) if (parent.has(l.a) && parent.has(l.b)) parent.set(find(l.a), find(l.b));
    const parts = new Map<string, ProposedGroup>();
    for (const id of cluster.modelIds) {
      const root = find(id);
      let g = parts.get(root);
      if (!g) parts.set(root, (g = { key: '', modelIds: [], links: [] }));
      g.modelIds.push(id);
    }
    for (const l of links) parts.get(find(l.a))?.links.push(l);
    for (const g of parts.values()) {
      if (g.modelIds.length < 2) continue;
      g.modelIds.sort();
      g.key = g.modelIds.join(',');
      out.push(g);
    }
  }
  return out.sort((a, b) => b.modelIds.length - a.modelIds.length || (a.key < b.key ? -1 : 1));
}

export interface MasterCandidate {
  id: string;
  fileName: string;
  usedIn: number;
  createdAt: number;
}

/**
 * Which file to keep: a native CAD file over a STEP/IGES/BREP exchange file over a mesh (STL, OBJ,
 * glTF… — an export that has lost the exact B-rep), since accepting the suggestion deletes the
 * others; then the member used in most assemblies, then created first, then the smaller id.
 */
const KIND_RANK: Record<FileKind, number> = { native: 0, cad: 1, mesh: 2 };
const KIND_WORDS: Record<FileKind, string> = {
  native: 'the native CAD file',
  cad: 'the CAD exchange file (STEP, IGES or BREP)',
  mesh: 'a mesh',
};
const rankOf = (m: MasterCandidate) => KIND_RANK[fileKindOf(m.fileName) ?? 'mesh'];

/** The suggested master and why, in the words the review shows. */
export function suggestedMaster(members: readonly MasterCandidate[]): { id: string; reason: string } {
  const sorted = [...members].sort(
    (a, b) => rankOf(a) - rankOf(b) || b.usedIn - a.usedIn || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1),
  );
  const best = sorted[0]!;
  const runnerUp = sorted[1]!;
  if (rankOf(best) < rankOf(runnerUp)) {
    const others = members.filter((m) => m.id !== best.id && rankOf(m) > rankOf(best)).length;
    return {
      id: best.id,
      reason: `${KIND_WORDS[fileKindOf(best.fileName) ?? 'mesh']}; ${others === 1 ? 'the other is an export' : `${others} others are exports`} of it`,
    };
  }
  if (best.usedIn > runnerUp.usedIn) return { id: best.id, reason: `used in the most assemblies (${best.usedIn})` };
  return { id: best.id, reason: best.createdAt < runnerUp.createdAt ? 'the oldest' : 'the first by id (same kind, use and age)' };
}

/** The master a group's own "duplicate" decisions name (the latest), if any member was decided. */
export function decidedMaster(modelIds: readonly string[], decisions: readonly DecidedPair[]): string | undefined {
  const members = new Set(modelIds);
  const own = decisions.filter((d) => d.verdict === 'duplicate' && members.has(d.lowId) && members.has(d.highId));
  return own.sort((a, b) => b.decidedAt - a.decidedAt)[0]?.masterId;
}
