import { describe, expect, it } from 'vitest';
import type { Model } from '../../contract/models';
import { csvFileName, matchesCsv, metadataColumns, toCsv } from './matches-csv';

const csvCell = (value: string | number | null) => toCsv([[value]]).replace(/\r\n$/, '');

function model(id: string, name: string, extra: Partial<Model> = {}): Model {
  return {
    id,
    name,
    filePath: `Parts/${name}.stl`,
    fileName: `${name}.stl`,
    fileType: 'stl',
    folderId: 4,
    isAssembly: false,
    state: 'finished',
    metadata: [],
    createdAt: '2026-11-22T00:00:00Z',
    updatedAt: '2026-11-22T00:00:00Z',
    ...extra,
  };
}

describe('matches CSV', () => {
  it('quotes commas, quotes and line breaks and defuses formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('-5')).toBe("'-5");
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(Number.NaN)).toBe('');
  });

  it('writes one row per match with scores, folder path, metadata columns and a link', () => {
    const names = new Map([
      [3, 'Material'],
      [9, 'Supplier'],
    ]);
    const matches = [
      {
        matchedModel: model('m1', 'Bracket, left', { metadata: [{ metadataKeyId: 9, value: 'ACME' }] }),
        forwardMatchPercentage: 99.876,
        reverseMatchPercentage: 12.3,
      },
      {
        matchedModel: model('m2', 'Plate', { folderId: 5, metadata: [{ metadataKeyId: 3, value: 'Brass' }] }),
        forwardMatchPercentage: 80,
        reverseMatchPercentage: 81,
        copies: 4,
      },
    ];
    const columns = metadataColumns(matches, names);
    expect(columns).toEqual([
      { id: 3, name: 'Material' },
      { id: 9, name: 'Supplier' },
    ]);
    const csv = matchesCsv(matches, {
      kind: 'part-in-part',
      folderPaths: new Map([[4, 'Parts']]),
      metadataKeys: columns,
      origin: 'https://wb.example/',
    });
    expect(csv.split('\r\n')).toEqual([
      'Name,File path,Folder,State,This model found in it (%),It found in this model (%),Quantity,Material,Supplier,Model id,Link',
      '"Bracket, left","Parts/Bracket, left.stl",Parts,Ready,99.88,12.3,,,ACME,m1,https://wb.example/models/m1',
      'Plate,Parts/Plate.stl,5,Ready,80,81,4,Brass,,m2,https://wb.example/models/m2',
      '',
    ]);
    const similar = matchesCsv([{ matchedModel: model('m3', 'Disc'), matchPercentage: 97.5 }], {
      kind: 'part-to-part',
      folderPaths: new Map(),
      metadataKeys: [],
      origin: 'http://x',
    });
    expect(similar.split('\r\n')[0]).toBe('Name,File path,Folder,State,Score (%),Model id,Link');
  });

  it('names the file after the model, kind and threshold', () => {
    expect(csvFileName('Plate / 2 (rev A)', 'geo-related', 75)).toBe('Plate_2_rev_A-geo-related-matches-75.csv');
  });
});
