import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findStepReferences, isStepAssembly, scanStep } from './step-references';
import { decodeStepString } from './step-tokenizer';

const CAXIF = join(dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json')), 'test', 'testfiles', 'cax-if');
const read = (...p: string[]) => new Uint8Array(readFileSync(join(CAXIF, ...p)));

describe('findStepReferences', () => {
  it('lists the external files of the CATIA assembly s1-c5-214 and its sub-assemblies', () => {
    expect(findStepReferences(read('s1-c5-214', 's1-c5-214.stp'))).toEqual(['TAIL.stp', 'HEAD.stp', 'MAINBODY.stp', 'FOOT.stp']);
    expect(findStepReferences(read('s1-c5-214', 'HEAD.stp'))).toEqual(['HEAD_FRONT.stp', 'HEAD_BACK.stp']);
    expect(findStepReferences(read('s1-c5-214', 'HEAD_FRONT.stp'))).toEqual([]);
  });

  it('resolves the whole s1_pe_214 and s1-tu-203 trees down to part files, all present in the folder', () => {
    for (const [dir, top, leaves] of [
      ['s1_pe_214', 's1_pe_214.stp', 8],
      ['s1-tu-203', 's1-tu-203.stp', 8],
      ['s1-c5-214', 's1-c5-214.stp', 8],
    ] as const) {
      const present = readdirSync(join(CAXIF, dir));
      const seen = new Set<string>();
      const parts = new Set<string>();
      const walk = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        expect(present, `${dir}: ${file}`).toContain(file);
        const refs = findStepReferences(read(dir, file));
        if (refs.length === 0) parts.add(file);
        refs.forEach(walk);
      };
      walk(top);
      expect(parts.size, dir).toBe(leaves);
    }
  });

  it('finds nothing in the header (FILE_NAME) or in single-file parts', () => {
    expect(findStepReferences(read('s1-tu-203', 'headfront.stp'))).toEqual([]);
    expect(findStepReferences(read('as1-oc-214.stp'))).toEqual([]);
  });

  it('handles folders, escapes, blank ids and AP203 DOCUMENT entities', () => {
    const text = `ISO-10303-21;
HEADER; FILE_NAME('top.stp','',(''),(''),'','',''); ENDSEC;
DATA;
#1=DOCUMENT_FILE('parts\\\\left_arm.STEP','','',#9,'','');
#2=DOCUMENT_FILE('','wheel.stp','',#9,'','');
#3=DOCUMENT_FILE('D\\X2\\00FC\\X0\\se.stp','','',#9,'','');
#4=DOCUMENT('7','o''ring.stp','',#9);
#5=APPLIED_DOCUMENT_REFERENCE(#4,'',(#6));
#6=DOCUMENT_FILE('left_arm.STEP','','',#9,'','');
ENDSEC;
END-ISO-10303-21;`;
    const s = scanStep(text);
    expect(s.referencePaths).toEqual(['parts/left_arm.STEP', 'wheel.stp', 'Düse.stp', 'left_arm.STEP', "o'ring.stp"]);
    expect(s.references).toEqual(['left_arm.STEP', 'wheel.stp', 'Düse.stp', "o'ring.stp"]);
    expect(s.isAssembly).toBe(true);
  });

  it('decodes STEP string escapes', () => {
    expect(decodeStepString("it''s \\X\\E9t\\X\\E9 \\X2\\03A9\\X0\\")).toBe("it's été Ω");
  });
});

describe('isStepAssembly', () => {
  it('is true for embedded and external assemblies, false for single parts', () => {
    expect(isStepAssembly(read('as1-oc-214.stp'))).toBe(true); // embedded products
    expect(isStepAssembly(read('s1-c5-214', 's1-c5-214.stp'))).toBe(true); // external references
    expect(isStepAssembly(read('s1-c5-214', 'MAINBODY_BACK.stp'))).toBe(false);
    expect(isStepAssembly(read('io1-cm-214.stp'))).toBe(false);
    const as1 = scanStep(read('as1-oc-214.stp'));
    expect(as1.productCount).toBeGreaterThan(1);
    expect(as1.assemblyLinks).toBeGreaterThan(0);
  });
});
