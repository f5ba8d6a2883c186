// Hand-sketch-like test drawings of a part, for the sketch benchmark and tests: the part's outline
// and inner edges as seen from a direction in perspective (foreshortened, as a sketcher sees it),
// drawn as dark lines on white with the faults of a hand drawing — lines that wobble, gaps where
// the pen lifted, strokes that overshoot a corner, inner lines left out, proportions a little off.
import type { Mesh } from '../mesh/mesh';
import { syntheticPhoto } from './synthetic-photo';

export interface SketchFaults {
  /** Largest sideways wander of a line, as a share of the drawing's size. */
  wobble: number;
  /** Pen lifts: gaps in the lines, and each gap's length as a share of the size. */
  gaps: number;
  gapLength: number;
  /** Strokes carried on past where they should end, each about 4 % of the size long. */
  overshoots: number;
  /** Share of the inner lines left out (0: all drawn, 1: outline only). */
  missingInner: number;
  /** Width over height as drawn against as seen (1: true proportions). */
  squash: number;
  /** Pen width in pixels. */
  pen: number;
}

/** Faults of a quick hand sketch, drawn at random from `rand`. */
export function randomFaults(rand: () => number): SketchFaults {
  return {
    wobble: 0.004 + rand() * 0.01,
    gaps: Math.floor(rand() * 5),
    gapLength: 0.01 + rand() * 0.02,
    overshoots: Math.floor(rand() * 5),
    missingInner: rand() < 0.3 ? 1 : rand() * 0.6,
    squash: 0.88 + rand() * 0.24,
    pen: 1 + Math.floor(rand() * 3),
  };
}

/** A drawing of `mesh` seen through `rotation` (world → camera) from `distance` bounding radii: grey pixels, 255 paper, 0 ink. */
export function syntheticSketch(
  mesh: Mesh,
  o: { size: number; rotation: readonly number[]; distance: number; faults: SketchFaults; rand: () => number },
): { width: number; height: number; grey: Uint8Array } {
  const { size, faults: f, rand } = o;
  // A flat-shaded render under a strong side light: faces of other orientations differ in tone,
  // so a step of tone inside the part is one of its edges.
  const photo = syntheticPhoto(mesh, {
    width: size,
    height: size,
    rotation: o.rotation,
    distance: o.distance,
    color: [255, 255, 255],
    background: [0, 0, 0],
    size: 0.8,
    lighting: { ambient: 0.15, headlight: 0.35, key: 0.5, keyDirection: [-0.55, 0.6, 0.58], specular: 0, shininess: 1 },
  });
  const n = size * size;
  const lum = new Float32Array(n);
  for (let i = 0; i < n; i++) lum[i] = (photo.rgb[i * 3]! + photo.rgb[i * 3 + 1]! + photo.rgb[i * 3 + 2]!) / 3;
  const inside = (x: number, y: number) => x >= 0 && y >= 0 && x < size && y < size && lum[y * size + x]! > 8;
  // Line pixels: the outline (inside with a neighbour outside) and inner tone steps.
  const outline = new Uint8Array(n),
    inner = new Uint8Array(n);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (!inside(x, y)) continue;
      const i = y * size + x;
      if (!inside(x - 1, y) || !inside(x + 1, y) || !inside(x, y - 1) || !inside(x, y + 1)) outline[i] = 1;
      else if (Math.abs(lum[i]! - lum[i + 1]!) > 20 || Math.abs(lum[i]! - lum[i + size]!) > 20) inner[i] = 1;
    }
  }
  // Inner lines left out: whole regions of them (a sketcher skips some edges, not every other pixel).
  const keepInner = smoothField(rand, 2);
  // Wobble: a smooth displacement field, a few pixels at most; squash about the centre.
  const dx = smoothField(rand, 3),
    dy = smoothField(rand, 3);
  const amp = f.wobble * size;
  const grey = new Uint8Array(n).fill(255);
  const c = size / 2;
  const plot = (x: number, y: number) => {
    const r = f.pen / 2;
    for (let v = Math.floor(y - r); v <= Math.ceil(y + r); v++)
      for (let u = Math.floor(x - r); u <= Math.ceil(x + r); u++)
        if (u >= 0 && v >= 0 && u < size && v < size && (u - x) ** 2 + (v - y) ** 2 <= r * r + 0.25) grey[v * size + u] = 0;
  };
  const place = (x: number, y: number): [number, number] => {
    const s = x / size,
      t = y / size;
    return [c + (x - c) * Math.sqrt(f.squash) + amp * dx(s, t), c + (y - c) / Math.sqrt(f.squash) + amp * dy(s, t)];
  };
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = y * size + x;
      if (!outline[i] && !(inner[i] && keepInner(x / size, y / size) > 2 * f.missingInner - 1)) continue;
      plot(...place(x, y));
    }
  }
  // Pen lifts: discs of paper over the lines.
  for (let g = 0; g < f.gaps; g++) {
    const [gx, gy] = place(rand() * size, rand() * size);
    const r = (f.gapLength * size) / 2;
    for (let v = Math.floor(gy - r); v <= gy + r; v++)
      for (let u = Math.floor(gx - r); u <= gx + r; u++)
        if (u >= 0 && v >= 0 && u < size && v < size && (u - gx) ** 2 + (v - gy) ** 2 <= r * r) grey[v * size + u] = 255;
  }
  // Overshoots: from a point of the outline, a short stroke outwards.
  const rim: number[] = [];
  for (let i = 0; i < n; i++) if (outline[i]) rim.push(i);
  for (let k = 0; k < f.overshoots && rim.length; k++) {
    const i = rim[Math.floor(rand() * rim.length)]!;
    const [x0, y0] = place(i % size, Math.floor(i / size));
    const a = Math.atan2(y0 - c, x0 - c) + (rand() - 0.5);
    const len = 0.04 * size;
    for (let s = 0; s <= len; s += 0.5) plot(x0 + Math.cos(a) * s, y0 + Math.sin(a) * s);
  }
  return { width: size, height: size, grey };
}

/** A smooth random field over the unit square, values about −1..1: a few random waves. */
function smoothField(rand: () => number, waves: number): (s: number, t: number) => number {
  const w = Array.from({ length: waves }, () => ({
    fx: (rand() - 0.5) * 8,
    fy: (rand() - 0.5) * 8,
    phase: rand() * 2 * Math.PI,
  }));
  return (s, t) => w.reduce((sum, k) => sum + Math.sin(k.fx * s + k.fy * t + k.phase), 0) / Math.sqrt(waves);
}
