/**
 * `npm run bench:pair-symmetry`: whether a part-to-part pair gets the same answer whichever
 * model asks. Every pair of the dev split that the service compares exactly (needsExact) is scored
 * both ways, by the rule as the pair worker applies it (partToPartExact) and from one side only as
 * it was before pairs were ordered by geometry (partToPartDirected), and the pairs whose score or
 * relation differ between the two directions are counted and listed.
 * Knobs: BENCH_DESIGNS (designs per archetype, default 3), BENCH_ARCHETYPES (only these),
 * BENCH_PAIRS=all (every exact pair; default: the pairs within each design, where duplicates are).
 */
import { partToPartDirected, partToPartExact, type PartToPartOutcome } from '../geometry/search/duplicate-rule';
import { descriptorDistance, scoreFromDistance } from '../geometry/search/descriptors/global-descriptor';
import { preparedPartFrom } from '../geometry/search/search-features';
import { needsExact } from '../service/search/part-to-part-rule';
import { describe } from './search-data/evaluate';
import { buildSplit } from './search-data/split';

async function main() {
  const per = Number(process.env.BENCH_DESIGNS ?? 3);
  const archetypes = process.env.BENCH_ARCHETYPES?.split(',');
  const t0 = performance.now();
  const ds = await describe(await buildSplit('dev', { perArchetype: per, ...(archetypes ? { archetypes } : {}) }));
  const parts = ds.map((d) => preparedPartFrom(d.features.prepared, d.features.global));
  console.log(`dev: ${ds.length} records described in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const key = (o: PartToPartOutcome) => `${o.score}${o.relation ? ` ${o.relation}` : ''}`;
  const count = { pairs: 0, before: 0, after: 0 };
  const listed: string[] = [];
  const t1 = performance.now();
  for (let i = 0; i < ds.length; i++) {
    for (let j = i + 1; j < ds.length; j++) {
      if (process.env.BENCH_PAIRS !== 'all' && ds[i]!.record.design !== ds[j]!.record.design) continue;
      const descriptor = scoreFromDistance(descriptorDistance(ds[i]!.features.global, ds[j]!.features.global));
      if (!needsExact(ds[i]!.features.geo, ds[j]!.features.geo, descriptor)) continue;
      count.pairs++;
      const a = parts[i]!,
        b = parts[j]!;
      const [ab, ba] = [partToPartDirected(a, b, descriptor), partToPartDirected(b, a, descriptor)];
      const [sab, sba] = [partToPartExact(a, b, descriptor), partToPartExact(b, a, descriptor)];
      const pair = `${ds[i]!.record.id}~${ds[j]!.record.id}`;
      if (key(ab) !== key(ba)) {
        count.before++;
        listed.push(`  before: ${pair} ${key(ab)} / ${key(ba)} → now ${key(sab)}`);
      }
      if (key(sab) !== key(sba)) {
        count.after++;
        listed.push(`  AFTER:  ${pair} ${key(sab)} / ${key(sba)}`);
      }
    }
  }
  console.log(listed.join('\n'));
  console.log(
    `pairs scored both ways: ${count.pairs} (in ${((performance.now() - t1) / 1000).toFixed(0)} s); differing from one side only (before): ${count.before}; differing by the rule (after): ${count.after}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
