import { describe, expect, it } from 'vitest';
import { defaultTolerance, distance, formatCompareState, parseCompareState, parseTransform } from './compare-state';

describe('compare view state in the URL', () => {
  it('defaults to side by side with nothing switched on', () => {
    expect(parseCompareState(new URLSearchParams())).toEqual({
      mode: 'side',
      transform: null,
      kind: null,
      tolerance: null,
      xray: false,
      wireframe: false,
      section: null,
      measuring: false,
    });
  });

  it('round-trips every setting, the transform included', () => {
    const transform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 12.5, -3, 0.25, 1];
    const state = {
      mode: 'overlay',
      transform,
      kind: 'part-in-part',
      tolerance: 0.2,
      xray: true,
      wireframe: true,
      section: { axis: 'z', at: 30 },
      measuring: true,
    } as const;
    const qs = formatCompareState({ ...state, transform: [...transform], section: { ...state.section } });
    expect(parseCompareState(qs)).toEqual({ ...state, transform, section: { axis: 'z', at: 30 } });
  });

  it('ignores malformed values instead of failing', () => {
    expect(parseTransform('1,2,3')).toBeNull();
    expect(parseTransform('1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,x')).toBeNull();
    const s = parseCompareState(new URLSearchParams('kind=other&tol=-1&section=w&mode=stacked'));
    expect(s).toMatchObject({ kind: null, tolerance: null, section: null, mode: 'side' });
    expect(parseCompareState(new URLSearchParams('section=x&at=250')).section).toEqual({ axis: 'x', at: 100 });
  });

  it('suggests a 1-2-5 tolerance near 0.5 % of the diagonal and measures distances', () => {
    expect(defaultTolerance(100)).toBe(0.5);
    expect(defaultTolerance(300)).toBe(2);
    expect(defaultTolerance(0)).toBe(0.1);
    expect(distance([0, 0, 0], [3, 4, 12])).toBe(13);
  });
});
