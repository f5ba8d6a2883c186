// The one owner of transforms: the column-major 4×4 (`Mat4`) that files, the API and three.js use,
// and the row-major rotation + translation (`Rigid`) that registration works in, with the
// conversions between them. Pure arithmetic; kept apart from the mesh code so that the app can
// import it (assembly rows place parts with it) without pulling in anything else.

import type { Vec3 } from './mesh';

/**
 * A 4×4 affine transform stored column-major (the layout of glTF, three.js `Matrix4.elements`
 * and the API's `transform: number[16]`): element (row r, column c) is at `m[c * 4 + r]`,
 * so the translation is `m[12], m[13], m[14]`.
 */
export type Mat4 = readonly number[] | Float64Array | Float32Array;

export function identity(): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
}

export function translation(x: number, y: number, z: number): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
}

export function scaling(x: number, y = x, z = x): number[] {
  return [x, 0, 0, 0, 0, y, 0, 0, 0, 0, z, 0, 0, 0, 0, 1];
}

/** Rotation about the z axis by `degrees`, counter-clockwise seen from +z. */
export function rotationZ(degrees: number): number[] {
  const r = (degrees * Math.PI) / 180;
  const c = Math.cos(r);
  const s = Math.sin(r);
  return [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
}

/** `a × b`: applying the result equals applying `b` first, then `a`. */
export function multiply(a: Mat4, b: Mat4): number[] {
  const out = new Array<number>(16);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += (a[k * 4 + r] ?? 0) * (b[c * 4 + k] ?? 0);
      out[c * 4 + r] = sum;
    }
  }
  return out;
}

export function isIdentity(m: Mat4, eps = 1e-12): boolean {
  const id = identity();
  for (let i = 0; i < 16; i++) if (Math.abs((m[i] ?? NaN) - (id[i] ?? 0)) > eps) return false;
  return true;
}

/** Transforms a point (w = 1); perspective rows are honoured. */
export function transformPoint(m: Mat4, p: readonly [number, number, number]): Vec3 {
  const [x, y, z] = p;
  const e = (i: number) => m[i] ?? 0;
  const w = e(3) * x + e(7) * y + e(11) * z + e(15) || 1;
  return [
    (e(0) * x + e(4) * y + e(8) * z + e(12)) / w,
    (e(1) * x + e(5) * y + e(9) * z + e(13)) / w,
    (e(2) * x + e(6) * y + e(10) * z + e(14)) / w,
  ];
}

/** Determinant of the upper-left 3×3; negative means the transform mirrors. */
export function determinant3(m: Mat4): number {
  const e = (i: number) => m[i] ?? 0;
  return e(0) * (e(5) * e(10) - e(9) * e(6)) - e(4) * (e(1) * e(10) - e(9) * e(2)) + e(8) * (e(1) * e(6) - e(5) * e(2));
}

/** Inverse of a rigid motion given as a column-major 4×4 (see {@link invertRigid}). */
export function invertRigidMat4(m: Mat4): number[] {
  return rigidToMat4(invertRigid(mat4ToRigid(m)));
}

/** A proper rigid motion x ↦ R x + t (R row-major 3×3). */
export interface Rigid {
  R: number[];
  t: Vec3;
}

export const IDENTITY_RIGID: Rigid = { R: [1, 0, 0, 0, 1, 0, 0, 0, 1], t: [0, 0, 0] };

/** The column-major 4×4 of a rigid motion. */
export function rigidToMat4(m: Rigid): number[] {
  const R = m.R;
  return [R[0]!, R[3]!, R[6]!, 0, R[1]!, R[4]!, R[7]!, 0, R[2]!, R[5]!, R[8]!, 0, m.t[0], m.t[1], m.t[2], 1];
}

/** The rotation and translation of a column-major 4×4 (perspective row ignored; assumed rigid). */
export function mat4ToRigid(m: ArrayLike<number>): Rigid {
  const e = (i: number) => m[i] ?? 0;
  return { R: [e(0), e(4), e(8), e(1), e(5), e(9), e(2), e(6), e(10)], t: [e(12), e(13), e(14)] };
}

/** a ∘ b (apply b first). */
export function composeRigid(a: Rigid, b: Rigid): Rigid {
  const R = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) R[r * 3 + c]! += a.R[r * 3 + k]! * b.R[k * 3 + c]!;
  return { R, t: applyRigid(a, b.t) };
}

export function applyRigid(m: Rigid, p: Vec3): Vec3 {
  const R = m.R;
  return [
    R[0]! * p[0] + R[1]! * p[1] + R[2]! * p[2] + m.t[0],
    R[3]! * p[0] + R[4]! * p[1] + R[5]! * p[2] + m.t[1],
    R[6]! * p[0] + R[7]! * p[1] + R[8]! * p[2] + m.t[2],
  ];
}

/** The inverse motion: Rᵀ, −Rᵀt (a rotation's inverse is its transpose). */
export function invertRigid(m: Rigid): Rigid {
  const R = m.R;
  const Rt = [R[0]!, R[3]!, R[6]!, R[1]!, R[4]!, R[7]!, R[2]!, R[5]!, R[8]!];
  const t = m.t;
  return {
    R: Rt,
    t: [
      -(Rt[0]! * t[0] + Rt[1]! * t[1] + Rt[2]! * t[2]),
      -(Rt[3]! * t[0] + Rt[4]! * t[1] + Rt[5]! * t[2]),
      -(Rt[6]! * t[0] + Rt[7]! * t[1] + Rt[8]! * t[2]),
    ],
  };
}

/** Rotation by `angle` about a unit axis (Rodrigues), row-major. */
export function axisAngle(axis: Vec3, angle: number): number[] {
  const [x, y, z] = axis;
  const c = Math.cos(angle),
    s = Math.sin(angle),
    C = 1 - c;
  return [
    c + x * x * C,
    x * y * C - z * s,
    x * z * C + y * s,
    y * x * C + z * s,
    c + y * y * C,
    y * z * C - x * s,
    z * x * C - y * s,
    z * y * C + x * s,
    c + z * z * C,
  ];
}
