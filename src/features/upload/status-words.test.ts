import { describe, expect, it } from 'vitest';
import { countWords, inPathOrder, pathInFolder } from './status-words';

describe('list words', () => {
  it('shows paths inside the target folder, whatever its case, and others whole', () => {
    expect(pathInFolder('Projects/Pump/asm.stp', 'Projects/Pump')).toBe('asm.stp');
    expect(pathInFolder('projects/pump/parts/a.stl', 'Projects/Pump/')).toBe('parts/a.stl');
    expect(pathInFolder('Other/a.stl', 'Projects')).toBe('Other/a.stl');
    expect(pathInFolder('ProjectsX/a.stl', 'Projects')).toBe('ProjectsX/a.stl');
    expect(pathInFolder('a.stl', '')).toBe('a.stl');
  });

  it('orders rows by path, numbers by value, keeping each one’s index', () => {
    const files = [{ filePath: 'p/part-10.stl' }, { filePath: 'p/Part-2.stl' }, { filePath: 'p/a/x.stl' }];
    expect(inPathOrder(files).map(([f, i]) => `${i}:${f.filePath}`)).toEqual(['2:p/a/x.stl', '1:p/Part-2.stl', '0:p/part-10.stl']);
  });

  it('counts in words', () => {
    expect([countWords(1, 'assembly', 'assemblies'), countWords(0, 'part', 'parts'), countWords(4, 'part', 'parts')]).toEqual([
      '1 assembly',
      '0 parts',
      '4 parts',
    ]);
  });
});
