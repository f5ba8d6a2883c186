// Chord error: how far a mesh's flat triangles can lie from the curved surface they stand for.
// Two adjacent facets of a tessellated curve meet at an angle θ; a facet of width w across that
// edge then lies up to about w·θ/8 (its sagitta) off the arc. Edges sharper than FEATURE_ANGLE are
// designed edges, not tessellation, and say nothing. Pure.
import type { Mesh } from '../../mesh/mesh';
import { boundingBox, faceNormals } from '../../mesh/mesh-facts';

/** Dihedral angles above this are edges of the design (a hexagon's 60° stays a hexagon). */
const FEATURE_ANGLE = (50 * Math.PI) / 180;

/** Neighbours closer to coplanar than this are one flat facet (exports leave a fraction of a degree of noise). */
const FLAT_ANGLE = (1 * Math.PI) / 180;
/** Two triangles this many times apart in area (or two strips in width) or less are facets of one curve. */
const SAME_WIDTH = 4;
/** A triangle whose shortest edge is this many times shorter than its longest is thin. */
const NEEDLE = 0.01;
/** And that edge this share of the part's diagonal or less: a needle, not a small hole's facet. */
const NEEDLE_SIZE = 1e-3;
/** A facet whose bending edges make up at least this share of its rim is a strip of a curve. */
const STRIP_RIM = 0.5;
/** A triangle reaching this many strip widths from an edge or less lies along the strip there (see alongStrip). */
const ALONG = 1.5;

export interface ChordErrors {
  /** Per triangle: how far it may lie off the curve it stands for (mesh units). */
  chord: Float32Array;
  /** Per triangle: the largest bend (radians) to a neighbour of the same curve, which its normal may differ by. */
  bend: Float32Array;
  /**
   * Per triangle: which side of it the curve of its chord error bends to — +1 towards its normal
   * (concave: a hole's wall, whose facets stand into the hole), −1 away from it (convex: a shaft,
   * whose facets cut into the material), 0 where it has no chord error or its chord error is not
   * from facets of one curve (a face beside a narrow chamfer). A facet inscribed in a curve
   * lies off it towards the curve's centre, so a distance measured from it is off by its chord
   * error in a known direction (thickness.ts).
   */
  side: Int8Array;
}

/** Per triangle of a welded mesh (shared vertices), its chord error and bend. */
export function chordErrors(welded: Mesh): ChordErrors {
  const p = welded.positions;
  const nt = welded.indices.length / 3;
  const nv = p.length / 3;
  const { normal, area2 } = faceNormals(p, welded.indices);
  const idx = collapseNeedles(welded, normal);
  const out = new Float32Array(nt);
  const bend = new Float32Array(nt);
  const side = new Int8Array(nt);
  // Per triangle: the length of its bending edges and the widest bending facet there (see below).
  const bendEdge = new Float64Array(nt),
    bendWidth = new Float64Array(nt);
  const curveChord = new Float32Array(nt),
    curveBend = new Float32Array(nt),
    curveSide = new Int8Array(nt);
  // Triangles of one flat facet (neighbours within FLAT_ANGLE): a facet of a coarse curve is often
  // cut into several triangles, and those inside it meet no bend of their own.
  const facet = new Int32Array(nt).map((_, i) => i);
  const root = (t: number): number => {
    while (facet[t] !== t) t = facet[t] = facet[facet[t]!]!;
    return t;
  };
  // Edges of exactly two faces: an edge of more (bodies meeting) is not a smooth curve.
  const onEdge = facesByEdge(idx, nv);
  const edgeLength = (key: number) => {
    const a = Math.floor(key / nv),
      b = key % nv;
    return Math.hypot(p[b * 3]! - p[a * 3]!, p[b * 3 + 1]! - p[a * 3 + 1]!, p[b * 3 + 2]! - p[a * 3 + 2]!);
  };
  // Bending edges (faces t and u, angle, length), and edges that are not flat (face t, face u or −1
  // where the edge has not two faces, length): the facets' rims once the flat facets are known.
  const bendT: number[] = [],
    bendU: number[] = [],
    bendAngle: number[] = [],
    bendLength: number[] = [],
    bendSide: number[] = [];
  const rimT: number[] = [],
    rimU: number[] = [],
    rimLength: number[] = [];
  for (const [key, list] of onEdge) {
    if (list.length === 2) {
      const [t, u] = list as [number, number];
      const cos = normal[t * 3]! * normal[u * 3]! + normal[t * 3 + 1]! * normal[u * 3 + 1]! + normal[t * 3 + 2]! * normal[u * 3 + 2]!;
      const angle = Math.acos(Math.max(-1, Math.min(1, cos)));
      if (angle <= FLAT_ANGLE) {
        facet[root(t)] = root(u);
        continue;
      }
      const edge = edgeLength(key);
      rimT.push(t);
      rimU.push(u);
      rimLength.push(edge);
      if (angle <= FEATURE_ANGLE && edge > 0) {
        bendT.push(t);
        bendU.push(u);
        bendAngle.push(angle);
        bendLength.push(edge);
        bendSide.push(bendsTowardNormal(p, idx, normal, t, u) ? 1 : -1);
      }
    } else {
      const edge = edgeLength(key);
      for (const t of list) {
        rimT.push(t);
        rimU.push(-1);
        rimLength.push(edge);
      }
    }
  }
  // A facet bent along most of its rim (a strip of a coarse curve, bent along both long sides) is
  // as wide as twice its area over its bending edges, however its triangles cut it: a mesher may
  // split a 10 mm facet into slivers 2 mm high along its bends. A face bent along one side only
  // (a plate meeting a shallow chamfer) is not a strip and keeps its triangles' widths.
  const facetArea = new Float64Array(nt),
    facetRim = new Float64Array(nt),
    facetBends = new Float64Array(nt);
  for (let t = 0; t < nt; t++) facetArea[root(t)]! += area2[t]! / 2;
  for (let k = 0; k < rimT.length; k++) {
    const rt = root(rimT[k]!);
    if (rimU[k]! < 0) facetRim[rt]! += rimLength[k]!;
    // Two faces of one facet joined around the other way are not its rim.
    else if (root(rimU[k]!) !== rt) {
      facetRim[rt]! += rimLength[k]!;
      facetRim[root(rimU[k]!)]! += rimLength[k]!;
    }
  }
  for (let k = 0; k < bendT.length; k++) {
    facetBends[root(bendT[k]!)]! += bendLength[k]!;
    facetBends[root(bendU[k]!)]! += bendLength[k]!;
  }
  const stripWidth = (t: number) => {
    const r = root(t);
    return facetBends[r]! >= STRIP_RIM * facetRim[r]! ? (2 * facetArea[r]!) / facetBends[r]! : 0;
  };
  // Whether the edge runs along t's strip, not across its end: t reaches no farther from it than
  // the strip is wide. A shaft's 32 strips meet a chamfered tip's cone at their ends at 45°; that
  // is the design's edge, and the cone's short facets are not a coarse curve of the shaft.
  const alongStrip = (t: number, edge: number) => area2[t]! / edge <= ALONG * stripWidth(t);
  const consider = (t: number, u: number, angle: number, edge: number, towards: number) => {
    bendEdge[t]! += edge;
    // The narrower facet is what bends: a wide face meeting a narrow chamfer at a shallow angle
    // must not read as a coarse curve as wide as the face.
    const strips = alongStrip(t, edge) && alongStrip(u, edge) ? Math.min(stripWidth(t), stripWidth(u)) : 0;
    const w = Math.max(Math.min(area2[t]!, area2[u]!) / edge, strips);
    bendWidth[t] = Math.max(bendWidth[t]!, w);
    out[t] = Math.max(out[t]!, (w * angle) / 8);
    bend[t] = Math.max(bend[t]!, angle);
    // Between facets of about one width: two facets of one curve (what a facet passes on below).
    if (
      Math.max(area2[t]!, area2[u]!) <= SAME_WIDTH * Math.min(area2[t]!, area2[u]!) ||
      (strips > 0 && Math.max(stripWidth(t), stripWidth(u)) <= SAME_WIDTH * strips)
    ) {
      if ((w * angle) / 8 > curveChord[t]!) {
        curveChord[t] = (w * angle) / 8;
        curveSide[t] = towards;
      }
      curveBend[t] = Math.max(curveBend[t]!, angle);
    }
  };
  for (let k = 0; k < bendT.length; k++) {
    consider(bendT[k]!, bendU[k]!, bendAngle[k]!, bendLength[k]!, bendSide[k]!);
    consider(bendU[k]!, bendT[k]!, bendAngle[k]!, bendLength[k]!, bendSide[k]!);
  }
  // Which way is known only where the chord error is a curve's (facets of about one width): a
  // flat face meeting a narrow chamfer keeps an allowance, but is not off the chamfer's curve.
  for (let t = 0; t < nt; t++) if (curveChord[t]! >= out[t]!) side[t] = curveSide[t]!;
  // A facet that is a strip along its bends (area no more than the bending facets' width times the
  // length of its bending edges) stands for a curve as a whole: each of its triangles takes the
  // largest chord error and bend found between it and facets of about its width (a coarse curve's
  // facet is often cut into triangles that meet no bend, or only the small one along the curve).
  // An edge to a much wider face (a countersink meeting a plate's top at 45°) is not passed on, and
  // a wide face meeting a curve at a shallow angle is a face of the design and keeps its own.
  const facetChord = new Float32Array(nt),
    facetBend = new Float32Array(nt),
    facetSide = new Int8Array(nt);
  const facetWidth = new Float64Array(nt);
  for (let t = 0; t < nt; t++) {
    const r = root(t);
    if (!bendEdge[t]) continue;
    if (curveChord[t]! > facetChord[r]!) {
      facetChord[r] = curveChord[t]!;
      facetSide[r] = curveSide[t]!;
    }
    facetBend[r] = Math.max(facetBend[r]!, curveBend[t]!);
    facetWidth[r] = Math.max(facetWidth[r]!, bendWidth[t]!);
  }
  for (let t = 0; t < nt; t++) {
    const r = root(t);
    if (!facetBends[r] || facetArea[r]! > facetWidth[r]! * facetBends[r]!) continue;
    if (facetChord[r]! > out[t]!) {
      out[t] = facetChord[r]!;
      side[t] = facetSide[r]!;
    }
    bend[t] = Math.max(bend[t]!, facetBend[r]!);
  }
  return { chord: out, bend, side };
}

/**
 * Whether the surface bends towards t's normal across its edge with u (concave there): u's corner
 * off the shared edge lies on the side t's normal points to. The same answer seen from u.
 */
function bendsTowardNormal(p: ArrayLike<number>, idx: ArrayLike<number>, normal: ArrayLike<number>, t: number, u: number): boolean {
  // Centroids: u's lies above t's plane where the surface turns up (towards t's normal).
  let d = 0;
  for (let k = 0; k < 3; k++) {
    const c = (tri: number) => (p[idx[tri * 3]! * 3 + k]! + p[idx[tri * 3 + 1]! * 3 + k]! + p[idx[tri * 3 + 2]! * 3 + k]!) / 3;
    d += (c(u) - c(t)) * normal[t * 3 + k]!;
  }
  return d > 0;
}

/**
 * The indices with the short edge of every needle triangle collapsed (its two ends made one
 * vertex), so the needle drops out and the facets on either side share its long edge. Boolean
 * kernels leave such slivers along a coarse curve's edges; across them two facets of the curve
 * would not be seen to meet. A needle is thin (NEEDLE), its short edge tiny beside the part
 * (NEEDLE_SIZE), and its normal, being noise, turned off a neighbour's past FEATURE_ANGLE: a thin
 * strip of a small hole's wall agrees with its neighbours and is kept.
 */
function collapseNeedles(welded: Mesh, normal: ArrayLike<number>): Uint32Array {
  const p = welded.positions,
    indices = welded.indices;
  const out = Uint32Array.from(indices);
  const nv = p.length / 3;
  const tiny = NEEDLE_SIZE * Math.hypot(...boundingBox(welded).size);
  const length = (a: number, b: number) => Math.hypot(p[b * 3]! - p[a * 3]!, p[b * 3 + 1]! - p[a * 3 + 1]!, p[b * 3 + 2]! - p[a * 3 + 2]!);
  const thin: [t: number, k: number][] = [];
  for (let t = 0; t < indices.length / 3; t++) {
    const a = indices[t * 3]!,
      b = indices[t * 3 + 1]!,
      c = indices[t * 3 + 2]!;
    const ab = length(a, b),
      bc = length(b, c),
      ca = length(c, a);
    const shortest = Math.min(ab, bc, ca);
    if (shortest < tiny && shortest < NEEDLE * Math.max(ab, bc, ca)) thin.push([t, shortest === ab ? 0 : shortest === bc ? 1 : 2]);
  }
  if (!thin.length) return out;
  const onEdge = facesByEdge(indices, nv);
  const cosFeature = Math.cos(FEATURE_ANGLE);
  const parent = Uint32Array.from({ length: nv }, (_, i) => i);
  const find = (v: number): number => {
    while (parent[v] !== v) v = parent[v] = parent[parent[v]!]!;
    return v;
  };
  for (const [t, k] of thin) {
    const v = [0, 1, 2].map((j) => indices[t * 3 + j]!);
    const turned = [1, 2].some((j) =>
      onEdge
        .get(edgeKey(v[(k + j) % 3]!, v[(k + j + 1) % 3]!, nv))!
        .some(
          (u) =>
            u !== t &&
            normal[t * 3]! * normal[u * 3]! + normal[t * 3 + 1]! * normal[u * 3 + 1]! + normal[t * 3 + 2]! * normal[u * 3 + 2]! <
              cosFeature,
        ),
    );
    if (turned) parent[find(v[k]!)] = find(v[(k + 1) % 3]!);
  }
  for (let j = 0; j < out.length; j++) out[j] = find(out[j]!);
  return out;
}

/** An edge's key, whichever way round (vertices a, b of nv). */
const edgeKey = (a: number, b: number, nv: number) => (a < b ? a * nv + b : b * nv + a);

/** The faces on each edge (by {@link edgeKey}); faces with two corners at one vertex have none. */
function facesByEdge(idx: ArrayLike<number>, nv: number): Map<number, number[]> {
  const onEdge = new Map<number, number[]>();
  for (let t = 0; t < idx.length / 3; t++) {
    if (idx[t * 3] === idx[t * 3 + 1] || idx[t * 3 + 1] === idx[t * 3 + 2] || idx[t * 3 + 2] === idx[t * 3]) continue;
    for (let k = 0; k < 3; k++) {
      const key = edgeKey(idx[t * 3 + k]!, idx[t * 3 + ((k + 1) % 3)]!, nv);
      const list = onEdge.get(key);
      if (list) list.push(t);
      else onEdge.set(key, [t]);
    }
  }
  return onEdge;
}

/**
 * How fast (radians per mm) the normal of a curved facet turns along the surface, the inverse of
 * the curve's radius: a facet of width w meeting its neighbour at θ has chord error c = w·θ/8, so
 * θ/w = θ²/(8c). Zero on flat faces.
 */
export const turnRate = (chord: number | undefined, bend: number | undefined) => (chord && bend ? (bend * bend) / (8 * chord) : 0);
