// Photo-like test images of a part, for the image benchmark and the service tests: a shaded
// render in perspective from a chosen direction, in a chosen colour, on a plain or graded
// background, with optional sensor noise. Blur and encoding are left to an image library.
import type { Mesh, Vec3 } from '../mesh/mesh';
import { renderView, type Lighting } from '../output/render/render-view';
import { boundingSphere } from '../output/render/view';

export interface PhotoOptions {
  width: number;
  height: number;
  /** World → camera rotation (column-major 4×4); the camera looks down its −z. */
  rotation: readonly number[];
  /** Camera distance from the part's centre in bounding radii (perspective); Infinity = orthographic. */
  distance: number;
  color: [number, number, number];
  background: [number, number, number];
  /** Background brightness change across the image, levels per image width / height. */
  gradient?: [number, number];
  /** Longer side of the object as a share of the shorter image side. */
  size: number;
  /** Object centre offset from the image centre, as a share of the image size. */
  offset?: [number, number];
  lighting?: Partial<Lighting>;
  shading?: 'flat' | 'smooth';
  /** Standard deviation of Gaussian pixel noise, in levels. */
  noise?: number;
  /** For the noise. */
  rand?: () => number;
}

/** RGB pixels, interleaved, row-major. */
export interface Photo {
  width: number;
  height: number;
  rgb: Uint8Array;
}

export function syntheticPhoto(mesh: Mesh, o: PhotoOptions): Photo {
  const sphere = boundingSphere(mesh);
  const R = o.rotation;
  const r = sphere.radius || 1;
  const D = o.distance * r;
  // Perspective by warping the vertices into camera space: x, y divided by the distance to the
  // eye, z kept (its order is all the depth test needs). Lines stay lines, so triangles stay
  // triangles and the orthographic rasterizer draws an exact perspective image.
  const p = mesh.positions;
  const positions = new Float32Array(p.length);
  const [cx, cy, cz] = sphere.center;
  for (let i = 0; i < p.length; i += 3) {
    const x = p[i]! - cx,
      y = p[i + 1]! - cy,
      z = p[i + 2]! - cz;
    const vx = R[0]! * x + R[4]! * y + R[8]! * z;
    const vy = R[1]! * x + R[5]! * y + R[9]! * z;
    const vz = R[2]! * x + R[6]! * y + R[10]! * z;
    const f = Number.isFinite(D) ? D / (D - vz) : 1;
    positions[i] = vx * f;
    positions[i + 1] = vy * f;
    positions[i + 2] = vz;
  }
  const side = Math.max(8, Math.round(Math.min(o.width, o.height) * o.size));
  const obj = renderView(
    { positions, indices: mesh.indices },
    {
      width: side,
      height: side,
      rotation: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
      fit: 'tight',
      margin: 0,
      color: o.color,
      ...(o.lighting ? { lighting: o.lighting } : {}),
      shading: o.shading ?? 'flat',
    },
  );
  const rgb = new Uint8Array(o.width * o.height * 3);
  const [gx, gy] = o.gradient ?? [0, 0];
  for (let y = 0; y < o.height; y++) {
    for (let x = 0; x < o.width; x++) {
      const shade = gx * (x / o.width - 0.5) + gy * (y / o.height - 0.5);
      const i = (y * o.width + x) * 3;
      for (let c = 0; c < 3; c++) rgb[i + c] = clamp(o.background[c]! + shade);
    }
  }
  const [ox, oy] = o.offset ?? [0, 0];
  const left = Math.round((o.width - side) / 2 + ox * o.width),
    top = Math.round((o.height - side) / 2 + oy * o.height);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const X = left + x,
        Y = top + y;
      if (X < 0 || Y < 0 || X >= o.width || Y >= o.height) continue;
      const s = (y * side + x) * 4;
      const a = obj.rgba[s + 3]! / 255;
      if (a === 0) continue;
      const d = (Y * o.width + X) * 3;
      for (let c = 0; c < 3; c++) rgb[d + c] = clamp(obj.rgba[s + c]! * a + rgb[d + c]! * (1 - a));
    }
  }
  if (o.noise && o.rand) {
    const rand = o.rand;
    for (let i = 0; i < rgb.length; i++) rgb[i] = clamp(rgb[i]! + o.noise * gaussian(rand));
  }
  return { width: o.width, height: o.height, rgb };
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12),
    v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A random direction-of-light rig, so photos are not all lit like the model views. */
export function randomLighting(rand: () => number): Partial<Lighting> {
  const dir: Vec3 = [rand() * 2 - 1, rand() * 1.2 - 0.2, 0.3 + rand()];
  const l = Math.hypot(...dir);
  return {
    ambient: 0.25 + rand() * 0.2,
    headlight: 0.15 + rand() * 0.3,
    key: 0.3 + rand() * 0.3,
    keyDirection: [dir[0] / l, dir[1] / l, dir[2] / l],
    specular: rand() * 0.2,
    shininess: 16 + rand() * 32,
  };
}
