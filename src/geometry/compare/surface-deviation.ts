// How far one surface lies from another once placed: for every vertex of `from` (moved by a
// placement), the signed distance to the closest point of `to` — positive outside `to` (along the
// normal of the triangle it lands on), negative inside — weighted by the area the vertex stands
// for (a third of each triangle around it), so a finely meshed fillet does not outvote a flat face.
// The deviation report (service/reports) reads it; the compare view shows the unsigned distances.
import { BufferAttribute, BufferGeometry, Matrix4, Triangle, Vector3 } from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import type { Mesh } from '../mesh/mesh';

export interface SurfaceDeviation {
  /** Per vertex of `from`, in the meshes' units. */
  signed: Float32Array;
  /** Per vertex: the area it stands for (sums to the surface area of `from`). */
  weights: Float32Array;
}

function geometryOf(mesh: Mesh): BufferGeometry {
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(mesh.positions, 3));
  g.setIndex(new BufferAttribute(mesh.indices, 1));
  return g;
}

/** A BVH of `to`, to measure several meshes against it. */
export function surfaceIndex(to: Mesh): MeshBVH {
  return new MeshBVH(geometryOf(to));
}

export function vertexAreas(mesh: Mesh): Float32Array {
  const { positions: P, indices: I } = mesh;
  const out = new Float32Array(P.length / 3);
  const a = new Vector3(),
    b = new Vector3(),
    c = new Vector3(),
    t = new Triangle();
  for (let i = 0; i < I.length; i += 3) {
    a.fromArray(P, I[i]! * 3);
    b.fromArray(P, I[i + 1]! * 3);
    c.fromArray(P, I[i + 2]! * 3);
    const third = t.set(a, b, c).getArea() / 3;
    out[I[i]!]! += third;
    out[I[i + 1]!]! += third;
    out[I[i + 2]!]! += third;
  }
  return out;
}

/** Signed distances of `from`'s vertices, placed by `placement` (column-major 4×4), to the surface of `to`. */
export function surfaceDeviation(from: Mesh, placement: readonly number[], to: Mesh | MeshBVH): SurfaceDeviation {
  const bvh = to instanceof MeshBVH ? to : surfaceIndex(to);
  const target = bvh.geometry;
  const tp = target.getAttribute('position');
  const ti = target.getIndex()!;
  const m = new Matrix4().fromArray(placement as number[]);
  const P = from.positions;
  const signed = new Float32Array(P.length / 3);
  const p = new Vector3(),
    n = new Vector3(),
    a = new Vector3(),
    b = new Vector3(),
    c = new Vector3();
  const hit = { point: new Vector3(), distance: 0, faceIndex: 0 };
  for (let i = 0; i < signed.length; i++) {
    p.fromArray(P, i * 3).applyMatrix4(m);
    const found = bvh.closestPointToPoint(p, hit);
    if (!found) {
      signed[i] = Number.POSITIVE_INFINITY;
      continue;
    }
    const f = found.faceIndex * 3;
    a.fromBufferAttribute(tp, ti.getX(f));
    b.fromBufferAttribute(tp, ti.getX(f + 1));
    c.fromBufferAttribute(tp, ti.getX(f + 2));
    new Triangle(a, b, c).getNormal(n);
    signed[i] = n.dot(p.sub(found.point)) < 0 ? -found.distance : found.distance;
  }
  return { signed, weights: vertexAreas(from) };
}

export interface DeviationStats {
  /** Largest distance either way (unsigned). */
  max: number;
  /** Root mean square of the distances, area-weighted. */
  rms: number;
  /** Share of the surface within ±tolerance, 0..1. */
  within: number;
  /** Signed distances: `bins` equal bins over ±`range`, the area in each as a share; beyond the range counts in the end bins. */
  histogram: { range: number; shares: number[] };
}

export function deviationStats({ signed, weights }: SurfaceDeviation, tolerance: number, range: number, bins = 24): DeviationStats {
  let max = 0,
    sq = 0,
    total = 0,
    inside = 0;
  const counts = new Array<number>(bins).fill(0);
  for (let i = 0; i < signed.length; i++) {
    const d = signed[i]!,
      w = weights[i]!;
    if (!Number.isFinite(d)) continue;
    const u = Math.abs(d);
    if (u > max) max = u;
    sq += w * d * d;
    total += w;
    if (u <= tolerance) inside += w;
    const bin = Math.min(bins - 1, Math.max(0, Math.floor(((d + range) / (2 * range)) * bins)));
    counts[bin]! += w;
  }
  return {
    max,
    rms: total > 0 ? Math.sqrt(sq / total) : 0,
    within: total > 0 ? inside / total : 0,
    histogram: { range, shares: counts.map((c) => (total > 0 ? c / total : 0)) },
  };
}
