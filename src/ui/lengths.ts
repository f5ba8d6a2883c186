// Lengths as people read them: in the unit they prefer (millimetres or inches), whatever unit the
// model's numbers are in. The one place that turns a model's units into words.
import { useSyncExternalStore } from 'react';
import { localStore } from './local-store';

export type DisplayUnit = 'mm' | 'in';
export const displayUnits: readonly DisplayUnit[] = ['mm', 'in'];

const mmPer: Record<string, number> = { mm: 1, cm: 10, m: 1000, in: 25.4 };
const significant = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 4 });
const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/** 4 significant digits for small values, whole numbers from 1000 on (no "1.235e+4"); rounding noise reads as 0. */
export function formatNumber(value: number): string {
  if (Math.abs(value) < 1e-9) return '0';
  return Math.abs(value) >= 1000 ? whole.format(value) : significant.format(value);
}

/** "+12 %" (match against query), "same" within 0.5 %, "—" when either is unknown. */
export function difference(q: number | null | undefined, m: number | null | undefined): string {
  if (q == null || m == null || q === 0) return '—';
  const pct = ((m - q) / Math.abs(q)) * 100;
  if (Math.abs(pct) < 0.5) return 'Same';
  return `${pct > 0 ? '+' : '−'}${formatNumber(Math.abs(pct))} %`;
}

/** Whether a model's unit is known; a mesh that never said one is read as millimetres. */
export function unitIsKnown(units: string | null | undefined): boolean {
  return Boolean(units && mmPer[units] !== undefined);
}

/** Converts a length (or an area, power 2, or a volume, power 3) from the model's units to the display unit. */
export function convertLength(value: number, from: string | null | undefined, to: DisplayUnit, power: 1 | 2 | 3 = 1): number {
  const factor = (mmPer[from ?? ''] ?? 1) / mmPer[to]!;
  return value * factor ** power;
}

const powers = { 1: '', 2: '²', 3: '³' } as const;

/**
 * Larger units for large values, so a number stays readable ("204.8 m³", not
 * "204,750,723,768 mm³"): past the threshold (in the display unit to that power) the value is
 * written in the larger unit.
 */
const larger: Record<DisplayUnit, Record<1 | 2 | 3, { from: number; unit: string; per: number }[]>> = {
  mm: {
    1: [{ from: 1e4, unit: 'm', per: 1e3 }],
    2: [
      { from: 1e6, unit: 'm', per: 1e6 },
      { from: 1e4, unit: 'cm', per: 1e2 },
    ],
    3: [
      { from: 1e9, unit: 'm', per: 1e9 },
      { from: 1e5, unit: 'cm', per: 1e3 },
    ],
  },
  in: {
    1: [{ from: 1200, unit: 'ft', per: 12 }],
    2: [{ from: 1e4, unit: 'ft', per: 144 }],
    3: [{ from: 1e5, unit: 'ft', per: 1728 }],
  },
};

/** "12.5 mm", "0.49 in²", "3.2 m³"; a model without a stated unit says its numbers were read as millimetres. */
export function formatLength(value: number, from: string | null | undefined, to: DisplayUnit, power: 1 | 2 | 3 = 1): string {
  const converted = convertLength(value, from, to, power);
  const step = larger[to][power].find((s) => Math.abs(converted) >= s.from);
  return step ? `${formatNumber(converted / step.per)} ${step.unit}${powers[power]}` : `${formatNumber(converted)} ${to}${powers[power]}`;
}

/** "100 × 60 × 8 mm". */
export function formatSize(sizes: readonly number[], from: string | null | undefined, to: DisplayUnit): string {
  return `${sizes.map((s) => formatNumber(convertLength(s, from, to))).join(' × ')} ${to}`;
}

// The preference lives in this browser and is the same on every page and tab.
const preference = localStore<DisplayUnit>('gsw:length-unit', (text) => (text === '"in"' || text === 'in' ? 'in' : 'mm'));

export function setDisplayUnit(unit: DisplayUnit): void {
  preference.set(unit);
}

/** The length unit this user reads (millimetres unless they chose inches). */
export function useDisplayUnit(): DisplayUnit {
  return useSyncExternalStore(preference.subscribe, preference.get, () => 'mm' as const);
}
