import type { Mesh, Vec3 } from '../../mesh/mesh';
import type { Mat4 } from '../../mesh/transform';
import { creaseNormals, DEFAULT_CREASE_ANGLE_DEG, type MeshWithNormals } from '../../mesh/normals';
import { rasterize, snap, SUBPIXELS, type Culling, type ScreenVertices } from './rasterize';
import { boundingSphere, ISOMETRIC, lookFrom, normalize, type BoundingSphere } from './view';

/** An RGBA colour, 0–255 per channel, straight (not premultiplied) alpha. */
export type Rgba = [number, number, number, number];

/**
 * Light rig in view space (+x right, +y up, +z towards the eye). Intensities multiply the part
 * colour; their sum near 1 keeps the brightest faces just below white.
 */
export interface Lighting {
  /** Light everywhere, also in cavities. */
  ambient: number;
  /** Lambert term of a light at the eye: faces turned away from the viewer darken. */
  headlight: number;
  /** Lambert term of a key light from `keyDirection`, so that faces of different orientation differ. */
  key: number;
  /** Direction towards the key light (view space). */
  keyDirection: Vec3;
  /** Blinn–Phong highlight of the key light (0 = matte). */
  specular: number;
  shininess: number;
}

/** Defaults: a key light from the upper left so the three visible faces of an isometric box differ. */
export const DEFAULT_LIGHTING: Lighting = {
  ambient: 0.4,
  headlight: 0.3,
  key: 0.42,
  keyDirection: normalize([-0.45, 0.75, 0.5]),
  specular: 0.12,
  shininess: 24,
};

export interface RenderOptions {
  width: number;
  height: number;
  /** From the part towards the eye (default {@link ISOMETRIC}); ignored when `rotation` is given. */
  direction?: Vec3;
  /** Screen-up hint for `direction` (default +z). */
  up?: Vec3;
  /**
   * World → view rotation (column-major, orthonormal, e.g. from {@link lookFrom}); the camera looks
   * down view −z with +y up on screen. Any translation is ignored: the view is fitted.
   */
  rotation?: Mat4;
  projection?: 'orthographic';
  /**
   * `sphere` (default): the bounding sphere fills the shorter image side, the same scale from every
   * direction (for descriptors). `tight`: the part's projected extent fills the image (thumbnails).
   */
  fit?: 'sphere' | 'tight';
  /** Free border as a fraction of the fitted size (default 0.02). */
  margin?: number;
  /** A precomputed {@link boundingSphere} of the mesh, to skip one pass over the vertices. */
  sphere?: BoundingSphere;
  /** Default transparent. */
  background?: Rgba;
  /** Part colour (default soft grey-blue). */
  color?: [number, number, number];
  /** A colour per triangle instead (RGB 0–255, 3 per triangle): a deviation heat map. */
  triangleColors?: Uint8Array;
  lighting?: Partial<Lighting>;
  /**
   * `flat` (default): one Lambert shade per triangle. `smooth`: interpolated vertex normals, those
   * of a {@link MeshWithNormals} when given one (e.g. shared with the viewer file), else
   * {@link creaseNormals}.
   */
  shading?: 'flat' | 'smooth';
  /** Crease angle for `smooth` shading (default {@link DEFAULT_CREASE_ANGLE_DEG}). */
  creaseAngleDeg?: number;
  /** Darkening at depth discontinuities and silhouettes, 0–1 (default 0 = none). */
  edges?: number;
  /**
   * `draw` (default): back faces are drawn, slightly darker, so open meshes show their inside.
   * `cull`: skip them (faster; only for closed, outward-facing meshes).
   */
  backFaces?: 'draw' | 'cull';
}

/** How model space maps to the image, so pixels and depths can be turned back into lengths. */
export interface ViewInfo {
  /** World → view rotation actually used (column-major). */
  rotation: number[];
  sphere: BoundingSphere;
  /** Pixels per model unit. */
  scale: number;
  /** Model units per depth unit: depth 0 is the front of the bounding sphere, 1 its back. */
  depthRange: number;
}

export interface DepthImage {
  width: number;
  height: number;
  /**
   * Row-major, top row first. 0 at the bounding sphere's front, 1 at its back (multiply by
   * `view.depthRange` for model units); background pixels hold 1.
   */
  depth: Float32Array;
  /** 1 where the part covers the pixel centre, else 0. */
  mask: Uint8Array;
  view: ViewInfo;
}

export interface RenderResult extends DepthImage {
  /** Row-major RGBA, straight alpha. */
  rgba: Uint8ClampedArray;
  /** Index of the visible triangle per pixel, −1 for background. */
  triangle: Int32Array;
}

const PART_COLOR: [number, number, number] = [166, 184, 212];

/**
 * A shaded orthographic image of the mesh with its depth map and coverage mask: z-buffered,
 * top-left filled, lit by an ambient term, a headlight and a key light. See {@link RenderOptions}.
 */
export function renderView(mesh: Mesh, options: RenderOptions): RenderResult {
  const { width, height } = options;
  const smooth = options.shading === 'smooth';
  const geometry: Mesh | MeshWithNormals =
    smooth && !hasNormals(mesh) ? creaseNormals(mesh, options.creaseAngleDeg ?? DEFAULT_CREASE_ANGLE_DEG) : mesh;
  const rotation = options.rotation ? Array.from(options.rotation) : lookFrom(options.direction ?? ISOMETRIC, options.up);
  const sphere = options.sphere ?? boundingSphere(mesh);
  const { screen, view } = project(geometry, rotation, sphere, width, height, options.fit ?? 'sphere', options.margin ?? 0.02);

  const n = width * height;
  const depth = new Float32Array(n).fill(Infinity);
  const triangle = new Int32Array(n).fill(-1);
  rasterize(screen, geometry.indices, width, height, depth, triangle, options.backFaces === 'cull' ? 'back' : 'none');
  const mask = finishDepth(depth);

  const rgba = new Uint8ClampedArray(n * 4);
  const bg = options.background ?? [0, 0, 0, 0];
  const base = options.color ?? PART_COLOR;
  const tc = options.triangleColors;
  const light = { ...DEFAULT_LIGHTING, ...options.lighting };
  const kd = normalize(light.keyDirection);
  // Blinn half vector of the key light and a viewer on +z.
  const half = normalize([kd[0], kd[1], kd[2] + 1]);
  const R = rotation;
  const P = geometry.positions;
  const idx = geometry.indices;
  const N = smooth && hasNormals(geometry) ? geometry.normals : null;
  const edgeStrength = options.edges ?? 0;
  const edge = edgeStrength > 0 ? edgeFactors(depth, mask, width, height, 1 / (view.scale * view.depthRange)) : null;

  // Below this the key light's highlight adds less than 1/1000 of a colour step: skip Math.pow.
  const specCutoff = light.specular > 0 ? Math.pow(1 / (1000 * 255 * light.specular), 1 / light.shininess) : Infinity;
  // Flat shading depends on the triangle only: each visible triangle's diffuse factor and
  // highlight are worked out once (NaN = not yet), not once per pixel it covers.
  const flatShade = N ? null : new Float64Array(2 * (idx.length / 3)).fill(NaN);
  for (let y = 0, i = 0; y < height; y++)
    for (let x = 0; x < width; x++, i++) {
      const t = triangle[i]!;
      const o = i * 4;
      if (t < 0) {
        rgba[o] = bg[0];
        rgba[o + 1] = bg[1];
        rgba[o + 2] = bg[2];
        rgba[o + 3] = bg[3];
        continue;
      }
      if (flatShade && !Number.isNaN(flatShade[2 * t]!)) {
        const diffuse = flatShade[2 * t]!,
          highlight = flatShade[2 * t + 1]!;
        const dark = edge ? 1 - edgeStrength * edge[i]! : 1;
        rgba[o] = ((tc ? tc[t * 3]! : base[0]) * diffuse + highlight) * dark;
        rgba[o + 1] = ((tc ? tc[t * 3 + 1]! : base[1]) * diffuse + highlight) * dark;
        rgba[o + 2] = ((tc ? tc[t * 3 + 2]! : base[2]) * diffuse + highlight) * dark;
        rgba[o + 3] = 255;
        continue;
      }
      const a = idx[t * 3]!,
        b = idx[t * 3 + 1]!,
        c = idx[t * 3 + 2]!;
      // Face normal in world space, then the facing test in view space.
      const ax = P[a * 3]!,
        ay = P[a * 3 + 1]!,
        az = P[a * 3 + 2]!;
      const ux = P[b * 3]! - ax,
        uy = P[b * 3 + 1]! - ay,
        uz = P[b * 3 + 2]! - az;
      const vx = P[c * 3]! - ax,
        vy = P[c * 3 + 1]! - ay,
        vz = P[c * 3 + 2]! - az;
      let nx = uy * vz - uz * vy,
        ny = uz * vx - ux * vz,
        nz = ux * vy - uy * vx;
      const facing = R[2]! * nx + R[6]! * ny + R[10]! * nz;
      if (N) {
        // Barycentric weights of the pixel centre from the snapped corners, in fixed point like the
        // rasterizer (exact for orthographic).
        const px = (x + 0.5) * SUBPIXELS,
          py = (y + 0.5) * SUBPIXELS;
        const x0 = screen.x[a]!,
          y0 = screen.y[a]!;
        const x1 = screen.x[b]!,
          y1 = screen.y[b]!;
        const x2 = screen.x[c]!,
          y2 = screen.y[c]!;
        const d = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2);
        let l0 = d !== 0 ? ((y1 - y2) * (px - x2) + (x2 - x1) * (py - y2)) / d : 1 / 3;
        let l1 = d !== 0 ? ((y2 - y0) * (px - x2) + (x0 - x2) * (py - y2)) / d : 1 / 3;
        l0 = l0 < 0 ? 0 : l0 > 1 ? 1 : l0;
        l1 = l1 < 0 ? 0 : l1 > 1 - l0 ? 1 - l0 : l1;
        const l2 = 1 - l0 - l1;
        nx = N[a * 3]! * l0 + N[b * 3]! * l1 + N[c * 3]! * l2;
        ny = N[a * 3 + 1]! * l0 + N[b * 3 + 1]! * l1 + N[c * 3 + 1]! * l2;
        nz = N[a * 3 + 2]! * l0 + N[b * 3 + 2]! * l1 + N[c * 3 + 2]! * l2;
      }
      // To view space.
      let ex = R[0]! * nx + R[4]! * ny + R[8]! * nz;
      let ey = R[1]! * nx + R[5]! * ny + R[9]! * nz;
      let ez = R[2]! * nx + R[6]! * ny + R[10]! * nz;
      const len = Math.sqrt(ex * ex + ey * ey + ez * ez) || 1;
      ex /= len;
      ey /= len;
      ez /= len;
      let tone = 1;
      if (facing < 0) {
        // The inside of an open surface: light it as if it faced us, a little darker.
        ex = -ex;
        ey = -ey;
        ez = -ez;
        tone = 0.7;
      } else if (ez < 0) {
        // Smooth normals near a silhouette can tip away although the face is visible.
        ez = 0;
      }
      const key = ex * kd[0] + ey * kd[1] + ez * kd[2];
      const spec = ex * half[0] + ey * half[1] + ez * half[2];
      const diffuse = (light.ambient + light.headlight * (ez > 0 ? ez : 0) + light.key * (key > 0 ? key : 0)) * tone;
      const highlight = spec > specCutoff && key > 0 ? light.specular * Math.pow(spec, light.shininess) * 255 * tone : 0;
      if (flatShade) {
        flatShade[2 * t] = diffuse;
        flatShade[2 * t + 1] = highlight;
      }
      const dark = edge ? 1 - edgeStrength * edge[i]! : 1;
      rgba[o] = ((tc ? tc[t * 3]! : base[0]) * diffuse + highlight) * dark;
      rgba[o + 1] = ((tc ? tc[t * 3 + 1]! : base[1]) * diffuse + highlight) * dark;
      rgba[o + 2] = ((tc ? tc[t * 3 + 2]! : base[2]) * diffuse + highlight) * dark;
      rgba[o + 3] = 255;
    }
  return { width, height, rgba, depth, mask, triangle, view };
}

/**
 * Depth map and mask only, no shading: the cheap path for view-based descriptors. `view` is a
 * world → view rotation ({@link lookFrom}) or a direction from the part towards the eye. The
 * bounding sphere fills the image, so every view of a part shares one scale; pass `sphere` when
 * rendering many views of one mesh.
 */
export function renderDepth(
  mesh: Mesh,
  view: Mat4 | Vec3,
  size: number,
  options: { sphere?: BoundingSphere; backFaces?: 'draw' | 'cull' } = {},
): DepthImage {
  const rotation = view.length === 3 ? lookFrom(view as Vec3) : Array.from(view);
  const sphere = options.sphere ?? boundingSphere(mesh);
  const { screen, view: info } = project(mesh, rotation, sphere, size, size, 'sphere', 0);
  const depth = new Float32Array(size * size).fill(Infinity);
  const cull: Culling = options.backFaces === 'cull' ? 'back' : 'none';
  rasterize(screen, mesh.indices, size, size, depth, null, cull);
  const mask = finishDepth(depth);
  return { width: size, height: size, depth, mask, view: info };
}

function hasNormals(mesh: Mesh): mesh is MeshWithNormals {
  const n = (mesh as Partial<MeshWithNormals>).normals;
  return n instanceof Float32Array && n.length === mesh.positions.length;
}

/** Vertices to fixed-point screen positions (y down) and normalised depth, fitted as `fit` says. */
function project(
  mesh: Mesh,
  R: readonly number[],
  sphere: BoundingSphere,
  width: number,
  height: number,
  fit: 'sphere' | 'tight',
  margin: number,
): { screen: ScreenVertices; view: ViewInfo } {
  const p = mesh.positions;
  const nv = p.length / 3;
  const [cx, cy, cz] = sphere.center;
  const r = sphere.radius > 0 ? sphere.radius : 1;
  const r0 = R[0]!,
    r1 = R[1]!,
    r2 = R[2]!,
    r4 = R[4]!,
    r5 = R[5]!,
    r6 = R[6]!,
    r8 = R[8]!,
    r9 = R[9]!,
    r10 = R[10]!;
  let scale = Math.min(width, height) / (2 * r) / (1 + 2 * margin);
  let ox = 0,
    oy = 0; // view-space point that lands in the image centre
  if (fit === 'tight' && mesh.indices.length > 0) {
    let minX = Infinity,
      maxX = -Infinity,
      minY = Infinity,
      maxY = -Infinity;
    const idx = mesh.indices;
    for (let k = 0; k < idx.length; k++) {
      const v = idx[k]! * 3;
      const x = p[v]! - cx,
        y = p[v + 1]! - cy,
        z = p[v + 2]! - cz;
      const sx = r0 * x + r4 * y + r8 * z,
        sy = r1 * x + r5 * y + r9 * z;
      if (sx < minX) minX = sx;
      if (sx > maxX) maxX = sx;
      if (sy < minY) minY = sy;
      if (sy > maxY) maxY = sy;
    }
    ox = (minX + maxX) / 2;
    oy = (minY + maxY) / 2;
    const w = Math.max(maxX - minX, r * 1e-6),
      h = Math.max(maxY - minY, r * 1e-6);
    scale = Math.min(width / w, height / h) / (1 + 2 * margin);
  }
  const screen: ScreenVertices = { x: new Int32Array(nv), y: new Int32Array(nv), z: new Float64Array(nv) };
  const { x: sx, y: sy, z: sz } = screen;
  const hw = width / 2,
    hh = height / 2,
    inv2r = 1 / (2 * r);
  for (let v = 0, i = 0; v < nv; v++, i += 3) {
    const x = p[i]! - cx,
      y = p[i + 1]! - cy,
      z = p[i + 2]! - cz;
    sx[v] = snap(hw + (r0 * x + r4 * y + r8 * z - ox) * scale);
    sy[v] = snap(hh - (r1 * x + r5 * y + r9 * z - oy) * scale);
    sz[v] = (r - (r2 * x + r6 * y + r10 * z)) * inv2r;
  }
  return { screen, view: { rotation: Array.from(R), sphere, scale, depthRange: 2 * r } };
}

/** Background (still Infinity) becomes depth 1; returns the coverage mask. */
function finishDepth(depth: Float32Array): Uint8Array {
  const mask = new Uint8Array(depth.length);
  for (let i = 0; i < depth.length; i++) {
    if (depth[i] === Infinity) depth[i] = 1;
    else mask[i] = 1;
  }
  return mask;
}

/**
 * 0–1 per pixel: how strongly the depth breaks there. The second difference of depth is zero on
 * any plane however steep, about one pixel's depth at a crease and large at a step or a
 * silhouette, so steps darken fully and creases only faintly.
 */
function edgeFactors(depth: Float32Array, mask: Uint8Array, width: number, height: number, pixelDepth: number): Float32Array {
  const out = new Float32Array(depth.length);
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= width || y >= height ? 1 : depth[y * width + x]!);
  const lo = 1.5,
    hi = 6;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!mask[i]) continue;
      const d = depth[i]!;
      const lx = Math.abs(at(x - 1, y) + at(x + 1, y) - 2 * d);
      const ly = Math.abs(at(x, y - 1) + at(x, y + 1) - 2 * d);
      const e = (lx > ly ? lx : ly) / pixelDepth;
      out[i] = e <= lo ? 0 : e >= hi ? 1 : (e - lo) / (hi - lo);
    }
  }
  return out;
}
