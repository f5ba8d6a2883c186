import type { MeshFactsDto } from '../../contract/models';
import { formatLength, formatSize, unitIsKnown, type DisplayUnit } from '../../ui/lengths';

const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export interface FactRow {
  label: string;
  value: string;
}

/** The geometry facts as label/value rows, in the reader's length unit. */
export function factRows(facts: MeshFactsDto, display: DisplayUnit): FactRow[] {
  const size = facts.boundingBox.max.map((max, i) => max - (facts.boundingBox.min[i] ?? 0));
  const rows = [
    { label: 'Triangles', value: whole.format(facts.triangles) },
    { label: 'Size (bounding box)', value: formatSize(size, facts.units, display) },
    { label: 'Surface area', value: formatLength(facts.surfaceArea, facts.units, display, 2) },
    { label: 'Volume', value: volumeWords(facts, display) },
    { label: 'Shells', value: whole.format(facts.shells) },
  ];
  if (facts.simplified) {
    rows.push({
      label: 'Search and views from',
      value: `A simplified copy: ${whole.format(facts.simplified.triangles)} triangles, within ${formatLength(Number(facts.simplified.tolerance.toPrecision(2)), facts.units, display, 1)} of the file`,
    });
  }
  if (facts.reader) rows.push({ label: 'Read by', value: readerNames[facts.reader] ?? facts.reader });
  if (!unitIsKnown(facts.units)) rows.push({ label: 'File units', value: 'Not stated in the file; read as millimetres' });
  else rows.push({ label: 'File units', value: unitNames[facts.units] ?? facts.units });
  return rows;
}

/** The enclosed volume; with open shells beside closed ones, the closed ones' sum, saying what was left out. */
function volumeWords(facts: MeshFactsDto, display: DisplayUnit): string {
  if (facts.volume !== null) return formatLength(facts.volume, facts.units, display, 3);
  const closed = facts.closedShells ?? 0;
  if (facts.closedVolume == null || closed === 0) return 'Not known (the surface is not closed)';
  const open = facts.shells - closed;
  return `${formatLength(facts.closedVolume, facts.units, display, 3)} (the ${whole.format(closed)} closed ${closed === 1 ? 'body' : 'bodies'}; ${whole.format(open)} open ${open === 1 ? 'surface' : 'surfaces'} left out)`;
}

const readerNames: Record<string, string> = {
  'opencascade-native': 'OpenCascade on the server',
  'occt-import-js': 'OpenCascade (WebAssembly)',
};

const unitNames: Record<string, string> = { mm: 'Millimetres', cm: 'Centimetres', m: 'Metres', in: 'Inches' };
