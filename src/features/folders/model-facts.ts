import type { MeshFactsDto } from '../../contract/models';

const precise = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 4 });
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** 4 significant digits for small values, whole numbers from 1000 on (no "1.235e+4"). */
export function formatNumber(value: number): string {
  return Math.abs(value) >= 1000 ? whole.format(value) : precise.format(value);
}

function unitSuffix(units: string, power: 1 | 2 | 3): string {
  const u = units.trim();
  if (!u || u === 'unknown' || u === 'unitless') return power === 1 ? ' units' : ` units${power === 2 ? '²' : '³'}`;
  return ` ${u}${power === 1 ? '' : power === 2 ? '²' : '³'}`;
}

export interface FactRow {
  label: string;
  value: string;
}

/** The geometry facts as label/value rows, with units. */
export function factRows(facts: MeshFactsDto): FactRow[] {
  const size = facts.boundingBox.max.map((max, i) => max - (facts.boundingBox.min[i] ?? 0));
  return [
    { label: 'Triangles', value: whole.format(facts.triangles) },
    { label: 'Size (bounding box)', value: `${size.map(formatNumber).join(' × ')}${unitSuffix(facts.units, 1)}` },
    { label: 'Surface area', value: `${formatNumber(facts.surfaceArea)}${unitSuffix(facts.units, 2)}` },
    {
      label: 'Volume',
      value: facts.volume === null ? 'Not known (the surface is not closed)' : `${formatNumber(facts.volume)}${unitSuffix(facts.units, 3)}`,
    },
    { label: 'Shells', value: whole.format(facts.shells) },
  ];
}

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** A file size for people: "812 bytes", "4.7 MB" (decimal units, as file managers show them). */
export function formatFileSize(bytes: number): string {
  if (bytes < 1000) return `${whole.format(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${sizeFormat.format(value)} ${units[unit]!}`;
}
