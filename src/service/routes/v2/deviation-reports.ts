import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  defaultTolerance,
  deviationFiguresSchema,
  deviationReportRequestSchema,
  type DeviationFigures,
} from '../../../contract/deviation-report';
import { meshFactsSchema, searchableStates } from '../../../contract/models';
import { importFile } from '../../../geometry/import/registry';
import { isImportError } from '../../../geometry/import/importer';
import { convertUnits, type Mesh } from '../../../geometry/mesh/mesh';
import type { BlobStore } from '../../files/blob-store';
import { requireRole } from '../../http/auth';
import { Conflict, InvalidInput, NotFound } from '../../http/errors';
import { tenantGeneration } from '../../search/cache';
import { findMatches, NotIndexed } from '../../search/engine';
import { findModel } from '../../store/models';
import type { Database, ModelRow } from '../../store/schema';
import { deviationPdf, type ReportModel } from '../../reports/deviation-pdf';
import { heatMaps, measureDeviation, reportUnits } from '../../reports/deviation-report';

const idParams = z.object({ id: z.string() });

/**
 * `POST /v2/models/{id}/deviation-report`: the deviation between two models as a PDF to hand on
 * (reports/deviation-pdf.ts), or its figures. Measured on the viewer files — the surfaces the
 * compare view colours — in millimetres, whatever units the files were in.
 */
export async function deviationReportRoutes(parent: FastifyInstance, { db, blobStore }: { db: Kysely<Database>; blobStore: BlobStore }) {
  const app = parent.withTypeProvider<ZodTypeProvider>();

  async function ready(tenantId: number, id: string): Promise<ModelRow> {
    const row = await findModel(db, tenantId, id);
    if (!row) throw new NotFound(`No model ${id}.`);
    if (!(searchableStates as readonly string[]).includes(row.state) || !row.viewer_key)
      throw new Conflict(`${row.name} is ${row.state}; a report can be made once it has finished processing.`);
    return row;
  }

  /** The pair's own placement: its part-to-part match, else its part-in-part one. */
  async function matchPlacement(tenantId: number, a: ModelRow, b: ModelRow): Promise<{ transform: number[]; source: string } | null> {
    const generation = await tenantGeneration(db, tenantId);
    for (const kind of ['part-to-part', 'part-in-part'] as const) {
      const found = await findMatches({ db, tenantId, generation }, kind, a, undefined, '').catch((error: unknown) => {
        if (error instanceof NotIndexed) return [];
        throw error;
      });
      const m = found.find((x) => x.modelId === b.id && x.transform?.length === 16);
      if (m)
        return {
          transform: m.transform!,
          source:
            kind === 'part-to-part'
              ? `the pair's part-to-part alignment (score ${(m.matchPercentage ?? 0).toFixed(1)})`
              : "the pair's part-in-part placement",
        };
    }
    return null;
  }

  async function meshOf(row: ModelRow): Promise<Mesh> {
    const imported = await importFile('viewer.glb', await blobStore.get(row.viewer_key!));
    if (isImportError(imported)) throw new Conflict(`The viewer file of ${row.name} could not be read: ${imported.reason}`);
    return convertUnits({ positions: imported.positions, indices: imported.indices, units: imported.units }, 'mm');
  }

  app.post(
    '/:id/deviation-report',
    {
      schema: {
        tags: ['Matches'],
        summary: 'The deviation between two models, as a PDF report or its figures',
        description:
          'Both ways: the share of each surface (by area) within ±tolerance, the maximum and RMS distance, a histogram of signed distances (negative: inside the other); ' +
          'the PDF adds both models’ facts and paths, the placement, and heat maps of the model from four standard views. ' +
          'transform (column-major 4×4, mm) places the model in the other’s frame; without it the pair’s part-to-part (or part-in-part) placement is used, and a pair without one is a 409.',
        params: idParams,
        body: deviationReportRequestSchema,
        response: {
          200: {
            description: 'format=pdf (application/pdf) or format=json',
            content: {
              'application/pdf': { schema: z.string() },
              'application/json': { schema: deviationFiguresSchema },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'viewer');
      const body = request.body;
      if (body.otherId === request.params.id) throw new InvalidInput('Choose another model to compare with.', { parameter: 'otherId' });
      const [a, b] = await Promise.all([ready(auth.tenantId, request.params.id), ready(auth.tenantId, body.otherId)]);
      const placement = body.transform
        ? { transform: body.transform, source: 'given with the request' }
        : await matchPlacement(auth.tenantId, a, b);
      if (!placement) throw new Conflict(`No placement of ${a.name} on ${b.name} is known (they do not match); give one as transform.`);
      const [meshA, meshB] = await Promise.all([meshOf(a), meshOf(b)]);
      const scale = reportUnits[body.units];
      const toleranceMm =
        body.tolerance !== undefined ? body.tolerance * scale : defaultTolerance(Math.max(diagonal(meshA), diagonal(meshB)));
      const measured = measureDeviation(meshA, meshB, placement.transform, toleranceMm);
      const { aToB, bToA, scaleMax } = measured.figures;
      if (body.format === 'json') {
        const direction = (s: typeof aToB) => ({
          within: s.within,
          max: s.max / scale,
          rms: s.rms / scale,
          histogram: { range: s.histogram.range / scale, shares: s.histogram.shares },
        });
        const figures: DeviationFigures = {
          units: body.units,
          tolerance: toleranceMm / scale,
          placement: placement.transform,
          placementSource: placement.source,
          aToB: direction(aToB),
          bToA: direction(bToA),
        };
        return reply.type('application/json').send(figures);
      }
      const pdf = await deviationPdf({
        a: reportModel(a),
        b: reportModel(b),
        placement: placement.transform,
        placementSource: placement.source,
        toleranceMm,
        units: body.units,
        figures: { aToB, bToA, scaleMax },
        heatMaps: heatMaps(meshA, measured, toleranceMm),
        createdAt: new Date(),
      });
      // A Buffer is sent as it is (Fastify serializes only other payloads); the schema documents it.
      return reply.type('application/pdf').send(Buffer.from(pdf) as unknown as string);
    },
  );
}

function diagonal(mesh: Mesh): number {
  const P = mesh.positions;
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < P.length; i += 3)
    for (let k = 0; k < 3; k++) {
      lo[k] = Math.min(lo[k]!, P[i + k]!);
      hi[k] = Math.max(hi[k]!, P[i + k]!);
    }
  return Math.hypot(hi[0]! - lo[0]!, hi[1]! - lo[1]!, hi[2]! - lo[2]!);
}

/** A model's facts for the report, in mm (facts are in the model's units). */
function reportModel(row: ModelRow): ReportModel {
  const facts = meshFactsSchema.safeParse(row.facts);
  const f = facts.success ? facts.data : null;
  const toMm = { mm: 1, cm: 10, m: 1000, in: 25.4, ft: 304.8, um: 0.001 }[f?.units ?? 'mm'] ?? 1;
  const size = f ? ([0, 1, 2].map((k) => (f.boundingBox.max[k]! - f.boundingBox.min[k]!) * toMm) as [number, number, number]) : null;
  return {
    name: row.name,
    path: row.file_path,
    fileType: row.file_type,
    units: f?.units ?? 'unknown',
    triangles: f?.triangles ?? null,
    size,
    area: f ? f.surfaceArea * toMm ** 2 : null,
    volume: f?.volume != null ? f.volume * toMm ** 3 : null,
  };
}
