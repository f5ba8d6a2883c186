import { BoxGeometry, PlaneGeometry, SphereGeometry, TorusGeometry } from 'three';
import { mergeGeometries } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { describe, expect, it } from 'vitest';
import { closedBodies } from './closed-bodies';

const triangles = (g: { getIndex(): { count: number } | null; getAttribute(n: 'position'): { count: number } }) =>
  (g.getIndex()?.count ?? g.getAttribute('position').count) / 3;

describe('closedBodies', () => {
  it('keeps a closed body whose faces do not share vertices (a box as exporters write it)', () => {
    const box = new BoxGeometry(1, 2, 3);
    expect(closedBodies(box)).toBe(box);
    const torus = new TorusGeometry(2, 0.5, 12, 24);
    expect(closedBodies(torus)).toBe(torus);
  });

  it('finds nothing to fill in an open surface: a sheet, a shell without its base', () => {
    expect(closedBodies(new PlaneGeometry(4, 4, 3, 3))).toBeNull();
    expect(closedBodies(new SphereGeometry(1, 16, 8, 0, Math.PI * 2, 0, Math.PI / 2))).toBeNull();
  });

  it('fills only the closed bodies of a model that has open ones too', () => {
    const box = new BoxGeometry(1, 1, 1).toNonIndexed();
    const sheet = new PlaneGeometry(4, 4, 2, 2).translate(0, 0, 3).toNonIndexed();
    const both = mergeGeometries([box, sheet])!;
    const closed = closedBodies(both);
    expect(closed).not.toBeNull();
    expect(triangles(closed!)).toBe(12);
  });

  it('welds corners that quantized primitives put a hair apart (a viewer file)', () => {
    const box = new BoxGeometry(100, 60, 8).toNonIndexed();
    const position = box.getAttribute('position');
    // Every other face (two triangles, six corners) moved by 1.5e-5 of the size, as 16-bit quantization may.
    for (let v = 0; v < position.count; v++) if (Math.floor(v / 6) % 2 === 1) position.setX(v, position.getX(v) + 0.0015);
    expect(closedBodies(box)).toBe(box);
  });
});
