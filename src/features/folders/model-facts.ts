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
    {
      label: 'Volume',
      value: facts.volume === null ? 'Not known (the surface is not closed)' : formatLength(facts.volume, facts.units, display, 3),
    },
    { label: 'Shells', value: whole.format(facts.shells) },
  ];
  if (!unitIsKnown(facts.units)) rows.push({ label: 'File units', value: 'Not stated in the file; read as millimetres' });
  else rows.push({ label: 'File units', value: unitNames[facts.units] ?? facts.units });
  return rows;
}

const unitNames: Record<string, string> = { mm: 'Millimetres', cm: 'Centimetres', m: 'Metres', in: 'Inches' };
