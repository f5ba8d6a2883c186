import { describe, expect, it } from 'vitest';
import { decodeStepString, listOf, parseStepRecord, refOf, stepRecords, stepText, stringOf } from './step-tokenizer';

const FILE = `ISO-10303-21;
HEADER;
FILE_NAME('#9=NOT_A_RECORD(1);','',(''),(''),'','','');
ENDSEC;
DATA;
#1=PRODUCT('a;b','it''s',$,(#2,#3));
/* #99=COMMENTED_OUT('x'); */
#2 = cartesian_point ( '' , ( 1.5 , -2.E-1 , +3 ) ) ;
#3=(LENGTH_UNIT() NAMED_UNIT(*) SI_UNIT(.MILLI.,.METRE.));
#4=MEASURE_WITH_UNIT(LENGTH_MEASURE(25.4),#3);
#5=BINARY_THING("0FF");
ENDSEC;
END-ISO-10303-21;`;

const records = [...stepRecords(FILE)];
const parse = (id: number) =>
  parseStepRecord(
    FILE,
    records.find((r) => r.id === id)!,
  );

describe('stepRecords', () => {
  it('lists the DATA records in order, skipping the header, comments and strings holding ; or #', () => {
    expect(records.map((r) => [r.id, r.type])).toEqual([
      [1, 'PRODUCT'],
      [2, 'CARTESIAN_POINT'],
      [3, ''],
      [4, 'MEASURE_WITH_UNIT'],
      [5, 'BINARY_THING'],
    ]);
    for (const r of records) expect(FILE[r.end]).toBe(';');
  });

  it('reads a snippet without a DATA section from its start, and ends a cut-off record at the end of the text', () => {
    const cut = "#1=DOCUMENT_FILE('a.stp','',#2);\n#2=DOCUMENT_FILE('b.st";
    const spans = [...stepRecords(cut)];
    expect(spans.map((r) => r.id)).toEqual([1, 2]);
    expect(spans[1]!.end).toBe(cut.length);
    expect(parseStepRecord(cut, spans[0]!)).toEqual([{ type: 'DOCUMENT_FILE', args: ['a.stp', '', { ref: 2 }] }]);
    expect(parseStepRecord(cut, spans[1]!)).toBeNull();
  });
});

describe('parseStepRecord', () => {
  it('parses strings (escapes decoded), null, references and lists', () => {
    expect(parse(1)).toEqual([{ type: 'PRODUCT', args: ['a;b', "it's", null, [{ ref: 2 }, { ref: 3 }]] }]);
  });

  it('parses numbers in every STEP spelling, whatever the spacing', () => {
    const [point] = parse(2)!;
    expect(point!.args[1]).toEqual([1.5, -0.2, 3]);
  });

  it('parses the parts of a complex instance with enumerations and * placeholders', () => {
    expect(parse(3)).toEqual([
      { type: 'LENGTH_UNIT', args: [] },
      { type: 'NAMED_UNIT', args: [null] },
      { type: 'SI_UNIT', args: [{ enum: 'MILLI' }, { enum: 'METRE' }] },
    ]);
  });

  it('parses typed values and binary literals', () => {
    expect(parse(4)![0]!.args).toEqual([{ typed: 'LENGTH_MEASURE', args: [25.4] }, { ref: 3 }]);
    expect(parse(5)![0]!.args).toEqual(['0FF']);
  });

  it('gives null for a malformed record instead of throwing', () => {
    const bad = '#1=PRODUCT((1,2;';
    expect(parseStepRecord(bad, [...stepRecords(bad)][0]!)).toBeNull();
  });
});

describe('value helpers', () => {
  it('read a parameter as a reference, string or list, or give the empty answer', () => {
    const args = parse(1)![0]!.args;
    expect(stringOf(args[0])).toBe('a;b');
    expect(stringOf(args[2])).toBe('');
    expect(listOf(args[3]).map(refOf)).toEqual([2, 3]);
    expect(listOf(args[0])).toEqual([]);
    expect(refOf(args[0])).toBeUndefined();
  });
});

describe('decodeStepString and stepText', () => {
  it('decodes STEP string escapes', () => {
    expect(decodeStepString("it''s \\X\\E9t\\X\\E9 \\X2\\03A9\\X0\\ \\X4\\0001F600\\X0\\ \\S\\i \\\\")).toBe("it's été Ω 😀 é \\");
  });

  it('reads bytes as Latin-1, so every byte is one character', () => {
    expect(stepText(new Uint8Array([0x23, 0xe9]))).toBe('#é');
    expect(stepText('#1')).toBe('#1');
  });
});
