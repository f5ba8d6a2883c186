import { describe, expect, it } from 'vitest';
import type { MeshFactsDto } from '../../contract/models';
import { factRows } from './model-facts';

const facts = (over: Partial<MeshFactsDto>): MeshFactsDto => ({
  triangles: 36,
  boundingBox: { min: [0, 0, 0], max: [10, 10, 10] },
  surfaceArea: 600,
  volume: null,
  shells: 3,
  units: 'mm',
  ...over,
});
const volume = (f: MeshFactsDto) => factRows(f, 'mm').find((r) => r.label === 'Volume')?.value;

describe('factRows: volume', () => {
  it('gives the enclosed volume, the closed bodies of a partly open assembly, or says it is not known', () => {
    expect(volume(facts({ volume: 1000 }))).toMatch(/^1,000 mm³$/);
    expect(volume(facts({ closedShells: 2, closedVolume: 12 }))).toBe('12 mm³ (the 2 closed bodies; 1 open surface left out)');
    expect(volume(facts({ closedShells: 0, closedVolume: null }))).toBe('Not known (the surface is not closed)');
    // Read before closed bodies were counted.
    expect(volume(facts({}))).toBe('Not known (the surface is not closed)');
  });
});

describe('factRows: a simplified copy', () => {
  it('says the search and views come from a copy, its triangles and tolerance, only when there is one', () => {
    const rows = factRows(facts({ triangles: 21_473_952, simplified: { triangles: 518_004, tolerance: 0.6204 } }), 'mm');
    expect(rows.find((r) => r.label === 'Triangles')?.value).toBe('21,473,952');
    expect(rows.find((r) => r.label === 'Search and views from')?.value).toBe(
      'A simplified copy: 518,004 triangles, within 0.62 mm of the file',
    );
    expect(factRows(facts({}), 'mm').some((r) => r.label === 'Search and views from')).toBe(false);
  });
});
