// The groups a duplicates report proposes once decisions are applied (pure). A pair decided "not a
// duplicate" at the report's threshold or below is not linked again, so a group may split or
// shrink; a group's master is the one its decisions name, else the suggested one: the member used
// in most assemblies, then the oldest.
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

/** The suggested master: used in most assemblies, then created first, then the smaller id. */
export function suggestedMaster(members: readonly { id: string; usedIn: number; createdAt: number }[]): string {
  return [...members].sort((a, b) => b.usedIn - a.usedIn || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))[0]!.id;
}

/** The master a group's own "duplicate" decisions name (the latest), if any member was decided. */
export function decidedMaster(modelIds: readonly string[], decisions: readonly DecidedPair[]): string | undefined {
  const members = new Set(modelIds);
  const own = decisions.filter((d) => d.verdict === 'duplicate' && members.has(d.lowId) && members.has(d.highId));
  return own.sort((a, b) => b.decidedAt - a.decidedAt)[0]?.masterId;
}
