import { describe, expect, it } from 'vitest';
import type { Match } from '../../contract/matches';
import { quantityLabel, relationLabel } from './match-card';

const model = { id: 'm' } as Match['matchedModel'];

describe('relationLabel', () => {
  it('names mirror images and scaled copies, and nothing else', () => {
    expect(relationLabel({ matchedModel: model, matchPercentage: 96, relation: 'mirrored' })).toBe('Mirror image');
    expect(relationLabel({ matchedModel: model, matchPercentage: 70, relation: 'scaled', scale: 2 })).toBe('Scaled ×2');
    expect(relationLabel({ matchedModel: model, matchPercentage: 70, relation: 'scaled', scale: 0.5 })).toBe('Scaled ×1/2');
    expect(relationLabel({ matchedModel: model, matchPercentage: 99 })).toBeUndefined();
    expect(relationLabel({ matchedModel: model, forwardMatchPercentage: 90, reverseMatchPercentage: 20 })).toBeUndefined();
  });
});

describe('quantityLabel', () => {
  it('counts the contained side in the other, only when it occurs more than once', () => {
    expect(quantityLabel({ matchedModel: model, forwardMatchPercentage: 20, reverseMatchPercentage: 99, copies: 2 })).toBe(
      '×2 in this model',
    );
    expect(quantityLabel({ matchedModel: model, forwardMatchPercentage: 99, reverseMatchPercentage: 20, copies: 6 })).toBe(
      'This model ×6 in it',
    );
    expect(quantityLabel({ matchedModel: model, forwardMatchPercentage: 99, reverseMatchPercentage: 20, copies: 1 })).toBeUndefined();
    expect(quantityLabel({ matchedModel: model, forwardMatchPercentage: 99, reverseMatchPercentage: 20 })).toBeUndefined();
    expect(quantityLabel({ matchedModel: model, matchPercentage: 99 })).toBeUndefined();
  });
});
