import { describe, expect, it } from 'vitest';
import { BoxGeometry, Matrix4 } from 'three';
import {
  colorsFor,
  deviationColor,
  deviationLegend,
  farColor,
  nearColor,
  scaleMaxFor,
  summarize,
  vertexDistances,
  withinColor,
} from './deviation';

describe('deviation colours', () => {
  it('is green within tolerance, yellow just beyond, red at and past the top of the scale', () => {
    expect(deviationColor(0, 0.5, 2.5)).toEqual(withinColor);
    expect(deviationColor(-0.5, 0.5, 2.5)).toEqual(withinColor);
    expect(deviationColor(0.5000001, 0.5, 2.5).map((c) => Math.round(c * 100))).toEqual(nearColor.map((c) => Math.round(c * 100)));
    expect(deviationColor(2.5, 0.5, 2.5)).toEqual(farColor);
    expect(deviationColor(40, 0.5, 2.5)).toEqual(farColor);
    expect(deviationColor(Number.POSITIVE_INFINITY, 0.5, 2.5)).toEqual(farColor);
    const mid = deviationColor(1.5, 0.5, 2.5);
    expect(mid[0]).toBeCloseTo((nearColor[0] + farColor[0]) / 2, 5);
    expect(mid[1]).toBeCloseTo((nearColor[1] + farColor[1]) / 2, 5);
  });

  it('scales to a few tolerances, or to the largest distance when that is smaller', () => {
    expect(scaleMaxFor(0.5, 10)).toBe(2.5);
    expect(scaleMaxFor(0.5, 1)).toBe(1);
    expect(scaleMaxFor(0.5, 0.1)).toBeGreaterThan(0.5);
    expect(scaleMaxFor(0, 3)).toBe(3);
  });

  it('labels the legend with the lengths the page writes', () => {
    const legend = deviationLegend(0.5, 2.5, (v) => `${v} mm`);
    expect(legend.map((s) => s.label)).toEqual(['0 mm', '0.5 mm (tolerance)', '1.5 mm', '≥ 2.5 mm']);
    expect(legend.map((s) => s.at)).toEqual([0, 0.2, 0.6, 1]);
  });

  it('colours per vertex', () => {
    const colors = colorsFor(new Float32Array([0, 10]), 1, 5);
    expect(Array.from(colors.slice(0, 3))).toEqual(withinColor.map((c) => Math.fround(c)));
    expect(Array.from(colors.slice(3))).toEqual(farColor.map((c) => Math.fround(c)));
  });
});

describe('distances by three-mesh-bvh', () => {
  it('is zero for a surface on itself and the offset for a moved copy', () => {
    const cube = new BoxGeometry(10, 10, 10);
    const same = vertexDistances(cube, new Matrix4(), cube);
    expect(Math.max(...same)).toBeLessThan(1e-6);
    // Moved 2 along X: the corners at x = +5 end at x = 7, 2 away from the face x = 5.
    const moved = vertexDistances(cube, new Matrix4().makeTranslation(2, 0, 0), cube);
    const s = summarize(moved);
    expect(s.max).toBeCloseTo(2, 5);
    expect(s.within(0.001)).toBeGreaterThan(0);
    expect(s.within(0.001)).toBeLessThan(1);
  });
});
