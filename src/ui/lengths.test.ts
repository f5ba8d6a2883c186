import { describe, expect, it } from 'vitest';
import { convertLength, formatLength, formatSize, unitIsKnown } from './lengths';

describe('lengths', () => {
  it('shows any model unit in millimetres or inches, areas and volumes by their power', () => {
    expect(formatLength(25.4, 'mm', 'in')).toBe('1 in');
    expect(formatLength(1, 'in', 'mm')).toBe('25.4 mm');
    expect(formatLength(0.1, 'm', 'mm')).toBe('100 mm');
    expect(formatLength(645.16, 'mm', 'in', 2)).toBe('1 in²');
    expect(convertLength(1, 'in', 'mm', 3)).toBeCloseTo(16387.064, 3);
    expect(formatSize([100, 60, 8], 'mm', 'mm')).toBe('100 × 60 × 8 mm');
  });

  it('reads a model without a stated unit as millimetres', () => {
    expect(unitIsKnown('unknown')).toBe(false);
    expect(unitIsKnown('in')).toBe(true);
    expect(formatLength(12, 'unknown', 'mm')).toBe('12 mm');
  });
});
