// The deviation colour scale and its legend: one scale for the compare view and the deviation
// report (service/reports), so a colour means the same distance in both.

export type Rgb = readonly [number, number, number];

/** Within tolerance. */
export const withinColor: Rgb = [0.18, 0.62, 0.33];
/** Just beyond tolerance, then… */
export const nearColor: Rgb = [0.96, 0.78, 0.16];
/** …at or beyond the top of the scale. */
export const farColor: Rgb = [0.85, 0.16, 0.13];

function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/**
 * The colour of a distance: green up to the tolerance, then yellow to red up to `scaleMax`,
 * red beyond. A tolerance of 0 makes only exact contact green.
 */
export function deviationColor(distance: number, tolerance: number, scaleMax: number): Rgb {
  const d = Math.abs(distance);
  if (!Number.isFinite(d)) return farColor;
  if (d <= tolerance) return withinColor;
  const span = scaleMax - tolerance;
  if (span <= 0) return farColor;
  const t = (d - tolerance) / span;
  return t >= 1 ? farColor : mix(nearColor, farColor, t);
}

/** The top of the colour scale: a few tolerances, or the largest distance if that is smaller. */
export function scaleMaxFor(tolerance: number, maxDistance: number): number {
  const fromTolerance = tolerance > 0 ? tolerance * 5 : maxDistance;
  const top = Math.min(fromTolerance, maxDistance);
  return top > tolerance ? top : tolerance + Math.max(tolerance, 1e-9);
}

export interface LegendStop {
  /** 0..1 along the legend bar. */
  at: number;
  color: Rgb;
  label: string;
}

/**
 * Legend stops at 0, the tolerance, the middle of the ramp and the top ("≥"); `length` writes a
 * distance in model units as the reader wants it (with its unit).
 */
export function deviationLegend(tolerance: number, scaleMax: number, length: (value: number) => string): LegendStop[] {
  const tAt = scaleMax > 0 ? tolerance / scaleMax : 0;
  const mid = (tolerance + scaleMax) / 2;
  return [
    { at: 0, color: withinColor, label: length(0) },
    { at: tAt, color: deviationColor(tolerance, tolerance, scaleMax), label: `${length(tolerance)} (tolerance)` },
    { at: (tAt + 1) / 2, color: deviationColor(mid, tolerance, scaleMax), label: length(mid) },
    { at: 1, color: farColor, label: `≥ ${length(scaleMax)}` },
  ];
}
