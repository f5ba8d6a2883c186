import { describe, expect, it } from 'vitest';
import { formatBytes } from './format-bytes';

describe('formatBytes', () => {
  it('writes binary units under their IEC names, one decimal at most', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1023)).toBe('1,023 bytes');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(4.7 * 1024 * 1024)).toBe('4.7 MiB');
    expect(formatBytes(512 * 1024 * 1024)).toBe('512 MiB');
    expect(formatBytes(1024 * 1024 - 1)).toBe('1 MiB');
  });

  it('rounds a size over a limit up, so it never reads as the limit', () => {
    expect(formatBytes(10 * 1024 * 1024 + 1, 'up')).toBe('10.1 MiB');
    expect(formatBytes(10 * 1024 * 1024 + 1)).toBe('10 MiB');
  });
});
