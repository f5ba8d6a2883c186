import { describe, expect, it } from 'vitest';
import {
  filePathProblem,
  filePathSchema,
  folderNameProblem,
  folderNameSchema,
  folderPathProblem,
  joinFilePath,
  normalizeDroppedPath,
  normalizeFolderPath,
} from './file-paths';

describe('dropped paths', () => {
  it('strips the leading "/" or "./" of react-dropzone paths', () => {
    expect(normalizeDroppedPath('/asm/parts/p1.iges')).toBe('asm/parts/p1.iges');
    expect(normalizeDroppedPath('asm/parts/p1.iges')).toBe('asm/parts/p1.iges');
    expect(normalizeDroppedPath('./a.stl')).toBe('a.stl');
    expect(normalizeDroppedPath('a.stl')).toBe('a.stl');
  });

  it('joins a target folder and a dropped path', () => {
    expect(joinFilePath('Projects/Pump/', '/asm/p1.iges')).toBe('Projects/Pump/asm/p1.iges');
    expect(joinFilePath(' /Pump ', './a.stl')).toBe('Pump/a.stl');
    expect(normalizeFolderPath('//a/b//')).toBe('a/b');
  });
});

describe('filePathProblem', () => {
  it('accepts ordinary paths, spaces and non-ASCII names', () => {
    expect(filePathProblem('Pump/housing v2.step')).toBeNull();
    expect(filePathProblem('Düsen/Ø12 Flansch.stl')).toBeNull();
  });

  it.each(['\n', '\r', '*', ':', '"', '<', '>', '|', '#', '[', ']', '?', '\\'])('rejects %j', (c) => {
    expect(filePathProblem(`Pump/a${c}b.stl`)).toMatch(/does not allow/);
  });

  it('rejects "." and ".." segments, empty segments and paths without a folder', () => {
    expect(filePathProblem('Pump/../a.stl')).toMatch(/“\.”/);
    expect(filePathProblem('Pump/./a.stl')).toMatch(/“\.”/);
    expect(filePathProblem('Pump//a.stl')).toMatch(/empty/);
    expect(filePathProblem('a.stl')).toMatch(/folder/);
    expect(filePathProblem('Pump/')).toMatch(/no file name/);
  });

  it('counts UTF-8 bytes, not characters, against the 1024 limit', () => {
    const ascii = `P/${'a'.repeat(1018)}.stl`; // 1024 bytes
    expect(filePathProblem(ascii)).toBeNull();
    expect(filePathProblem(`P/${'a'.repeat(1019)}.stl`)).toMatch(/1025 bytes/);
    // 560 × "ü": 572 characters in all, but 1,130 bytes of UTF-8 (folders of 80 stay valid).
    const folders = Array.from({ length: 7 }, () => 'ü'.repeat(80)).join('/');
    expect(filePathProblem(`${folders}/a.stl`)).toMatch(/too long/);
  });

  it('applies the folder-name rules to every folder of the path', () => {
    expect(filePathProblem(`${'f'.repeat(101)}/a.stl`)).toMatch(/longer than 100/);
    expect(filePathProblem(`${'f'.repeat(100)}/a.stl`)).toBeNull();
  });
});

describe('folder names', () => {
  it('allows 1..100 characters without the forbidden ones', () => {
    expect(folderNameProblem('Pump')).toBeNull();
    expect(folderNameProblem('')).toMatch(/empty/);
    expect(folderNameProblem('a/b')).toMatch(/“\/”/);
    expect(folderNameProblem('a#b[1]')).toMatch(/“#”, “\[” and “\]”/);
    expect(folderPathProblem('')).toMatch(/Choose a folder/);
    expect(folderPathProblem('a/b:c')).toMatch(/“:”/);
  });

  it('has zod forms with the same messages', () => {
    expect(filePathSchema.safeParse('Pump/a.stl').success).toBe(true);
    const bad = filePathSchema.safeParse('Pump/a?.stl');
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe(filePathProblem('Pump/a?.stl'));
    expect(folderNameSchema.safeParse('x'.repeat(101)).success).toBe(false);
  });
});
