import { describe, expect, it } from 'vitest';
import { scoreFromDistance } from './descriptors/global-descriptor';
import { DESCRIPTOR_MEDIAN, similarDistance, VIEW_SET_MEDIAN, VIEWS_BEYOND } from './similar-distance';

describe('the distance of a pair below the duplicate rule', () => {
  it('is the descriptor’s alone while it finds the pair close, without comparing views', () => {
    const views = () => {
      throw new Error('views compared');
    };
    expect(similarDistance(3, views)).toBe(3);
    expect(similarDistance(VIEWS_BEYOND, views)).toBe(VIEWS_BEYOND);
  });

  it('beyond it, half the views’ distance in descriptor units: alike views raise the score, unlike ones lower it', () => {
    const d = 30;
    const alike = similarDistance(d, () => 0.2);
    const unlike = similarDistance(d, () => 2);
    expect(alike).toBeCloseTo(15 + (0.1 * DESCRIPTOR_MEDIAN) / VIEW_SET_MEDIAN, 9);
    expect(scoreFromDistance(alike)).toBeGreaterThan(scoreFromDistance(d));
    expect(scoreFromDistance(unlike)).toBeLessThan(scoreFromDistance(d));
    // At the medians of both, an unrelated pair keeps its score.
    expect(similarDistance(DESCRIPTOR_MEDIAN, () => VIEW_SET_MEDIAN)).toBeCloseTo(DESCRIPTOR_MEDIAN, 9);
  });

  it('alike views never lift a far pair above the gate, where the descriptor alone ranks', () => {
    expect(similarDistance(VIEWS_BEYOND + 1, () => 0)).toBe(VIEWS_BEYOND);
    expect(similarDistance(VIEWS_BEYOND + 1, () => 0.05)).toBe(VIEWS_BEYOND);
  });

  it('a model without views keeps the descriptor’s distance', () => {
    expect(similarDistance(40, () => Infinity)).toBe(40);
  });
});
