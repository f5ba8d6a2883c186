import { describe, expect, it } from 'vitest';
import { decidedMaster, proposedGroups, suggestedMaster, type DecidedPair } from './review-groups';

const link = (a: string, b: string, matchPercentage = 99) => ({ a, b, matchPercentage });
const pair = (a: string, b: string, verdict: DecidedPair['verdict'], masterId = a, threshold = 98, decidedAt = 0): DecidedPair => ({
  lowId: a < b ? a : b,
  highId: a < b ? b : a,
  masterId,
  verdict,
  threshold,
  decidedAt,
});

describe('proposed groups', () => {
  const report = {
    clusters: [
      { modelIds: ['a', 'b', 'c', 'd'], links: [link('a', 'b'), link('b', 'c'), link('c', 'd')] },
      { modelIds: ['x', 'y'], links: [link('x', 'y')] },
    ],
  };

  it('keeps the clusters, largest first, when nothing was decided', () => {
    expect(proposedGroups(report, [], 98).map((g) => g.modelIds)).toEqual([
      ['a', 'b', 'c', 'd'],
      ['x', 'y'],
    ]);
  });

  it('drops a pair decided not a duplicate at the threshold or below, splitting the group it held together', () => {
    const groups = proposedGroups(report, [pair('b', 'c', 'not-duplicate')], 98);
    expect(groups.map((g) => g.key)).toEqual(['a,b', 'c,d', 'x,y']);
    expect(groups[0]!.links).toEqual([link('a', 'b')]);
    // A group left with one model is no group.
    expect(proposedGroups(report, [pair('x', 'y', 'not-duplicate')], 99).map((g) => g.key)).toEqual(['a,b,c,d']);
  });

  it('proposes the pair again at a lower threshold than it was decided at, and ignores "duplicate" decisions', () => {
    expect(proposedGroups(report, [pair('b', 'c', 'not-duplicate', 'b', 98)], 90).map((g) => g.key)).toEqual(['a,b,c,d', 'x,y']);
    expect(proposedGroups(report, [pair('b', 'c', 'duplicate')], 98).map((g) => g.key)).toEqual(['a,b,c,d', 'x,y']);
  });
});

describe('masters', () => {
  it('among files of one kind, suggests the member used in most assemblies, then the oldest, then the smaller id', () => {
    const step = (id: string, usedIn: number, createdAt: number) => ({ id, fileName: `${id}.step`, usedIn, createdAt });
    expect(suggestedMaster([step('a', 0, 1), step('b', 2, 5)])).toEqual({ id: 'b', reason: 'used in the most assemblies (2)' });
    expect(suggestedMaster([step('b', 1, 5), step('a', 1, 9)])).toEqual({ id: 'b', reason: 'the oldest' });
    expect(suggestedMaster([step('b', 0, 5), step('a', 0, 5)]).id).toBe('a');
  });

  it('keeps the CAD original over its mesh exports, however old or used the exports are', () => {
    const members = [
      { id: 'a', fileName: 'bracket.wrl.stl', usedIn: 3, createdAt: 1 },
      { id: 'b', fileName: 'bracket.obj', usedIn: 1, createdAt: 2 },
      { id: 'c', fileName: 'bracket.STEP', usedIn: 0, createdAt: 9 },
    ];
    const master = suggestedMaster(members);
    expect(master.id).toBe('c');
    expect(master.reason).toMatch(/^the CAD exchange file \(STEP, IGES or BREP\); 2 others are exports of it$/);
    // A native CAD file comes before its STEP export, and an IGES before a GLB.
    expect(suggestedMaster([...members, { id: 'd', fileName: 'bracket.sldprt', usedIn: 0, createdAt: 10 }]).id).toBe('d');
    expect(
      suggestedMaster([
        { id: 'e', fileName: 'x.glb', usedIn: 5, createdAt: 0 },
        { id: 'f', fileName: 'x.igs', usedIn: 0, createdAt: 1 },
      ]).id,
    ).toBe('f');
  });

  it("takes the master of the group's latest duplicate decision, not of pairs outside it or of other verdicts", () => {
    const decisions = [
      pair('a', 'b', 'duplicate', 'a', 98, 1),
      pair('c', 'b', 'duplicate', 'c', 98, 2),
      pair('a', 'z', 'duplicate', 'z', 98, 3),
      pair('b', 'c', 'not-duplicate', 'b', 98, 4),
    ];
    expect(decidedMaster(['a', 'b', 'c'], decisions)).toBe('c');
    expect(decidedMaster(['a', 'b'], decisions)).toBe('a');
    expect(decidedMaster(['x', 'y'], decisions)).toBeUndefined();
  });
});
