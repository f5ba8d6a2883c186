import { describe, expect, it } from 'vitest';
import { box, toStlBinary } from '../../geometry/testing/fixtures';
import { processModel } from './process-model';

const translate = (x: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, 0, 1];

describe('processModel: parts of an external-reference assembly', () => {
  it('imports a part file once and places it at every occurrence', async () => {
    const part = (await box([10, 10, 10])).mesh;
    const stl = toStlBinary(part);
    const out = await processModel({
      // An assembly without geometry of its own: only the parts give the model its mesh.
      fileName: 'asm.stl',
      bytes: stl,
      parts: [
        {
          fileName: 'cube.stl',
          bytes: stl,
          placements: [
            { path: 'cube.stl', transform: translate(100) },
            { path: 'sub.stp/cube.stl', transform: translate(200) },
          ],
        },
      ],
    });
    expect(out.outcome).toBe('geometry');
    if (out.outcome !== 'geometry') return;
    expect(out.partsWithGeometry).toBe(2);
    // own cube + two placed copies
    expect(out.facts.triangles).toBe((3 * part.indices.length) / 3);
    expect(out.facts.boundingBox.max[0]).toBeCloseTo(200 + Math.max(...Array.from(part.positions.filter((_, i) => i % 3 === 0))), 3);
    expect(out.facts.shells).toBe(3);
  });

  it('reports a broken part file once, however many times it is placed', async () => {
    const stl = toStlBinary((await box()).mesh);
    const out = await processModel({
      fileName: 'asm.stl',
      bytes: stl,
      parts: [
        { fileName: 'broken.stl', bytes: stl.subarray(0, 120), placements: [{ path: 'broken.stl' }, { path: 'sub.stp/broken.stl' }] },
      ],
    });
    expect(out.brokenParts).toHaveLength(1);
    expect(out.brokenParts[0]).toMatchObject({ path: 'broken.stl', reason: expect.stringMatching(/cut off/) });
  });
});
