import { describe, expect, it } from 'vitest';
import {
  applyRigid,
  axisAngle,
  composeRigid,
  determinant3,
  identity,
  invertRigid,
  invertRigidMat4,
  isIdentity,
  mat4ToRigid,
  multiply,
  rigidToMat4,
  rotationZ,
  transformPoint,
  translation,
  type Rigid,
} from './transform';

const motion: Rigid = { R: axisAngle([0, 0.6, 0.8], 1.1), t: [4, -2, 7] };

describe('Mat4 (column-major)', () => {
  it('keeps the translation in elements 12..14 and composes right-to-left', () => {
    const t = translation(1, 2, 3);
    expect([t[12], t[13], t[14]]).toEqual([1, 2, 3]);
    expect(transformPoint(t, [1, 1, 1])).toEqual([2, 3, 4]);
    // rotate first, then translate
    const m = multiply(translation(10, 0, 0), rotationZ(90));
    const p = transformPoint(m, [1, 0, 0]);
    expect(p[0]).toBeCloseTo(10);
    expect(p[1]).toBeCloseTo(1);
    expect(isIdentity(multiply(identity(), identity()))).toBe(true);
    expect(determinant3(rotationZ(30))).toBeCloseTo(1, 12);
  });
});

describe('rigid motions', () => {
  it('convert between Rigid and Mat4 without loss, and move points alike', () => {
    const m = rigidToMat4(motion);
    expect(mat4ToRigid(m)).toEqual(motion);
    const p = transformPoint(m, [1, 2, 3]);
    applyRigid(motion, [1, 2, 3]).forEach((v, k) => expect(v).toBeCloseTo(p[k]!, 12));
  });

  it('compose with their inverse to the identity, in either order and either form', () => {
    for (const both of [composeRigid(motion, invertRigid(motion)), composeRigid(invertRigid(motion), motion)]) {
      expect(isIdentity(rigidToMat4(both), 1e-12)).toBe(true);
    }
    const m = multiply(translation(5, 6, 7), rotationZ(40));
    expect(isIdentity(multiply(m, invertRigidMat4(m)), 1e-12)).toBe(true);
    expect(isIdentity(multiply(invertRigidMat4(m), m), 1e-12)).toBe(true);
  });
});
