import { describe, expect, it } from 'vitest';
import type { Match } from '../../contract/matches';
import { relationLabel } from './match-card';

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
