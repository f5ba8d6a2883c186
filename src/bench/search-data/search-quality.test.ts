// A small run of the search benchmark's dev split (five archetypes, one design each), scored by
// the service's part-to-part rule on features computed from the files as uploaded. It guards the
// duplicate rule against regressions; the figures that matter are `npm run bench:search`'s, on the
// dev and frozen splits and the real parts. Run alone with:
// npx vitest run src/bench/search-data/search-quality.test.ts
import { describe, expect, it } from 'vitest';
import { descriptorDistance } from '../../geometry/search/descriptors/global-descriptor';
import { describe as describeRecords, geoScore, partInPart, partToPartMatrix } from './evaluate';
import { figures } from './metrics';
import { buildSplit } from './split';

describe('search benchmark, small dev run', () => {
  it('the duplicate rule: duplicates ≥ 98, mirror images and scaled copies related below 98, feature edits below 98', async () => {
    const records = await buildSplit('dev', {
      perArchetype: 1,
      assemblies: 1,
      archetypes: ['mount-plate', 'angle-bracket', 'hex-bolt', 'stepped-block', 'washer-spacer'],
    });
    const ds = await describeRecords(records);
    expect(ds).toHaveLength(records.length);
    const m = await partToPartMatrix(ds);
    const f = figures(
      ds,
      m,
      (i, j) => descriptorDistance(ds[i]!.features.global, ds[j]!.features.global),
      (i, j) => partInPart(ds[i]!, ds[j]!, i, j),
      (i, j) => geoScore(ds[i]!, ds[j]!),
    );
    console.log(JSON.stringify({ ...f, offByKind: undefined, distanceByKind: undefined }, null, 1));
    expect(f.dupPrecision).toBeGreaterThanOrEqual(0.95);
    expect(f.dupRecall).toBeGreaterThanOrEqual(0.9);
    expect(f.mirroredAt98).toMatch(/^0\//);
    expect(f.scaledAt98).toMatch(/^0\//);
    expect(f.editsAt98).toMatch(/^[01]\//);
    const [related, mirrors] = f.mirrorRelations.split(/[/ ]/).map(Number) as [number, number];
    expect(mirrors).toBeGreaterThan(0);
    expect(related).toBeGreaterThanOrEqual(mirrors - 1);
  }, 600_000);

  it('a hole moved by 1.1 % of the size is another part where both meshes share its chord error (dev stepped block 2)', async () => {
    // Its 16-sided hole has a 0.1 mm sagitta in both files: adding both chord errors (× 1.5) to a
    // share of the diagonal allowed more than the 0.86 mm move, and the pair scored 100.
    const records = await buildSplit('dev', { perArchetype: 3, assemblies: 0, archetypes: ['stepped-block'] });
    const pair = records.filter((r) => r.id === 'dev-stepped-block-2' || r.id === 'dev-stepped-block-2-edit1');
    expect(pair.map((r) => r.how)).toEqual(['original, 32 segments, STL', expect.stringMatching(/^hole moved 0\.86 mm/)]);
    const m = await partToPartMatrix(await describeRecords(pair));
    expect(m.score(0, 1)).toBeLessThan(98);
  }, 120_000);
});
