import { describe, expect, it } from 'vitest';
import { buildPart } from '../../geometry/testing/benchmark-dataset';
import { modelViews } from '../../geometry/search/views/model-views';
import { packPolar, POLAR_LENGTH, unpackPolar } from '../../geometry/search/views/polar-signature';
import { quantizeViews } from '../../geometry/search/views/view-index';
import { decodeDescriptors, decodeSignatures, encodeViewSignature, storedBytes } from './view-signature';

describe('view signature', () => {
  it('stores a detailed part in at most 16 KB and reads back what search compares', async () => {
    for (const part of [await buildPart('gear', 0, { segments: 128 }), await buildPart('flange', 0)]) {
      const views = await modelViews(part);
      const stored = encodeViewSignature(views);
      expect(storedBytes(stored)).toBeLessThanOrEqual(16 * 1024);
      expect(decodeDescriptors(stored.descriptors, views.count * views.dim)).toEqual(quantizeViews(views.data));
      const signatures = decodeSignatures(stored.signatures, views.count);
      expect(signatures).toHaveLength(views.count * POLAR_LENGTH);
      // Every cell within half a level of the one rendered: 17 / 2 for coverage, 36.4 / 2 for edges.
      for (let i = 0; i < signatures.length; i++)
        expect(Math.abs(signatures[i]! - views.signatures[i]!)).toBeLessThanOrEqual(i % POLAR_LENGTH < POLAR_LENGTH / 2 ? 8.5 : 18.3);
    }
  });

  it('refuses descriptors of another length', async () => {
    const views = await modelViews(await buildPart('bracket', 0));
    const stored = encodeViewSignature(views);
    expect(() => decodeDescriptors(stored.descriptors, views.count * views.dim + 1)).toThrow(/values/);
  });

  it('packs the coverage and edge strength of a polar cell into one byte', () => {
    const cells = new Uint8Array(POLAR_LENGTH);
    cells.set([0, 255, 17, 100]);
    cells.set([255, 0, 36, 100], POLAR_LENGTH / 2);
    const packed = packPolar(cells);
    expect(packed).toHaveLength(POLAR_LENGTH / 2);
    const back = unpackPolar(packed, 1);
    expect([...back.subarray(0, 4)]).toEqual([0, 255, 17, 102]);
    expect([...back.subarray(POLAR_LENGTH / 2, POLAR_LENGTH / 2 + 4)]).toEqual([255, 0, 36, 109]);
  });
});
