// The two dimensions a designer measures across a part at each surface sample: how thick the
// material is behind it (a wall, rib, flange or washer thickness, a shaft's diameter) and how wide
// the space is in front of it (a hole's diameter, a slot's or gap's width). Both are distances
// along the sample's normal to the next surface, so they do not depend on how two models are
// aligned — which is why the duplicate rule compares them: an alignment can split a thickness
// change between a wall's two faces so that each half fits the distance tolerance, but the wall
// is still that much thicker. Rays by three-mesh-bvh. Pure.
import { BufferAttribute, BufferGeometry, DoubleSide, Ray, Vector3 } from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { MM_PER_UNIT, type Mesh } from '../../mesh/mesh';
import type { SurfaceSamples } from './sampling';

/** A measure counts only where the ray meets the next face within this of square. */
const COS_EXIT = Math.cos((25 * Math.PI) / 180);

export interface SampleThickness {
  /**
   * Distance (mm) from each sample against its normal to the next surface: the material behind it;
   * 0 where the ray leaves the mesh or meets a face at a slant; NaN where the sample's facet is
   * bent too far to measure from (MEASURE_BEND).
   */
  inward: Float32Array;
  /** Distance (mm) along its normal to the next surface: the space in front of it; 0 where nothing is in front; NaN as above. */
  outward: Float32Array;
  /**
   * How far each measure may still be off the designed dimension because of tessellation (mm),
   * once corrected for it (see sampleThickness). Absent: none known.
   */
  inwardError?: Float32Array;
  outwardError?: Float32Array;
}

/** Facets this near parallel (2°) face each other across a measure. */
const COS_PARALLEL = Math.cos((2 * Math.PI) / 180);

/**
 * What is left of a measure's tessellation error once corrected, as a share of the two parallel
 * facets' chord errors: their estimate (chord.ts: width × bend / 8) is near but not exact, and two
 * curves' facets need not line up along the ray. Half, set once and checked on the dev split
 * (its pairs of one part stay under the rule's limits), not tuned.
 */
const RESIDUAL = 0.5;

/**
 * Between facets of concentric curves (a hole's or a shaft's diameter, a tube's or a washer's
 * wall: the ray leaves a facet towards the centre of its own curve and meets a parallel facet of a
 * curve about that centre) the facets line up along the ray — parallel facets of two concentric
 * polygons stand at one angle — and the correction is exact at any place on the facet; only the
 * estimate's own error is left: width × bend / 8 is within 1.3 % of the sagitta of an 8-sided
 * circle. A tenth, set on that reasoning, checked on dev.
 */
const CONCENTRIC_RESIDUAL = 0.1;
/** Two curves' centres within this share of the first's radius are one centre. */
const SAME_CURVE = 0.25;

/**
 * Samples on facets bent more than this from their neighbours (a coarse mesh's fillet, a curve of
 * a few facets) are measured only across to a parallel facet of a curve: a facet's normal there is
 * off the surface's by up to half its bend, so a ray sent along it crosses the part elsewhere than
 * the designer's dimension — except between a coarse hole's, a shaft's or a pipe wall's parallel
 * facets, where the correction below holds for any bend.
 */
export const MEASURE_BEND = (30 * Math.PI) / 180;

/**
 * Thickness and clearance at each of `samples` (in mm, on `mesh` — the surface they were drawn
 * from, in its own units). A ray starts a hair off the sample's own triangle so that it does not
 * hit it; the first surface either side of it answers. With the mesh's chord errors
 * (chord.ts), each measure is corrected for tessellation: a facet inscribed in a curve lies off it
 * by its chord error towards the curve's centre, so a 16-segment hole of 6 mm measures 5.885 mm
 * across its facets, its 32-segment twin 5.97 mm, and both 6.0 mm corrected.
 */
export function sampleThickness(
  mesh: Mesh,
  samples: SurfaceSamples,
  tessellation?: { chord: ArrayLike<number>; side: ArrayLike<number>; bend?: ArrayLike<number> },
): SampleThickness {
  const n = samples.count;
  const inward = new Float32Array(n);
  const outward = new Float32Array(n);
  const inwardError = new Float32Array(n);
  const outwardError = new Float32Array(n);
  const out = tessellation && samples.triangles ? { inward, outward, inwardError, outwardError } : { inward, outward };
  if (!n || mesh.indices.length < 3) return out;
  const unit = MM_PER_UNIT[mesh.units ?? 'unknown'];
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(Float32Array.from(mesh.positions), 3));
  geometry.setIndex(new BufferAttribute(Uint32Array.from(mesh.indices), 1));
  // Indirect: the geometry's triangles keep their order, so a hit's faceIndex is the mesh's.
  const bvh = new MeshBVH(geometry, { indirect: true });
  geometry.computeBoundingBox();
  const size = geometry.boundingBox!.getSize(new Vector3()).length();
  // Float32 positions put a sample up to ~1e-7 of the size off its plane; start well past that.
  const near = 1e-5 * size;
  const ray = new Ray();
  const P = samples.points,
    N = samples.normals;
  for (let i = 0; i < n; i++) {
    // The sample's facet's bend: beyond MEASURE_BEND, nothing is measured from it but across to a
    // parallel facet of a curve (below).
    const ownBend = (samples.triangles && tessellation?.bend?.[samples.triangles[i]!]) ?? 0;
    for (const sign of [-1, 1]) {
      ray.origin.set(P[i * 3]! / unit, P[i * 3 + 1]! / unit, P[i * 3 + 2]! / unit);
      ray.direction.set(sign * N[i * 3]!, sign * N[i * 3 + 1]!, sign * N[i * 3 + 2]!);
      const hit = bvh.raycastFirst(ray, DoubleSide, near, 2 * size);
      // Only across to a face that stands square to the ray (within 25°, COS_EXIT): a wall's other
      // face, a bore's far side. A ray leaving at a slant (across a cam, a sphere) has a length
      // that swings with the slightest turn of a facet's normal; no designer measures there.
      const square = hit?.face && Math.abs(hit.face.normal.dot(ray.direction)) >= COS_EXIT;
      if (!square) {
        // From a facet bent too far nothing is measured either way: not a change.
        if (ownBend > MEASURE_BEND) (sign < 0 ? inward : outward)[i] = NaN;
        continue;
      }
      let distance = hit.distance;
      if (tessellation && samples.triangles) {
        // Each end's facet lies off the curve towards its centre. The ray's start moves forward
        // (the measure reads short) where that centre lies ahead along the ray; its end moves
        // forward (reads long) where the far curve's centre lies beyond it.
        const own = samples.triangles[i]!,
          far = hit.faceIndex!;
        const ownChord = tessellation.chord[own] ?? 0,
          farChord = tessellation.chord[far] ?? 0;
        const facing = hit.face!.normal.dot(ray.direction);
        const ownSide = tessellation.side[own] ?? 0,
          farSide = tessellation.side[far] ?? 0;
        // Only between parallel strips of two curves (a hole's, a shaft's, a pipe wall's opposite
        // facets) is the offset the two chord errors. From a fillet's facet to a flat face, the
        // fine mesh's rays leave the fillet at other angles and measure other lengths; a ray
        // meeting a turned facet ends anywhere along it: there all of both stays allowed.
        const corrected = ownSide && farSide && Math.abs(facing) >= COS_PARALLEL;
        // Not measured, as opposed to nothing there (0): NaN, which a neighbour's check of its
        // own measure passes over (duplicate-rule.ts) instead of reading a change.
        if (!corrected && ownBend > MEASURE_BEND) {
          (sign < 0 ? inward : outward)[i] = NaN;
          continue;
        }
        if (corrected) distance += sign * ownSide * ownChord - (facing > 0 ? 1 : -1) * farSide * farChord;
        // Between two facets of concentric curves (a hole's or a shaft's diameter, a tube's or a
        // washer's wall, measured from either side): the far facet's curve has its centre where
        // the own curve has, along the ray — ahead of the start when the ray heads for its own
        // centre (towards the normal on a concave facet, against it on a convex one), behind it
        // when it leaves it (from a bore out to the rim). Each curve's radius from its facet: chord
        // error c and bend θ make a facet w = 8c/θ wide, a side of a polygon inscribed in a circle
        // of radius w / (2 sin(θ/2)).
        let residual = corrected ? RESIDUAL : 1;
        const farBend = tessellation.bend?.[far] ?? 0;
        if (corrected && ownBend > 0 && farBend > 0) {
          const radius = (c: number, b: number) => (8 * c) / b / (2 * Math.sin(b / 2));
          const ownRadius = radius(ownChord, ownBend);
          const ownCentre = sign * ownSide * ownRadius;
          const farCentre = distance + farSide * radius(farChord, farBend) * facing;
          if (Math.abs(farCentre - ownCentre) <= SAME_CURVE * ownRadius) residual = CONCENTRIC_RESIDUAL;
        }
        (sign < 0 ? inwardError : outwardError)[i] = residual * (ownChord + farChord) * unit;
      }
      (sign < 0 ? inward : outward)[i] = distance * unit;
    }
  }
  geometry.dispose();
  return out;
}
