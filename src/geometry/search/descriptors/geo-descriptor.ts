// Geo-related descriptor: broad size, proportion and topology, regardless of detail.
import type { Mesh } from '../../mesh/mesh';
import { meshFacts, type MeshFacts } from '../../mesh/mesh-facts';
import { analyseShape, type ShapeAnalysis } from './analysis';

/**
 * Layout (length 10), each entry already weighted so that L2 is the geo distance:
 *  0..2  ln of oriented extents (mm), descending            × 4
 *  3..4  aspect ratios e2/e1, e3/e1                          × 3
 *  5     √genus (through-holes)                              × 1.5
 *  6     ln shells                                           × 2
 *  7     box fill: volume / (e1·e2·e3)                       × 2
 *  8     area / box area 2(e1e2 + e2e3 + e1e3)               × 2
 *  9     ln(area) / 2 (mm)                                   × 1
 */
export const GEO_DESCRIPTOR_LENGTH = 10;

export function geoDescriptorFromAnalysis(a: ShapeAnalysis, facts: Pick<MeshFacts, 'genus' | 'shellCount'>): Float32Array {
  const [e1, e2, e3] = a.extents.map((e) => Math.max(e, 1e-6)) as [number, number, number];
  const genus = Math.max(0, facts.genus ?? 0);
  const box = e1 * e2 * e3;
  const boxArea = 2 * (e1 * e2 + e2 * e3 + e1 * e3);
  return Float32Array.from([
    4 * Math.log(e1),
    4 * Math.log(e2),
    4 * Math.log(e3),
    3 * (e2 / e1),
    3 * (e3 / e1),
    1.5 * Math.sqrt(genus),
    2 * Math.log(Math.max(1, facts.shellCount)),
    2 * Math.min(1.5, a.volume / box),
    2 * Math.min(3, a.moments.area / boxArea),
    0.5 * Math.log(Math.max(a.moments.area, 1e-12)),
  ]);
}

/** Geo descriptor of a mesh; pass facts/analysis already computed at ingestion to save time. */
export function geoDescriptor(mesh: Mesh, o: { facts?: MeshFacts; analysis?: ShapeAnalysis } = {}): Float32Array {
  return geoDescriptorFromAnalysis(o.analysis ?? analyseShape(mesh), o.facts ?? meshFacts(mesh));
}

/** Geo-related score 0..100: 100·exp(−d/4) of the L2 distance d (about 78 at d = 1, 37 at d = 4). */
export function geoRelatedScore(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) s += (a[i]! - b[i]!) ** 2;
  return 100 * Math.exp(-Math.sqrt(s) / 4);
}
