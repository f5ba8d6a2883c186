// The deviation between two models as a document to hand on: figures both ways (area-weighted:
// share within tolerance, maximum, RMS, a histogram of signed distances), heat maps of the first
// model from standard views, and the facts, paths and placement they were made with. The numbers
// come from geometry/compare/surface-deviation.ts, the colours from the compare view's scale.
import { Matrix4 } from 'three';
import { deviationColor, scaleMaxFor } from '../../geometry/compare/deviation-scale';
import {
  deviationStats,
  surfaceDeviation,
  surfaceIndex,
  type DeviationStats,
  type SurfaceDeviation,
} from '../../geometry/compare/surface-deviation';
import type { Mesh, Vec3 } from '../../geometry/mesh/mesh';
import { renderView } from '../../geometry/output/render/render-view';
import { ISOMETRIC } from '../../geometry/output/render/view';

/** Lengths as the reader chose them. */
export const reportUnits = { mm: 1, in: 25.4 } as const;
export type ReportUnit = keyof typeof reportUnits;

export interface DeviationFigures {
  /** The first model placed on the second: its surface's distances to the second's. */
  aToB: DeviationStats;
  /** The second model's surface to the first's, placed. */
  bToA: DeviationStats;
  /** Top of the colour scale and of the histogram's range (mm). */
  scaleMax: number;
}

export interface Measured {
  figures: DeviationFigures;
  /** Per vertex of the first model (its own frame), for the heat maps. */
  aSigned: SurfaceDeviation;
}

/** Both directions, meshes in millimetres, `placement` taking the first into the second's frame. */
export function measureDeviation(a: Mesh, b: Mesh, placement: readonly number[], toleranceMm: number): Measured {
  const aSigned = surfaceDeviation(a, placement, surfaceIndex(b));
  const inverse = new Matrix4()
    .fromArray(placement as number[])
    .invert()
    .toArray();
  const bSigned = surfaceDeviation(b, inverse, surfaceIndex(a));
  let largest = 0;
  for (const list of [aSigned.signed, bSigned.signed])
    for (const d of list) if (Number.isFinite(d) && Math.abs(d) > largest) largest = Math.abs(d);
  const scaleMax = scaleMaxFor(toleranceMm, largest);
  return {
    figures: { aToB: deviationStats(aSigned, toleranceMm, scaleMax), bToA: deviationStats(bSigned, toleranceMm, scaleMax), scaleMax },
    aSigned,
  };
}

export interface HeatMap {
  label: string;
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
}

/** The standard views a report shows, from the part towards the eye (z up). */
const VIEWS: { label: string; direction: Vec3; up: Vec3 }[] = [
  { label: 'Front', direction: [0, -1, 0], up: [0, 0, 1] },
  { label: 'Top', direction: [0, 0, 1], up: [0, 1, 0] },
  { label: 'Right', direction: [1, 0, 0], up: [0, 0, 1] },
  { label: 'Isometric', direction: ISOMETRIC, up: [0, 0, 1] },
];

/** The first model coloured by its distance to the second, from each standard view (white ground). */
export function heatMaps(a: Mesh, measured: Measured, toleranceMm: number, size = 360): HeatMap[] {
  const { signed } = measured.aSigned;
  const I = a.indices;
  const colors = new Uint8Array(I.length);
  for (let t = 0; t < I.length; t += 3) {
    // A triangle shows its farthest corner: a small deviation is not averaged away.
    const d = Math.max(Math.abs(signed[I[t]!]!), Math.abs(signed[I[t + 1]!]!), Math.abs(signed[I[t + 2]!]!));
    const c = deviationColor(d, toleranceMm, measured.figures.scaleMax);
    colors[t] = c[0] * 255;
    colors[t + 1] = c[1] * 255;
    colors[t + 2] = c[2] * 255;
  }
  return VIEWS.map((v) => {
    const r = renderView(a, {
      width: size,
      height: size,
      direction: v.direction,
      up: v.up,
      fit: 'tight',
      margin: 0.06,
      background: [255, 255, 255, 255],
      triangleColors: colors,
      edges: 0.35,
    });
    return { label: v.label, width: r.width, height: r.height, rgba: r.rgba };
  });
}
