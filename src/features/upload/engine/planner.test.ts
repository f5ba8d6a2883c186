import { describe, expect, it, vi } from 'vitest';
import { chunk, planUpload } from './planner';
import { dropped, stepText } from '../testing/test-files';

const options = { targetFolder: 'Projects/Pump', maxFileBytes: 10_000 };

describe('planUpload: review rows', () => {
  it('builds filePaths from the target folder and the dropped paths', async () => {
    const { rows, plan, folderProblem } = await planUpload(
      [dropped('/asm/parts/p1.iges'), dropped('asm/p2.stl'), dropped('./a.stl')],
      options,
    );
    expect(folderProblem).toBeNull();
    expect(rows.map((r) => r.filePath)).toEqual(['Projects/Pump/asm/parts/p1.iges', 'Projects/Pump/asm/p2.stl', 'Projects/Pump/a.stl']);
    expect(rows.map((r) => r.name)).toEqual(['p1.iges', 'p2.stl', 'a.stl']);
    expect(rows.every((r) => r.problems.length === 0 && r.role === 'part')).toBe(true);
    expect(plan).toHaveLength(3);
  });

  it('lists every local problem: type, empty, too large, path rules, duplicates', async () => {
    const { rows, plan } = await planUpload(
      [
        dropped('notes.txt'),
        dropped('README'),
        dropped('empty.stl', 0),
        dropped('huge.stl', 10_001),
        dropped('a#1.stl'),
        dropped('Bracket.STL'),
        dropped('sub/../x.stl'),
        dropped('bracket.stl'),
        dropped('ok.obj'),
      ],
      options,
    );
    const problems = Object.fromEntries(rows.map((r) => [r.name, r.problems]));
    expect(problems['notes.txt']![0]).toMatch(/“\.txt” files are not supported/);
    expect(problems['README']![0]).toMatch(/no extension/);
    expect(problems['empty.stl']).toEqual(['The file is empty.']);
    expect(problems['huge.stl']![0]).toMatch(/the limit is 9\.8 KiB/);
    expect(problems['a#1.stl']![0]).toMatch(/“#”/);
    expect(rows[6]!.problems[0]).toMatch(/“\.”/);
    // Case-insensitive: the first one is kept, the later one is flagged.
    expect(problems['Bracket.STL']).toEqual([]);
    expect(problems['bracket.stl']).toEqual(['Another file in this drop has the same path (Projects/Pump/Bracket.STL).']);
    expect(plan.map((p) => p.name)).toEqual(['Bracket.STL', 'ok.obj']);
  });

  it('flags every file when the target folder breaks the rules', async () => {
    const { folderProblem, rows, plan } = await planUpload([dropped('a.stl')], { ...options, targetFolder: 'bad:folder' });
    expect(folderProblem).toMatch(/“:”/);
    expect(rows[0]!.problems[0]).toMatch(/“:”/);
    expect(plan).toEqual([]);
  });

  it('accepts native CAD files with a note, and knows native assemblies', async () => {
    const { rows } = await planUpload([dropped('a.sldprt'), dropped('b.SLDASM'), dropped('c.prt.3'), dropped('d.x_t')], options);
    expect(rows.map((r) => [r.kind, r.role, r.problems.length])).toEqual([
      ['native', 'part', 0],
      ['native', 'assembly', 0],
      ['native', 'part', 0],
      ['native', 'part', 0],
    ]);
    expect(rows[0]!.notes[0]).toMatch(/unsupported/);
  });
});

describe('planUpload: roles and order', () => {
  it('sends parts, then sub-assemblies, then top assemblies, each after what it references', async () => {
    const files = [
      dropped('asm/top.stp', 1000, { text: stepText('sub.stp', 'p1.stl') }),
      dropped('asm/sub/sub.stp', 1000, { text: stepText('parts\\p2.stl', 'p3.step') }),
      dropped('asm/sub/parts/p2.stl'),
      dropped('asm/sub/p3.step'),
      dropped('asm/p1.stl'),
    ];
    const { rows, plan } = await planUpload(files, options);
    expect(rows.map((r) => r.role)).toEqual(['assembly', 'sub-assembly', 'part', 'part', 'part']);
    expect(rows[0]!.references).toEqual(['sub.stp', 'p1.stl']);
    expect(plan.map((p) => p.name)).toEqual(['p2.stl', 'p3.step', 'p1.stl', 'sub.stp', 'top.stp']);
    const top = plan.find((p) => p.name === 'top.stp')!;
    expect(top.dependsOn).toEqual(['Projects/Pump/asm/sub/sub.stp', 'Projects/Pump/asm/p1.stl']);
    expect(top.depth).toBe(2);
  });

  it('orders nested sub-assemblies deepest first', async () => {
    const { plan } = await planUpload(
      [
        dropped('a/top.stp', 1000, { text: stepText('s1.stp') }),
        dropped('a/s1.stp', 1000, { text: stepText('s2.stp') }),
        dropped('a/s2.stp', 1000, { text: stepText('p.stl') }),
        dropped('a/p.stl'),
      ],
      options,
    );
    expect(plan.map((p) => `${p.name}:${p.role}:${p.depth}`)).toEqual([
      'p.stl:part:0',
      's2.stp:sub-assembly:1',
      's1.stp:sub-assembly:2',
      'top.stp:assembly:3',
    ]);
  });

  it('survives reference cycles and notes them', async () => {
    const { plan, rows } = await planUpload(
      [dropped('c/a.stp', 1000, { text: stepText('b.stp') }), dropped('c/b.stp', 1000, { text: stepText('a.stp') })],
      options,
    );
    expect(plan.map((p) => p.name).sort()).toEqual(['a.stp', 'b.stp']);
    expect(rows.some((r) => r.notes.some((n) => /reference each other/.test(n)))).toBe(true);
    // No item waits for one that waits for it.
    const [first, second] = plan;
    expect(first!.dependsOn).not.toContain(second!.filePath);
  });

  it('notes references that are missing, outside the assembly folder, or have problems', async () => {
    const { rows } = await planUpload(
      [
        dropped('asm/top.stp', 1000, { text: stepText('gone.stl', 'elsewhere.stl', 'broken.stl') }),
        dropped('other/elsewhere.stl'),
        dropped('asm/broken.stl', 0),
      ],
      options,
    );
    const notes = rows[0]!.notes.join('\n');
    expect(notes).toMatch(/not in this drop \(gone\.stl\)/);
    expect(notes).toMatch(/elsewhere\.stl is in this drop but not in the assembly’s folder/);
    expect(notes).toMatch(/broken\.stl will not be sent/);
  });

  it('reads only STEP files, only the first part of them, and copes with unreadable ones', async () => {
    const stl = dropped('a.stl');
    const stlText = vi.spyOn(stl, 'text' as never);
    const long = `${stepText()}\n${' '.repeat(100)}DOCUMENT_FILE('late.stl','','',#2,'','');`;
    const unreadable = { ...dropped('u.step'), text: () => Promise.reject(new Error('NotReadableError')) };
    const { rows } = await planUpload([stl, dropped('b.stp', 1000, { text: long }), unreadable], { ...options, maxScanChars: 200 });
    expect(stlText).not.toHaveBeenCalled();
    expect(rows[1]!.role).toBe('part');
    expect(rows[2]!.role).toBe('part');
    expect(rows[2]!.notes[0]).toMatch(/could not be read/);
  });

  it('chunks a plan into creation requests of 100', () => {
    expect(
      chunk(
        Array.from({ length: 250 }, (_, i) => i),
        100,
      ).map((c) => c.length),
    ).toEqual([100, 100, 50]);
  });
});
