// A pair's part-to-part result is a property of the two models: scored from either side, the
// score and relation are the same and the transforms are each other's inverse. Over a sample of
// the search benchmark's dev pairs (npm run bench:pair-symmetry checks all of them).
import { describe, expect, it } from 'vitest';
import { descriptorDistance, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import { describe as describeRecords } from './evaluate';
import { buildSplit } from './split';
import comparePair, { type PairSide } from '../../service/search/pair-worker';
import { needsExact } from '../../service/search/part-to-part-rule';

describe('part-to-part pairs scored from either side', () => {
  it('give the same score and relation, and inverse transforms, on a sample of dev pairs', async () => {
    const records = await buildSplit('dev', { perArchetype: 1, assemblies: 0, archetypes: ['t-profile', 'thin-washer'] });
    const ds = await describeRecords(records);
    const side = (i: number): PairSide => ({
      key: `${ds[i]!.record.id}:${i}`,
      prepared: ds[i]!.features.prepared,
      global: ds[i]!.features.global,
      components: [],
    });
    let pairs = 0;
    for (let i = 0; i < ds.length; i++) {
      for (let j = i + 1; j < ds.length; j++) {
        if (ds[i]!.record.design !== ds[j]!.record.design) continue;
        if (
          !needsExact(
            ds[i]!.features.geo,
            ds[j]!.features.geo,
            scoreFromDistance(descriptorDistance(ds[i]!.features.global, ds[j]!.features.global)),
          )
        )
          continue;
        pairs++;
        const ab = comparePair({ kind: 'part-to-part', a: side(i), b: side(j) });
        const ba = comparePair({ kind: 'part-to-part', a: side(j), b: side(i) });
        const what = `${ds[i]!.record.id} ~ ${ds[j]!.record.id}`;
        expect({ what, score: ba.score, relation: ba.relation }).toEqual({ what, score: ab.score, relation: ab.relation });
        if (ab.scale !== undefined) expect(ba.scale! * ab.scale).toBeCloseTo(1, 9);
        expect(ba.transform.length).toBe(ab.transform.length);
        if (ab.transform.length === 16) {
          // ba · ab is the identity.
          for (let c = 0; c < 4; c++) {
            for (let r = 0; r < 4; r++) {
              let v = 0;
              for (let k = 0; k < 4; k++) v += ba.transform[k * 4 + r]! * ab.transform[c * 4 + k]!;
              expect(v).toBeCloseTo(c === r ? 1 : 0, 6);
            }
          }
        }
      }
    }
    expect(pairs).toBeGreaterThan(10);
  }, 600_000);
});
