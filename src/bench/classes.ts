/**
 * `npm run bench:classes`: classes proposed from examples (issue 36), per source. Each family of a
 * set is a class; 10 % of each family's members (at least one, chosen by a hash of the model) are
 * labelled, and every other member is proposed a class from its 5 nearest labelled models by the
 * part-to-part descriptor (geometry/search/class-proposals.ts, what the service runs). Printed:
 * accuracy overall and per confidence band, and the share of proposals in each band. Then the
 * budget: proposals for 20,000 models (2,000 labelled) ≤ 60 s, on descriptors drawn around the
 * dev set's (the service adds one read of the tenant's vectors: bench:search prints it).
 * Knobs: BENCH_SETS (dev,frozen,real,kicad-dev,kicad-frozen), BENCH_DESIGNS (3).
 */
import os from 'node:os';
import { proposeClasses, type VectorSet } from '../geometry/search/class-proposals';
import { prng } from '../geometry/search/descriptors/sampling';
import { members, setRecords, type Member } from './similar';

const bands = [90, 80, 60, 40, 0] as const;
const budgetMs = 60_000;

/** FNV-1a of a string: a stable choice of which members are labelled. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function vectorsOf(ms: Member[]): VectorSet {
  const dim = ms[0]?.global.length ?? 0;
  const data = new Float32Array(ms.length * dim);
  ms.forEach((m, i) => data.set(m.global, i * dim));
  return { ids: ms.map((m) => m.id), dim, data };
}

/** 10 % of each family (at least one) labelled with the family. */
function labelTenPercent(ms: Member[]): Map<string, string> {
  const byFamily = new Map<string, Member[]>();
  for (const m of ms) byFamily.set(m.family, [...(byFamily.get(m.family) ?? []), m]);
  const labels = new Map<string, string>();
  for (const [family, list] of byFamily) {
    const chosen = [...list].sort((a, b) => fnv(a.id) - fnv(b.id)).slice(0, Math.max(1, Math.round(list.length * 0.1)));
    for (const m of chosen) labels.set(m.id, family);
  }
  return labels;
}

async function main() {
  const sets = process.env.BENCH_SETS?.split(',') ?? ['dev', 'frozen', 'real', 'kicad-dev', 'kicad-frozen'];
  const per = Number(process.env.BENCH_DESIGNS ?? 3);
  const rows: string[] = [];
  let devMembers: Member[] = [];
  for (const name of sets) {
    const { members: ms } = await members(await setRecords(name, per), { views: false });
    if (name === 'dev') devMembers = ms;
    const labels = labelTenPercent(ms);
    const family = new Map(ms.map((m) => [m.id, m.family]));
    // A family of one has nothing to propose for; its member is an example only.
    const proposals = [...proposeClasses(vectorsOf(ms), labels)];
    const cells = bands.map((min, i) => {
      const max = i === 0 ? Infinity : bands[i - 1]!;
      const inBand = proposals.filter(([, p]) => p.confidence * 100 >= min && p.confidence * 100 < max);
      const right = inBand.filter(([id, p]) => family.get(id) === p.value).length;
      return inBand.length ? `${(right / inBand.length).toFixed(2)} (${inBand.length})` : '— (0)';
    });
    const right = proposals.filter(([id, p]) => family.get(id) === p.value).length;
    rows.push(
      `| ${name} | ${ms.length} / ${new Set(ms.map((m) => m.family)).size} | ${labels.size} | ${(right / proposals.length).toFixed(2)} (${proposals.length}) | ${cells.join(' | ')} |`,
    );
    console.error(`${name}: ${ms.length} models, ${labels.size} labelled, accuracy ${(right / proposals.length).toFixed(3)}`);
  }
  console.log(
    `\n| set | models / families | labelled | accuracy (proposals) | ${bands.map((b, i) => (i === 0 ? `≥ ${b}` : `${b}–${bands[i - 1]}`)).join(' | ')} |`,
  );
  console.log(`|---|---|---|---|${bands.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(r);

  // Budget: 20,000 models, 10 % labelled, vectors drawn around the dev set's (or random ones).
  const n = 20_000;
  const base = devMembers.length ? vectorsOf(devMembers) : null;
  const dim = base?.dim ?? 128;
  const random = prng(36);
  const data = new Float32Array(n * dim);
  for (let i = 0; i < n; i++)
    for (let t = 0; t < dim; t++) data[i * dim + t] = (base ? base.data[(i % base.ids.length) * dim + t]! : 0) + (random() - 0.5) * 2;
  const ids = Array.from({ length: n }, (_, i) => `m${i}`);
  const labels = new Map(ids.filter((_, i) => i % 10 === 0).map((id, i) => [id, `class-${i % 50}`]));
  const t = performance.now();
  const out = proposeClasses({ ids, dim, data }, labels);
  const ms = performance.now() - t;
  console.log(
    `\nproposals for ${out.size.toLocaleString('en')} models from ${labels.size.toLocaleString('en')} examples (${dim} values each): ${(ms / 1000).toFixed(1)} s (budget 60 s, ratio ${(ms / budgetMs).toFixed(2)}); load ${os.loadavg()[0]!.toFixed(1)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
