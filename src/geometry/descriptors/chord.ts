// Chord error: how far a mesh's flat triangles can lie from the curved surface they stand for.
// Two adjacent facets of a tessellated curve meet at an angle θ; a facet of width w across that
// edge then lies up to about w·θ/8 (its sagitta) off the arc. Edges sharper than FEATURE_ANGLE are
// designed edges, not tessellation, and say nothing. Pure.
import type { Mesh } from '../mesh';
import { faceNormals } from '../mesh-facts';

/** Dihedral angles above this are edges of the design (a hexagon's 60° stays a hexagon). */
const FEATURE_ANGLE = (50 * Math.PI) / 180;

/** Neighbours closer to coplanar than this are one flat facet (exports leave a fraction of a degree of noise). */
const FLAT_ANGLE = (1 * Math.PI) / 180;
/** Two triangles this many times apart in area or less are facets of one curve. */
const SAME_WIDTH = 4;

export interface ChordErrors {
  /** Per triangle: how far it may lie off the curve it stands for (mesh units). */
  chord: Float32Array;
  /** Per triangle: the largest bend (radians) to a neighbour of the same curve, which its normal may differ by. */
  bend: Float32Array;
}

/** Per triangle of a welded mesh (shared vertices), its chord error and bend. */
export function chordErrors(welded: Mesh): ChordErrors {
  const p = welded.positions;
  const idx = welded.indices;
  const nt = idx.length / 3;
  const nv = p.length / 3;
  const { normal, area2 } = faceNormals(p, idx);
  const out = new Float32Array(nt);
  const bend = new Float32Array(nt);
  // Per triangle: the length of its bending edges and the widest bending facet there (see below).
  const bendEdge = new Float64Array(nt), bendWidth = new Float64Array(nt);
  const curveChord = new Float32Array(nt), curveBend = new Float32Array(nt);
  const consider = (t: number, u: number, angle: number, edge: number) => {
    bendEdge[t]! += edge;
    // The narrower facet is what bends: a wide face meeting a narrow chamfer at a shallow angle
    // must not read as a coarse curve as wide as the face.
    const w = Math.min(area2[t]!, area2[u]!) / edge;
    bendWidth[t] = Math.max(bendWidth[t]!, w);
    out[t] = Math.max(out[t]!, (w * angle) / 8);
    bend[t] = Math.max(bend[t]!, angle);
    // Between facets of about one width: two facets of one curve (what a facet passes on below).
    if (Math.max(area2[t]!, area2[u]!) <= SAME_WIDTH * Math.min(area2[t]!, area2[u]!)) {
      curveChord[t] = Math.max(curveChord[t]!, (w * angle) / 8);
      curveBend[t] = Math.max(curveBend[t]!, angle);
    }
  };
  // Edges of exactly two faces: an edge of more (bodies meeting) is not a smooth curve.
  const onEdge = new Map<number, number[]>();
  for (let t = 0; t < nt; t++) {
    for (let k = 0; k < 3; k++) {
      const a = idx[t * 3 + k]!, b = idx[t * 3 + ((k + 1) % 3)]!;
      const key = a < b ? a * nv + b : b * nv + a;
      const list = onEdge.get(key);
      if (list) list.push(t);
      else onEdge.set(key, [t]);
    }
  }
  // Triangles of one flat facet (neighbours within FLAT_ANGLE): a facet of a coarse curve is often
  // cut into several triangles, and those inside it meet no bend of their own.
  const facet = new Int32Array(nt).map((_, i) => i);
  const root = (t: number): number => {
    while (facet[t] !== t) t = facet[t] = facet[facet[t]!]!;
    return t;
  };
  for (const [key, list] of onEdge) {
    if (list.length !== 2) continue;
    const [t, u] = list as [number, number];
    const a = Math.floor(key / nv), b = key % nv;
    const cos = normal[t * 3]! * normal[u * 3]! + normal[t * 3 + 1]! * normal[u * 3 + 1]! + normal[t * 3 + 2]! * normal[u * 3 + 2]!;
    const angle = Math.acos(Math.max(-1, Math.min(1, cos)));
    if (angle <= FLAT_ANGLE) {
      facet[root(t)] = root(u);
      continue;
    }
    if (angle > FEATURE_ANGLE) continue;
    const edge = Math.hypot(p[b * 3]! - p[a * 3]!, p[b * 3 + 1]! - p[a * 3 + 1]!, p[b * 3 + 2]! - p[a * 3 + 2]!);
    if (!(edge > 0)) continue;
    consider(t, u, angle, edge);
    consider(u, t, angle, edge);
  }
  // A facet that is a strip along its bends (area no more than the bending facets' width times the
  // length of its bending edges) stands for a curve as a whole: each of its triangles takes the
  // largest chord error and bend found between it and facets of about its width (a coarse curve's
  // facet is often cut into triangles that meet no bend, or only the small one along the curve).
  // An edge to a much wider face (a countersink meeting a plate's top at 45°) is not passed on, and
  // a wide face meeting a curve at a shallow angle is a face of the design and keeps its own.
  const facetChord = new Float32Array(nt), facetBend = new Float32Array(nt);
  const facetArea = new Float64Array(nt), facetEdges = new Float64Array(nt), facetWidth = new Float64Array(nt);
  for (let t = 0; t < nt; t++) {
    const r = root(t);
    facetArea[r]! += area2[t]! / 2;
    if (!bendEdge[t]) continue;
    facetChord[r] = Math.max(facetChord[r]!, curveChord[t]!);
    facetBend[r] = Math.max(facetBend[r]!, curveBend[t]!);
    facetEdges[r]! += bendEdge[t]!;
    facetWidth[r] = Math.max(facetWidth[r]!, bendWidth[t]!);
  }
  for (let t = 0; t < nt; t++) {
    const r = root(t);
    if (!facetEdges[r] || facetArea[r]! > facetWidth[r]! * facetEdges[r]!) continue;
    out[t] = Math.max(out[t]!, facetChord[r]!);
    bend[t] = Math.max(bend[t]!, facetBend[r]!);
  }
  return { chord: out, bend };
}
