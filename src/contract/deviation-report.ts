import { z } from 'zod';
import { transformSchema } from './matches';

/** A tolerance that suits the parts: 0.5 % of the larger model's diagonal, rounded to 1-2-5 steps. */
export function defaultTolerance(diagonal: number): number {
  if (!(diagonal > 0)) return 0.1;
  const raw = diagonal * 0.005;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((s) => s * magnitude >= raw) ?? 10;
  return step * magnitude;
}

export const reportUnitChoices = ['mm', 'in'] as const;

/**
 * `POST /v2/models/{id}/deviation-report` (this service's addition): the deviation between the
 * model and `otherId` as a PDF (or its figures as JSON). `transform` places the model in the
 * other's frame (column-major, millimetres); without it the pair's own placement is used (its
 * part-to-part or part-in-part match). `tolerance` is in `units` (default: 0.5 % of the larger
 * model's diagonal, as the compare view opens).
 */
export const deviationReportRequestSchema = z.object({
  otherId: z.string(),
  transform: transformSchema.optional(),
  tolerance: z.number().positive().max(1e6).optional(),
  units: z.enum(reportUnitChoices).default('mm'),
  format: z.enum(['pdf', 'json']).default('pdf'),
});
export type DeviationReportRequest = z.input<typeof deviationReportRequestSchema>;

const directionSchema = z.object({
  /** Share of the surface (by area) within ±tolerance, 0–1. */
  within: z.number(),
  /** In `units`. */
  max: z.number(),
  rms: z.number(),
  /** Signed distances in `units`: equal bins over ±range, each the share of the surface in it. */
  histogram: z.object({ range: z.number(), shares: z.array(z.number()) }),
});

export const deviationFiguresSchema = z.object({
  units: z.enum(reportUnitChoices),
  tolerance: z.number(),
  placement: transformSchema,
  placementSource: z.string(),
  /** The model's surface to the other's. */
  aToB: directionSchema,
  /** The other's surface to the model's. */
  bToA: directionSchema,
});
export type DeviationFigures = z.infer<typeof deviationFiguresSchema>;
