import { describe, expect, it } from 'vitest';
import { convertLength, difference, formatLength, formatSize, unitIsKnown } from './lengths';

describe('lengths', () => {
  it('shows any model unit in millimetres or inches, areas and volumes by their power', () => {
    expect(formatLength(25.4, 'mm', 'in')).toBe('1 in');
    expect(formatLength(1, 'in', 'mm')).toBe('25.4 mm');
    expect(formatLength(0.1, 'm', 'mm')).toBe('100 mm');
    expect(formatLength(645.16, 'mm', 'in', 2)).toBe('1 in²');
    expect(convertLength(1, 'in', 'mm', 3)).toBeCloseTo(16387.064, 3);
    expect(formatSize([100, 60, 8], 'mm', 'mm')).toBe('100 × 60 × 8 mm');
  });

  it('writes large values in a larger unit, so they stay readable', () => {
    expect(formatLength(204_750_723_768, 'mm', 'mm', 3)).toBe('204.8 m³');
    expect(formatLength(2_500_000, 'mm', 'mm', 3)).toBe('2,500 cm³');
    expect(formatLength(99_999, 'mm', 'mm', 3)).toBe('99,999 mm³');
    expect(formatLength(38_000, 'mm', 'mm')).toBe('38 m');
    expect(formatLength(1_800, 'mm', 'mm', 2)).toBe('1,800 mm²');
    expect(formatLength(25_000, 'mm', 'mm', 2)).toBe('250 cm²');
    expect(formatLength(3_000_000, 'mm', 'mm', 2)).toBe('3 m²');
    expect(formatLength(1728 * 100, 'in', 'in', 3)).toBe('100 ft³');
  });

  it('reads a model without a stated unit as millimetres', () => {
    expect(unitIsKnown('unknown')).toBe(false);
    expect(unitIsKnown('in')).toBe(true);
    expect(formatLength(12, 'unknown', 'mm')).toBe('12 mm');
  });
});

describe('difference column', () => {
  it('says how much larger or smaller the match is, "Same" within 0.5 %', () => {
    expect(difference(100, 112)).toBe('+12 %');
    expect(difference(100, 90)).toBe('−10 %');
    expect(difference(100, 100.4)).toBe('Same');
    expect(difference(null, 3)).toBe('—');
    expect(difference(0, 3)).toBe('—');
  });
});
