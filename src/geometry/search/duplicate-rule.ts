// The duplicate rule, in geometry a designer can check: two models are the same part when, after
// the best alignment by a proper rigid motion (turning and moving, never mirroring or scaling),
// almost all of each one's surface lies on the other's within a tolerance, and what little is off
// is not in one place on both (a small feature moved). The tolerance is a
// small share of the part's diagonal plus the larger of the two meshes' chord errors where
// the point lies (a flat facet standing in for a curved surface lies off it by up to its sagitta;
// two tessellations inscribed in one curve lie within the larger sagitta of each other), so a
// coarse but faithful tessellation still agrees and a hole moved by 1 % of the size does not. A
// flat face reaches as far on both (a corner cut off is off, however near the faces that remain).
// And no dimension changed: the thickness behind and the clearance in front of the surface at
// each sample (a wall, a washer, a shaft's or a hole's diameter) agree with the other model's
// there within 3 % of the thinner + 0.02 mm + tessellation, which no alignment can split between
// two faces.
// The same test after mirroring one model, or after scaling it to the other's size, says whether
// it is a mirror image or a scaled copy. Pure.
import type { Vec3 } from '../mesh/mesh';
import { alignParts, type Alignment, type PreparedPart } from './descriptors/rescore';
import { indexSurface, type IndexedSurface } from './descriptors/registration';
import { turnRate } from './descriptors/chord';
import { applyRigid, invertRigid, rigidToMat4, type Rigid } from '../mesh/transform';
import type { SurfaceSamples } from './descriptors/sampling';

/** The rule's tolerances (chosen on the dev split only). */
export const DUPLICATE_RULE = {
  /**
   * Distance allowed beyond the meshes' chord errors, as a share of the part's diagonal: an
   * alignment can split a moved feature's offset between it and the rest of the part, so a feature
   * moved by more than twice this is always off. (A share of the largest extent, 0.58–1 × this,
   * was tried on dev: it cost coarse meshes of filleted parts their match.)
   */
  tolerance: 0.004,
  /** The larger chord error counts this many times: a least-squares alignment of a coarse mesh (inscribed in the curve) against a fine one splits the difference. */
  chordFactor: 1.5,
  /** Share of either model's surface allowed outside the tolerance (sampling at sharp edges, tiny slivers). */
  outliers: 0.0015,
  /**
   * Unless the surface off is in one place on both: this many samples of each model's surface off
   * the other within `clusterSpacings` sample spacings of one of them. A feature that moved leaves
   * its old place off on one part and its new place off on the other, side by side; sampling at
   * edges scatters, and a remnant only one mesh has (an inner body) is off on one side. On the dev
   * split no pair of one part has more than 1 such sample of each; every small hole moved by 1–3 %
   * whose wall is under the outlier share has 3–6.
   */
  clusterSamples: 2,
  clusterSpacings: 2,
  /**
   * A flat face reaches as far on both: a sample of a flat face whose nearest agreeing sample of
   * the other lies more than a spacing away counts as on the other only when the other has at
   * least this share of the samples its own model has of that face within `reachSpacings`
   * spacings around it (when its own has at least `reachMinSamples` there), or the sample lies in
   * front of a face of the other meeting it by no more than that face's tolerance. The nearest agreeing
   * sample may be 2.5 spacings away (narrow faces hold few samples), so a corner cut off by a
   * chamfer lay within reach of the faces that remain: 11 of dev's 21 false duplicates. Flat
   * samples only: on a curve the samples facing one way form a narrow strip, and their count says
   * little. Set on the dev split (its pairs of one part kept).
   */
  reachShare: 0.1,
  reachSpacings: 2,
  reachMinSamples: 6,
  /**
   * The dimension test (see thickness.ts): a thickness or clearance at a sample differs from every
   * one of the other model's nearby samples facing the same way by more than this share of the
   * smaller of the two …
   */
  dimensionShare: 0.03,
  /** … plus this (mm) … */
  dimensionFloor: 0.02,
  /**
   * … plus this many times the larger of the two measures' tessellation allowances (what is left
   * of the facets' chord errors once each measure is corrected for them: thickness.ts).
   */
  dimensionChordFactor: 1,
  /**
   * Share of each model's samples allowed to differ so; a dimension changed only when both
   * models' shares are above it. A changed wall or hole differs seen from either model; a coarse
   * mesh's hexagon for a round hole differs only from its own side (the round hole's samples
   * find the hexagon's corners, which lie on the circle). On the dev split the most any pair of
   * one part reached is 0.54 % (a hinge cut into two bodies: rays meet the cut faces), and three
   * 6 mm holes 4.5 % narrower in a 90 mm plate 1.15 %.
   */
  dimensionOutliers: 0.008,
};

/**
 * Counting surface off stops past this share (10 × the allowed outliers): the pair has failed
 * long before, and the figure is only reported (how near a failing pair came). Clear non-duplicates
 * then cost a few hundred samples, not all of them.
 */
export const OFF_REPORTED_MAX = 10 * DUPLICATE_RULE.outliers;

export interface RuleOutcome {
  /** Whether the surface off is in one place on both models (a feature moved): see DUPLICATE_RULE.clusterSamples. */
  movedFeature: boolean;
  /** Share of a's surface off b, and of b's off a (after the motion; counted up to OFF_REPORTED_MAX, and b's not counted once a's fails). */
  offAB: number;
  offBA: number;
  /** Share of samples whose thickness or clearance the other model has not, the lower of the two models' (see dimensionOffShare); only measured when the surface agrees. */
  dimensionOff?: number;
  /** Whether both are within {@link DUPLICATE_RULE}.outliers, the surface off is not in one place on both, and no dimension changed. */
  agrees: boolean;
  alignment: Alignment;
}

/** Normals of one surface agree within this beyond the facets' half bends (radians). */
const NORMAL_ANGLE = (20 * Math.PI) / 180;
const MAX_ANGLE = Math.PI / 3;
/** Normals this close count from any nearby sample (see offSurfaceShare). */
const COS_CLOSE = Math.cos((10 * Math.PI) / 180);

/** Diagonal of the oriented extents (mm). */
export const diagonal = (p: PreparedPart) => Math.hypot(...p.analysis.extents);

/**
 * Share of `src` samples (placed by `m`) off `dst`: farther from it than the point's tolerance —
 * base + the larger chord error of the two samples (× chordFactor) — measured to the nearest `dst`
 * sample whose normal agrees, along the bisector of the two normals. Counting stops once the
 * share passes `stopAbove` (the share returned is then just past it). The samples found off are
 * added to `offPoints` (placed, x y z), when given.
 */
export function offSurfaceShare(
  srcSurface: IndexedSurface,
  srcChord: ArrayLike<number> | undefined,
  srcBend: ArrayLike<number> | undefined,
  m: Rigid,
  dst: IndexedSurface,
  dstChord: ArrayLike<number> | undefined,
  dstBend: ArrayLike<number> | undefined,
  base: number,
  stopAbove = OFF_REPORTED_MAX,
  offPoints?: number[],
): number {
  const src = srcSurface.samples;
  const n = src.count;
  if (!n) return 1;
  const offMax = Math.floor(stopAbove * n);
  const nearestD2 = new Float64Array(1);
  const P = src.points,
    N = src.normals,
    Q = dst.samples.points,
    QN = dst.samples.normals;
  const R = m.R;
  let maxChord = 0;
  if (dstChord) for (let j = 0; j < dstChord.length; j++) maxChord = Math.max(maxChord, dstChord[j]!);
  // Per dst sample once, not per candidate pair.
  const dstTurn = Float64Array.from({ length: dst.samples.count }, (_, j) => turnRate(dstChord?.[j], dstBend?.[j]));
  // The sample being judged; the helpers below are made once per call, not per sample (closures
  // in a loop of millions cost more than the arithmetic).
  let i = 0,
    px = 0,
    py = 0,
    pz = 0,
    nx = 0,
    ny = 0,
    nz = 0,
    ownChord = 0,
    turn = 0;
  let best: number,
    bestD2: number,
    bestD: number,
    close: boolean,
    closeD2 = 0;
  const allowed = (j: number) => base + DUPLICATE_RULE.chordFactor * Math.max(ownChord, dstChord?.[j] ?? 0);
  const cosTo = (j: number) => nx * QN[j * 3]! + ny * QN[j * 3 + 1]! + nz * QN[j * 3 + 2]!;
  /** The distance along the normals' bisector when the normals agree, else NaN. */
  const along = (j: number, d2: number, cos: number) => {
    const turned = Math.sqrt(d2) * Math.min(turn, dstTurn[j]!);
    if (cos < Math.cos(Math.min(MAX_ANGLE, NORMAL_ANGLE + ((srcBend?.[i] ?? 0) + (dstBend?.[j] ?? 0)) / 2 + turned))) return NaN;
    return (
      ((px - Q[j * 3]!) * (QN[j * 3]! + nx) + (py - Q[j * 3 + 1]!) * (QN[j * 3 + 1]! + ny) + (pz - Q[j * 3 + 2]!) * (QN[j * 3 + 2]! + nz)) /
      Math.sqrt(2 + 2 * cos)
    );
  };
  // Whether dst holds much less of the sample's flat face around it than src does (see
  // DUPLICATE_RULE.reachShare): the sample lies beyond where dst's face ends. Own samples of the
  // face: facing within NORMAL_ANGLE, within the base tolerance of its plane; dst's: facing so and
  // within the point's tolerance of it.
  const reach = DUPLICATE_RULE.reachSpacings * dst.spacing + base,
    near = dst.spacing + base,
    cosFace = Math.cos(NORMAL_ANGLE);
  let x = 0,
    y = 0,
    z = 0,
    own = 0,
    theirs = 0,
    edge = false;
  const countOwn = (j: number) => {
    const c = N[i * 3]! * N[j * 3]! + N[i * 3 + 1]! * N[j * 3 + 1]! + N[i * 3 + 2]! * N[j * 3 + 2]!;
    if (
      c >= cosFace &&
      Math.abs((P[j * 3]! - x) * N[i * 3]! + (P[j * 3 + 1]! - y) * N[i * 3 + 1]! + (P[j * 3 + 2]! - z) * N[i * 3 + 2]!) <= base
    )
      own++;
  };
  const countTheirs = (j: number) => {
    if (cosTo(j) >= cosFace && Math.abs((Q[j * 3]! - px) * nx + (Q[j * 3 + 1]! - py) * ny + (Q[j * 3 + 2]! - pz) * nz) <= allowed(j))
      theirs++;
  };
  // A face's edge may lie short of the other's by the tolerance and the chord errors of the face
  // it meets there: a coarse curve's facets stand inside the curve, so a flat face beside it ends
  // up to the chord error short. A sample that little in front of a face of dst meeting its own
  // is reached (a corner cut off by a chamfer lies farther in front of the chamfer).
  const edgeNear = (j: number) => {
    if (cosTo(j) >= cosFace) return false;
    const d = (px - Q[j * 3]!) * QN[j * 3]! + (py - Q[j * 3 + 1]!) * QN[j * 3 + 1]! + (pz - Q[j * 3 + 2]!) * QN[j * 3 + 2]!;
    return (edge = d >= 0 && d <= allowed(j));
  };
  const beyondEdge = (d2: number) => {
    if (turn > 0 || d2 <= near * near) return false;
    own = theirs = 0;
    srcSurface.tree.within(x, y, z, reach, countOwn);
    if (own < DUPLICATE_RULE.reachMinSamples) return false;
    dst.tree.within(px, py, pz, reach, countTheirs);
    if (theirs >= DUPLICATE_RULE.reachShare * own) return false;
    edge = false;
    dst.tree.within(px, py, pz, reach, edgeNear);
    return !edge;
  };
  const visit = (j: number, d2: number) => {
    const cos = cosTo(j);
    const d = along(j, d2, cos);
    if (Number.isNaN(d)) return false;
    if (cos >= COS_CLOSE && Math.abs(d) <= allowed(j)) {
      // The nearest of them decides whether the reach is checked: look on while it is far.
      if (!close || d2 < closeD2) closeD2 = d2;
      close = true;
      return d2 <= near * near;
    }
    if (d2 < bestD2) {
      best = j;
      bestD2 = d2;
      bestD = d;
    }
    return false;
  };
  let off = 0;
  for (i = 0; i < n; i++) {
    x = P[i * 3]!;
    y = P[i * 3 + 1]!;
    z = P[i * 3 + 2]!;
    px = R[0]! * x + R[1]! * y + R[2]! * z + m.t[0];
    py = R[3]! * x + R[4]! * y + R[5]! * z + m.t[1];
    pz = R[6]! * x + R[7]! * y + R[8]! * z + m.t[2];
    nx = R[0]! * N[i * 3]! + R[1]! * N[i * 3 + 1]! + R[2]! * N[i * 3 + 2]!;
    ny = R[3]! * N[i * 3]! + R[4]! * N[i * 3 + 1]! + R[5]! * N[i * 3 + 2]!;
    nz = R[6]! * N[i * 3]! + R[7]! * N[i * 3 + 1]! + R[8]! * N[i * 3 + 2]!;
    ownChord = srcChord?.[i] ?? 0;
    turn = turnRate(srcChord?.[i], srcBend?.[i]);
    // The nearest dst sample whose normal agrees (within NORMAL_ANGLE plus half of both facets'
    // bends: a facet of a curve tilts from its normal by up to half its bend) must lie within the
    // tolerance along the bisector of the two normals (exact on a plane; on a circle the chord
    // between two of its points is orthogonal to it, so curvature does not read as distance).
    // Narrow faces (a gear's tooth tips, a boss) hold few samples, so the nearest may sit on a
    // neighbouring face: any sample up to 2.5 spacings away whose normal agrees within
    // CLOSE_ANGLE (no bend allowance, so a chamfer never stands in for its faces) also counts.
    // On a curve, a sample some way off has its normal turned by that way times the curve's turn
    // rate: a small hole holds a few samples around it, which a fixed angle would never pair. Only
    // between two curved samples (the slower rate): a flat face never pairs with a hole's wall.
    const radius = 2.5 * dst.spacing + base + DUPLICATE_RULE.chordFactor * Math.max(ownChord, maxChord);
    // Most samples of a pair that agrees lie on the nearest sample of the other: when the nearest
    // agrees within its tolerance, it is also the nearest agreeing one the full search would find.
    const first = dst.tree.nearest(px, py, pz, radius, nearestD2);
    if (first >= 0 && Math.abs(along(first, nearestD2[0]!, cosTo(first))) <= allowed(first)) {
      if (!beyondEdge(nearestD2[0]!)) continue;
      // Beyond dst's face: every other agreeing sample lies farther, and the counts do not change.
      offPoints?.push(px, py, pz);
      if (++off > offMax) break;
      continue;
    }
    best = -1;
    bestD2 = Infinity;
    bestD = 0;
    close = false;
    dst.tree.within(px, py, pz, radius, visit);
    const ok = close || (best >= 0 && Math.abs(bestD) <= allowed(best));
    if (ok && !beyondEdge(close ? closeD2 : bestD2)) continue;
    offPoints?.push(px, py, pz);
    if (++off > offMax) break;
  }
  return off / n;
}

/**
 * The rule for a against b after their best proper rigid alignment: the aligner's first choice,
 * ranked by how much surface lies within a fixed distance. A coarse mesh lies off its curves by
 * its chord error everywhere, so that ranking means little for it: when either mesh is coarse
 * (its median sample's chord error, counted chordFactor times, exceeds the base tolerance) and the
 * rule fails, the aligner's other refined candidates are judged too; the least surface off wins.
 */
export function checkDuplicate(a: PreparedPart, b: PreparedPart): RuleOutcome {
  const alignment = alignParts(a, b);
  const base = DUPLICATE_RULE.tolerance * Math.max(diagonal(a), diagonal(b));
  const judge = (motion: Rigid): RuleOutcome => {
    // The samples found off: a's placed in b's frame, b's in a's frame.
    const offA: number[] = [],
      offB: number[] = [];
    const offAB = offSurfaceShare(
      a.surface,
      a.analysis.chord,
      a.analysis.bend,
      motion,
      b.surface,
      b.analysis.chord,
      b.analysis.bend,
      base,
      OFF_REPORTED_MAX,
      offA,
    );
    // Failed one way: the other way cannot save it (reported as at least as much off).
    const offBA =
      offAB > DUPLICATE_RULE.outliers
        ? offAB
        : offSurfaceShare(
            b.surface,
            b.analysis.chord,
            b.analysis.bend,
            invertRigid(motion),
            a.surface,
            a.analysis.chord,
            a.analysis.bend,
            base,
            OFF_REPORTED_MAX,
            offB,
          );
    const withinShare = Math.max(offAB, offBA) <= DUPLICATE_RULE.outliers;
    const movedFeature =
      withinShare &&
      offInOnePlace(offA, placeAll(motion, offB), DUPLICATE_RULE.clusterSpacings * Math.max(a.surface.spacing, b.surface.spacing));
    // Seen from a first; from b only when a sees a change (the lower of the two decides).
    const fromA = withinShare && !movedFeature ? dimensionOffShare(a, motion, b, base) : undefined;
    const dimensionOff =
      fromA === undefined || fromA <= DUPLICATE_RULE.dimensionOutliers
        ? fromA
        : Math.min(fromA, dimensionOffShare(b, invertRigid(motion), a, base));
    return {
      offAB,
      offBA,
      movedFeature,
      ...(dimensionOff !== undefined ? { dimensionOff } : {}),
      agrees: withinShare && !movedFeature && (dimensionOff ?? 0) <= DUPLICATE_RULE.dimensionOutliers,
      alignment: motion === alignment.motion ? alignment : { ...alignment, motion, transform: rigidToMat4(motion) },
    };
  };
  let best = judge(alignment.motion);
  if (best.agrees || (medianChord(a) * DUPLICATE_RULE.chordFactor <= base && medianChord(b) * DUPLICATE_RULE.chordFactor <= base))
    return best;
  for (const motion of alignment.alternatives) {
    if (best.agrees) break;
    const next = judge(motion);
    if (Math.max(next.offAB, next.offBA) < Math.max(best.offAB, best.offBA)) best = next;
  }
  return best;
}

/** Normals of two samples face the same way for the dimension test within this. */
const COS_DIMENSION = Math.cos((30 * Math.PI) / 180);

/**
 * Share of `src`'s samples (placed by `m`) with a thickness or clearance (thickness.ts) outside the
 * range the samples of `dst` around it (within 2.5 spacings plus `base`, facing the same way) have,
 * by more than the rule's dimension tolerance. A thickness is compared only with thicknesses
 * where it is, whichever way the alignment put the wall: a wall 5 % thicker differs at every
 * sample of its faces. A measure counts only where it holds around its sample (two more of its own
 * model's samples agree, none disagrees); thickness.ts leaves facets bent too far unmeasured. 0 when either model has no
 * measures (stored before they were).
 */
export function dimensionOffShare(src: PreparedPart, m: Rigid, dst: PreparedPart, base: number): number {
  const ts = src.analysis.thickness,
    td = dst.analysis.thickness;
  if (!ts || !td) return 0;
  const S = src.analysis.samples,
    Q = dst.surface.samples,
    N = S.normals;
  const cs = src.analysis.chord,
    cd = dst.analysis.chord;
  const R = m.R;
  const radius = 2.5 * dst.surface.spacing + base;
  let off = 0;
  let nx = 0,
    ny = 0,
    nz = 0,
    lo = Infinity,
    hi = -Infinity,
    errorNear = 0;
  let theirs: Float32Array = td.inward,
    theirErrors: Float32Array | undefined;
  // The range of the neighbours' measures: a measure that varies along the surface (a groove's
  // width with depth, a gap between gear teeth) lies within the range of the samples around it;
  // a wall made thicker lies above all of them.
  const visit = (j: number) => {
    const w = theirs[j]!;
    if (!(w > 0) || nx * Q.normals[j * 3]! + ny * Q.normals[j * 3 + 1]! + nz * Q.normals[j * 3 + 2]! < COS_DIMENSION) return;
    if (w < lo) lo = w;
    if (w > hi) hi = w;
    errorNear = Math.max(errorNear, theirErrors ? theirErrors[j]! : 2 * (cd?.[j] ?? 0));
  };
  for (let i = 0; i < S.count; i++) {
    const x = S.points[i * 3]!,
      y = S.points[i * 3 + 1]!,
      z = S.points[i * 3 + 2]!;
    const px = R[0]! * x + R[1]! * y + R[2]! * z + m.t[0],
      py = R[3]! * x + R[4]! * y + R[5]! * z + m.t[1],
      pz = R[6]! * x + R[7]! * y + R[8]! * z + m.t[2];
    nx = R[0]! * N[i * 3]! + R[1]! * N[i * 3 + 1]! + R[2]! * N[i * 3 + 2]!;
    ny = R[3]! * N[i * 3]! + R[4]! * N[i * 3 + 1]! + R[5]! * N[i * 3 + 2]!;
    nz = R[6]! * N[i * 3]! + R[7]! * N[i * 3 + 1]! + R[8]! * N[i * 3 + 2]!;
    let sampleOff = false;
    for (const k of [0, 1]) {
      const mine = k ? ts.outward : ts.inward;
      const v = mine[i]!;
      if (!(v > 0)) continue;
      const ownError = (k ? ts.outwardError : ts.inwardError)?.[i] ?? 2 * (cs?.[i] ?? 0);
      const tolerance = DUPLICATE_RULE.dimensionShare * v + DUPLICATE_RULE.dimensionFloor;
      // Only where the measure holds around the sample on its own model — two neighbours facing
      // the same way agree and none disagrees: next to an edge of the ray's far side (a hole's
      // rim) or across a gear's flank it changes from one sample to the next, and where a sample
      // fell says nothing about the design.
      let alike = 0,
        unlike = 0;
      src.surface.tree.within(x, y, z, 2 * src.surface.spacing, (j) => {
        // A neighbour not measured (its facet bent too far: NaN) neither agrees nor disagrees.
        if (
          j === i ||
          Number.isNaN(mine[j]) ||
          N[i * 3]! * N[j * 3]! + N[i * 3 + 1]! * N[j * 3 + 1]! + N[i * 3 + 2]! * N[j * 3 + 2]! < COS_DIMENSION
        )
          return false;
        if (Math.abs(mine[j]! - v) <= tolerance + DUPLICATE_RULE.dimensionChordFactor * ownError) alike++;
        else unlike++;
        return unlike > 0;
      });
      if (alike < 2 || unlike > 0) continue;
      theirs = k ? td.outward : td.inward;
      theirErrors = k ? td.outwardError : td.inwardError;
      lo = Infinity;
      hi = -Infinity;
      errorNear = 0;
      dst.surface.tree.within(px, py, pz, radius, visit);
      if (lo > hi) continue;
      // 3 % of the smaller of the two (whichever model is the thicker: the same answer both ways).
      const slack = DUPLICATE_RULE.dimensionFloor + DUPLICATE_RULE.dimensionChordFactor * Math.max(ownError, errorNear);
      if (v < lo - DUPLICATE_RULE.dimensionShare * v - slack || v > hi + DUPLICATE_RULE.dimensionShare * hi + slack) sampleOff = true;
    }
    if (sampleOff) off++;
  }
  return S.count ? off / S.count : 0;
}

/** Points (x y z …) moved by `m`. */
function placeAll(m: Rigid, xyz: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < xyz.length; k += 3) out.push(...applyRigid(m, [xyz[k]!, xyz[k + 1]!, xyz[k + 2]!]));
  return out;
}

/**
 * Whether some sample off lies within `radius` of DUPLICATE_RULE.clusterSamples samples off of
 * each model (itself counted): the surface off is in one place on both (a few points each, since
 * each side is within the outlier share).
 */
function offInOnePlace(offA: readonly number[], offB: readonly number[], radius: number): boolean {
  const need = DUPLICATE_RULE.clusterSamples;
  if (offA.length < need * 3 || offB.length < need * 3) return false;
  const near = (x: number, y: number, z: number, pts: readonly number[]) => {
    let n = 0;
    for (let k = 0; k < pts.length; k += 3) if (Math.hypot(pts[k]! - x, pts[k + 1]! - y, pts[k + 2]! - z) <= radius) n++;
    return n;
  };
  for (const pts of [offA, offB]) {
    for (let k = 0; k < pts.length; k += 3) {
      const x = pts[k]!,
        y = pts[k + 1]!,
        z = pts[k + 2]!;
      if (near(x, y, z, offA) >= need && near(x, y, z, offB) >= need) return true;
    }
  }
  return false;
}

/** Chord error (mm) of the median surface sample. */
function medianChord(p: PreparedPart): number {
  const c = p.analysis.chord;
  return c?.length ? Float32Array.from(c).sort()[c.length >> 1]! : 0;
}

/** Score 98..100 of a pair that agrees: 100 with nothing off, 98 at the allowed share. */
export function agreementScore(o: RuleOutcome): number {
  return 100 - (2 * Math.max(o.offAB, o.offBA)) / DUPLICATE_RULE.outliers;
}

/** a's mirror image (x negated in a's own frame), prepared like a part. */
export function mirrored(a: PreparedPart): PreparedPart {
  const s = a.analysis.samples;
  const points = Float64Array.from(s.points);
  const normals = Float64Array.from(s.normals);
  for (let i = 0; i < s.count; i++) {
    points[i * 3] = -points[i * 3]!;
    normals[i * 3] = -normals[i * 3]!;
  }
  const samples: SurfaceSamples = { ...s, points, normals };
  const flip = (v: Vec3): Vec3 => [-v[0], v[1], v[2]];
  const [e1, e2, e3] = a.analysis.pose.axes;
  // Mirroring turns the frame left-handed; turning its third axis over makes it proper again.
  const e3m = flip(e3);
  const pose = {
    ...a.analysis.pose,
    centroid: flip(a.analysis.pose.centroid),
    axes: [flip(e1), flip(e2), [-e3m[0], -e3m[1], -e3m[2]]] as [Vec3, Vec3, Vec3],
  };
  const analysis = { ...a.analysis, samples, pose };
  return { ...a, analysis, surface: indexSurface(samples, a.analysis.spacingSamples) };
}

/** a scaled by `f` about the origin, prepared like a part. */
export function scaled(a: PreparedPart, f: number): PreparedPart {
  const s = a.analysis.samples;
  const points = s.points.map((v) => v * f);
  const samples: SurfaceSamples = { ...s, points, area: s.area * f * f };
  const p = a.analysis.pose;
  const pose = { ...p, centroid: p.centroid.map((v) => v * f) as Vec3, eigenvalues: p.eigenvalues.map((v) => v * f * f) as Vec3 };
  const chord = a.analysis.chord?.map((c) => c * f);
  const t = a.analysis.thickness;
  const times = (x: Float32Array | undefined) => x?.map((v) => v * f);
  const thickness = t && {
    inward: times(t.inward)!,
    outward: times(t.outward)!,
    ...(t.inwardError ? { inwardError: times(t.inwardError)!, outwardError: times(t.outwardError)! } : {}),
  };
  const analysis = {
    ...a.analysis,
    ...(thickness ? { thickness } : {}),
    samples,
    pose,
    extents: a.analysis.extents.map((e) => e * f) as Vec3,
    rmsRadius: a.analysis.rmsRadius * f,
    moments: { ...a.analysis.moments, area: a.analysis.moments.area * f * f },
    ...(chord ? { chord } : {}),
  };
  return { ...a, analysis, surface: indexSurface(samples, a.analysis.spacingSamples) };
}

export type Relation = 'same' | 'mirrored' | 'scaled';

/** Extents agree within this factor for a pair to be tried as the same part (coarse meshes are a little smaller). */
export const SAME_SIZE = 1.1;
/**
 * Or outer surface areas agree within this and the descriptor says the shapes are alike
 * (AREA_DESCRIPTOR_FLOOR): oriented extents mean nothing where the principal axes are arbitrary
 * (a cube's extents along a tilted frame are up to √3 larger).
 */
const SAME_AREA = 1.15;
const AREA_DESCRIPTOR_FLOOR = 60;
/** Extent ratios agree with their mean within this factor for a pair to be tried as scaled copies. */
const SAME_PROPORTIONS = 1.04;

export interface Size {
  /** Oriented extents (mm), descending. */
  extents: ArrayLike<number>;
  /** Outer surface area (mm²). */
  area: number;
}

/** Which relations a pair can have by its size (and, for size by area, its descriptor score). */
export function plausibleRelations(a: Size, b: Size, descriptor: number): { same: boolean; scale?: number } {
  const r = [0, 1, 2].map((k) => Math.max(b.extents[k]!, 1e-9) / Math.max(a.extents[k]!, 1e-9));
  const areaRatio = Math.max(b.area, 1e-12) / Math.max(a.area, 1e-12);
  const same =
    r.every((x) => x <= SAME_SIZE && x >= 1 / SAME_SIZE) ||
    (descriptor >= AREA_DESCRIPTOR_FLOOR && areaRatio <= SAME_AREA && areaRatio >= 1 / SAME_AREA);
  if (same) return { same };
  const g = Math.cbrt(r[0]! * r[1]! * r[2]!);
  return r.every((x) => x / g <= SAME_PROPORTIONS && g / x <= SAME_PROPORTIONS) ? { same, scale: g } : { same };
}

/** The highest score of a pair that is not the same part by the rule. */
export const NOT_SAME_MAX = 97.9;

export interface PartToPartOutcome {
  score: number;
  relation?: 'mirrored' | 'scaled';
  scale?: number;
  /** Column-major 4×4 placing a in b's frame (with the mirror or the scale for those relations); absent when not aligned. */
  transform?: number[];
  /** The larger share of surface off the other after alignment, for reports (absent when not tried; see RuleOutcome). */
  off?: number;
}

const mirrorX = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const scaling4 = (f: number) => [f, 0, 0, 0, 0, f, 0, 0, 0, 0, f, 0, 0, 0, 0, 1];

function mul4(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r]! += a[k * 4 + r]! * b[c * 4 + k]!;
  return out;
}

/**
 * The exact part-to-part outcome of a pair whose descriptor score is `descriptor`: ≥ 98 only when
 * the rule holds; otherwise the descriptor's score, at most {@link NOT_SAME_MAX}, with the
 * relation when a's mirror image or a scaled copy of a is b by the same rule.
 *
 * The same outcome whichever model is `a`: the search for the best alignment starts from one
 * model's samples and frame, so a pair near the rule's limits could hold one way and fail the
 * other, and which way the service computed a pair depended on its models' (random) ids. The pair
 * is computed in an order of its geometry instead ({@link geometryFirst}) and seen from the other
 * model by inverting the result. When that way fails but the surface off was still counted (under
 * OFF_REPORTED_MAX: near the limit, not another shape), the other way's alignment is judged too.
 */
export function partToPartExact(a: PreparedPart, b: PreparedPart, descriptor: number): PartToPartOutcome {
  if (!geometryFirst(a, b)) return reverseOutcome(partToPartExact(b, a, descriptor));
  const first = partToPartDirected(a, b, descriptor);
  if (first.score >= 98 || first.relation === 'scaled' || first.off === undefined || first.off >= OFF_REPORTED_MAX) return first;
  // Near the limits one way: the other way's alignment is judged too, and the pair is the same
  // part when either holds ("after the best alignment") — also when the first found it a mirror
  // image (a part with a plane of symmetry is both; the same part says more).
  const other = partToPartDirected(b, a, descriptor, 'same only');
  return other.score >= 98 ? reverseOutcome(other) : first;
}

/**
 * Whether `a` comes first in the order partToPartExact computes a pair in: by descriptor, then
 * area and sample count, then the samples themselves, compared value by value. Models equal in
 * all of these are one geometry, and either order gives one result.
 */
export function geometryFirst(a: PreparedPart, b: PreparedPart): boolean {
  const order = (x: ArrayLike<number>, y: ArrayLike<number>) => {
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return x.length - y.length;
  };
  const sa = a.analysis.samples,
    sb = b.analysis.samples;
  return (
    (order(a.descriptor, b.descriptor) ||
      order([a.analysis.moments.area, sa.count], [b.analysis.moments.area, sb.count]) ||
      order(sa.points, sb.points) ||
      order(sa.normals, sb.normals)) <= 0
  );
}

/** The outcome of (a, b) seen from b: the transform inverted, a scale turned over. */
export function reverseOutcome(o: PartToPartOutcome): PartToPartOutcome {
  const out: PartToPartOutcome = { score: o.score };
  if (o.relation) out.relation = o.relation;
  if (o.scale !== undefined) out.scale = 1 / o.scale;
  if (o.transform) out.transform = invertAffine(o.transform);
  if (o.off !== undefined) out.off = o.off;
  return out;
}

/** Inverse of a column-major 4×4 affine transform (rotation, mirror, scale and translation). */
function invertAffine(m: readonly number[]): number[] {
  const [a, b, c, d, e, f, g, h, i] = [m[0]!, m[4]!, m[8]!, m[1]!, m[5]!, m[9]!, m[2]!, m[6]!, m[10]!];
  const A = e * i - f * h,
    B = f * g - d * i,
    C = d * h - e * g;
  const det = a * A + b * B + c * C;
  // Rows of the 3×3 inverse.
  const r = [A, c * h - b * i, b * f - c * e, B, a * i - c * g, c * d - a * f, C, b * g - a * h, a * e - b * d].map((x) => x / det);
  const t = [m[12]!, m[13]!, m[14]!];
  const ti = [0, 1, 2].map((row) => -(r[row * 3]! * t[0]! + r[row * 3 + 1]! * t[1]! + r[row * 3 + 2]! * t[2]!));
  return [r[0]!, r[3]!, r[6]!, 0, r[1]!, r[4]!, r[7]!, 0, r[2]!, r[5]!, r[8]!, 0, ti[0]!, ti[1]!, ti[2]!, 1];
}

/** The outcome computed from a's side (a aligned onto b); with `'same only'`, only whether they are the same part. */
export function partToPartDirected(a: PreparedPart, b: PreparedPart, descriptor: number, only?: 'same only'): PartToPartOutcome {
  const below = Math.min(NOT_SAME_MAX, descriptor);
  const plausible = plausibleRelations(
    { extents: a.analysis.extents, area: a.analysis.moments.area },
    { extents: b.analysis.extents, area: b.analysis.moments.area },
    descriptor,
  );
  if (plausible.same) {
    const same = checkDuplicate(a, b);
    const off = Math.max(same.offAB, same.offBA);
    if (same.agrees) return { score: agreementScore(same), transform: same.alignment.transform, off };
    if (only) return { score: below, off };
    const mirror = checkDuplicate(mirrored(a), b);
    if (mirror.agrees) return { score: below, relation: 'mirrored', transform: mul4(mirror.alignment.transform, mirrorX), off };
    return { score: below, off };
  }
  if (plausible.scale !== undefined) {
    // The RMS radius gives the factor exactly for a true scaled copy; extents only roughly.
    const byRadius = b.analysis.rmsRadius / Math.max(a.analysis.rmsRadius, 1e-12);
    const f = Math.abs(byRadius / plausible.scale - 1) < 0.03 ? byRadius : plausible.scale;
    const copy = checkDuplicate(scaled(a, f), b);
    if (copy.agrees)
      return {
        score: below,
        relation: 'scaled',
        scale: f,
        transform: mul4(copy.alignment.transform, scaling4(f)),
        off: Math.max(copy.offAB, copy.offBA),
      };
  }
  return { score: below };
}
