// A view-based shape descriptor of one 2D view of an object: Zernike moment magnitudes of its
// silhouette and of its inner edges, and Fourier magnitudes of its outer contour. Every part is
// computed in a frame normalised by the silhouette's centroid and extent, and only magnitudes are
// kept, so the descriptor does not change with position, scale, in-plane rotation or a mirror
// flip of the view (an orthographic silhouette seen from the opposite side is such a flip).
// Colour and lighting never enter: the inputs are a coverage mask and an edge-strength map.

/** A 2D view: `mask` 0..1 coverage, `edges` (optional) 0..1 strength of inner edges, row-major. */
export interface ViewImage {
  width: number;
  height: number;
  mask: Float32Array | Uint8Array;
  edges?: Float32Array | undefined;
}

const GRID = 40;
const ZERNIKE_ORDER = 12;
const EDGE_ORDER = 8;
const RAYS = 64;
const CONTOUR_HARMONICS = 16;

/**
 * Zernike basis functions for n ≥ 2 (orders 0–1 carry area and centroid, normalised away) over
 * the grid cells inside the unit disc: per cell, the re and im parts of every (n, m) side by side,
 * so one pass over the grid feeds all moments at once.
 */
interface Basis {
  /** Grid indices of the cells inside the disc (the basis is 0 outside). */
  cells: Int32Array;
  /** cells.length × 2·count: re, im of each (n, m) per cell. */
  table: Float32Array;
  /** Number of (n, m) pairs. */
  count: number;
}

function zernikeBasis(order: number): Basis {
  const pairs: [number, number][] = [];
  for (let n = 2; n <= order; n++) for (let m = n % 2; m <= n; m += 2) pairs.push([n, m]);
  const cells: number[] = [];
  const values: number[] = [];
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const u = ((x + 0.5) / GRID) * 2 - 1,
        v = ((y + 0.5) / GRID) * 2 - 1;
      const rho = Math.hypot(u, v);
      if (rho > 1) continue;
      const theta = Math.atan2(v, u);
      cells.push(y * GRID + x);
      for (const [n, m] of pairs) {
        const rad = radial(n, m, rho);
        values.push(rad * Math.cos(m * theta), -rad * Math.sin(m * theta));
      }
    }
  }
  return { cells: Int32Array.from(cells), table: Float32Array.from(values), count: pairs.length };
}

function radial(n: number, m: number, rho: number): number {
  let sum = 0;
  for (let s = 0; s <= (n - m) / 2; s++) {
    const num = (s % 2 ? -1 : 1) * factorial(n - s);
    const den = factorial(s) * factorial((n + m) / 2 - s) * factorial((n - m) / 2 - s);
    sum += (num / den) * Math.pow(rho, n - 2 * s);
  }
  return sum;
}

function factorial(k: number): number {
  let f = 1;
  for (let i = 2; i <= k; i++) f *= i;
  return f;
}

let shapeBasis: Basis | undefined;
let edgeBasis: Basis | undefined;

const zernikeCount = (order: number) => {
  let c = 0;
  for (let n = 2; n <= order; n++) c += Math.floor(n / 2) + 1;
  return c;
};

export const SHAPE_ZERNIKE = zernikeCount(ZERNIKE_ORDER);
export const EDGE_ZERNIKE = zernikeCount(EDGE_ORDER);
/** Length of a view descriptor: silhouette Zernike | contour Fourier | edge Zernike | 2 scalars. */
export const VIEW_DESCRIPTOR_LENGTH = SHAPE_ZERNIKE + (CONTOUR_HARMONICS - 1) + EDGE_ZERNIKE + 2;

/** Where each part of the descriptor lies, for weighting in the distance. */
export const DESCRIPTOR_PARTS = {
  silhouette: [0, SHAPE_ZERNIKE],
  contour: [SHAPE_ZERNIKE, SHAPE_ZERNIKE + CONTOUR_HARMONICS - 1],
  edges: [SHAPE_ZERNIKE + CONTOUR_HARMONICS - 1, SHAPE_ZERNIKE + CONTOUR_HARMONICS - 1 + EDGE_ZERNIKE],
  scalars: [VIEW_DESCRIPTOR_LENGTH - 2, VIEW_DESCRIPTOR_LENGTH],
} as const;

/** Coverage-weighted area and centroid of a view's silhouette (pixel centres), or null when it shows nothing. */
export function silhouetteCentroid({ width, height, mask }: ViewImage): { area: number; cx: number; cy: number } | null {
  let area = 0,
    sx = 0,
    sy = 0;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      const m = mask[i]!;
      if (m <= 0) continue;
      area += m;
      sx += m * (x + 0.5);
      sy += m * (y + 0.5);
    }
  }
  if (area < 4) return null;
  const cx = sx / area,
    cy = sy / area;
  return { area, cx, cy };
}

/**
 * The descriptor of one view, or null when the view shows nothing. Writes into `out` (length
 * {@link VIEW_DESCRIPTOR_LENGTH}) when given.
 */
export function describeView(view: ViewImage, out = new Float32Array(VIEW_DESCRIPTOR_LENGTH)): Float32Array | null {
  const { width, height, mask } = view;
  const centre = silhouetteCentroid(view);
  if (!centre) return null;
  const { area, cx, cy } = centre;
  let r2 = 0,
    cxx = 0,
    cyy = 0,
    cxy = 0;
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      const m = mask[i]!;
      if (m < 0.5) continue;
      const dx = x + 0.5 - cx,
        dy = y + 0.5 - cy;
      const d = dx * dx + dy * dy;
      if (d > r2) r2 = d;
      cxx += m * dx * dx;
      cyy += m * dy * dy;
      cxy += m * dx * dy;
    }
  }
  // Half a pixel more so the outermost pixels lie inside the unit disc.
  const R = Math.sqrt(r2) + 0.7;

  const shapeGrid = resample(mask, width, height, cx, cy, R);
  shapeBasis ??= zernikeBasis(ZERNIKE_ORDER);
  let o = zernikeMagnitudes(shapeGrid, shapeBasis, out, 0);

  o = contourHarmonics(mask, width, height, cx, cy, R, out, o);

  edgeBasis ??= zernikeBasis(EDGE_ORDER);
  if (view.edges) {
    const edgeGrid = resample(view.edges, width, height, cx, cy, R);
    o = zernikeMagnitudes(edgeGrid, edgeBasis, out, o);
  } else {
    out.fill(0, o, o + EDGE_ZERNIKE);
    o += EDGE_ZERNIKE;
  }

  // Elongation (ratio of the principal second moments) and how much of the disc the silhouette fills.
  const tr = cxx + cyy,
    det = cxx * cyy - cxy * cxy;
  const disc = Math.sqrt(Math.max(0, (tr * tr) / 4 - det));
  const l1 = tr / 2 + disc,
    l2 = tr / 2 - disc;
  out[o++] = l1 > 0 ? Math.sqrt(Math.max(0, l2) / l1) : 1;
  out[o] = area / (Math.PI * R * R);
  return out;
}

/**
 * Bilinear samples of `img` over the disc of radius R around (cx, cy), 2×2 per grid cell. The
 * sample grid is separable: each sample column's pixel and weight (and each row's) are worked
 * out once, not per sample.
 */
function resample(img: Float32Array | Uint8Array, width: number, height: number, cx: number, cy: number, R: number): Float32Array {
  const g = new Float32Array(GRID * GRID);
  const step = (2 * R) / GRID;
  const n = 2 * GRID;
  const ix = new Int32Array(n),
    fxs = new Float64Array(n),
    iy = new Int32Array(n),
    fys = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const px = cx - R + ((j >> 1) + 0.25 + (j & 1) * 0.5) * step - 0.5;
    const py = cy - R + ((j >> 1) + 0.25 + (j & 1) * 0.5) * step - 0.5;
    ix[j] = Math.floor(px);
    fxs[j] = px - ix[j]!;
    iy[j] = Math.floor(py);
    fys[j] = py - iy[j]!;
  }
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      let s = 0;
      for (let sy = 0; sy < 2; sy++) {
        const y0 = iy[2 * y + sy]!,
          fy = fys[2 * y + sy]!;
        const inY0 = y0 >= 0 && y0 < height,
          inY1 = y0 + 1 >= 0 && y0 + 1 < height;
        const r0 = y0 * width,
          r1 = r0 + width;
        for (let sx = 0; sx < 2; sx++) {
          const x0 = ix[2 * x + sx]!,
            fx = fxs[2 * x + sx]!;
          const inX0 = x0 >= 0 && x0 < width,
            inX1 = x0 + 1 >= 0 && x0 + 1 < width;
          const a = inX0 && inY0 ? img[r0 + x0]! : 0,
            b = inX1 && inY0 ? img[r0 + x0 + 1]! : 0;
          const c = inX0 && inY1 ? img[r1 + x0]! : 0,
            d = inX1 && inY1 ? img[r1 + x0 + 1]! : 0;
          s += (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
        }
      }
      g[y * GRID + x] = s / 4;
    }
  }
  return g;
}

// No closures in here: it runs thousands of times per view, and tsx/esbuild wraps every named
// closure it creates in a costly __name call.
function bilinear(img: Float32Array | Uint8Array, width: number, height: number, x: number, y: number): number {
  const x0 = Math.floor(x),
    y0 = Math.floor(y);
  const fx = x - x0,
    fy = y - y0;
  const inX0 = x0 >= 0 && x0 < width,
    inX1 = x0 + 1 >= 0 && x0 + 1 < width;
  const inY0 = y0 >= 0 && y0 < height,
    inY1 = y0 + 1 >= 0 && y0 + 1 < height;
  const r0 = y0 * width,
    r1 = r0 + width;
  const a = inX0 && inY0 ? img[r0 + x0]! : 0,
    b = inX1 && inY0 ? img[r0 + x0 + 1]! : 0;
  const c = inX0 && inY1 ? img[r1 + x0]! : 0,
    d = inX1 && inY1 ? img[r1 + x0 + 1]! : 0;
  return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
}

/** |Z_nm| / mass, for the orders of `basis`; returns the next free index of `out`. */
function zernikeMagnitudes(grid: Float32Array, basis: Basis, out: Float32Array, o: number): number {
  let mass = 0;
  for (let i = 0; i < grid.length; i++) mass += grid[i]!;
  const inv = mass > 0 ? 1 / mass : 0;
  const { cells, table, count } = basis;
  const width = 2 * count;
  const acc = new Float64Array(width);
  for (let c = 0; c < cells.length; c++) {
    const v = grid[cells[c]!]!;
    if (v === 0) continue;
    for (let k = 0, t = c * width; k < width; k++, t++) acc[k]! += v * table[t]!;
  }
  for (let k = 0; k < count; k++) out[o++] = Math.hypot(acc[2 * k]!, acc[2 * k + 1]!) * inv;
  return o;
}

/**
 * The outer contour as the farthest covered point along each of {@link RAYS} rays from the
 * centroid, divided by its mean; the DFT magnitudes of harmonics 1.. are rotation and mirror
 * invariant.
 */
function contourHarmonics(
  mask: Float32Array | Uint8Array,
  width: number,
  height: number,
  cx: number,
  cy: number,
  R: number,
  out: Float32Array,
  o: number,
): number {
  const radii = new Float32Array(RAYS);
  const steps = Math.max(16, Math.ceil(R * 2));
  let mean = 0;
  for (let k = 0; k < RAYS; k++) {
    const a = (2 * Math.PI * k) / RAYS;
    const dx = Math.cos(a),
      dy = Math.sin(a);
    // The farthest covered step: marching in from the rim, the first one found.
    let far = 0;
    for (let s = steps; s >= 1; s--) {
      const r = (s / steps) * R;
      if (bilinear(mask, width, height, cx + dx * r - 0.5, cy + dy * r - 0.5) >= 0.5) {
        far = r;
        break;
      }
    }
    radii[k] = far / R;
    mean += far / R;
  }
  mean /= RAYS;
  const inv = mean > 0 ? 1 / (mean * RAYS) : 0;
  for (let h = 1; h < CONTOUR_HARMONICS; h++) {
    let a = 0,
      b = 0;
    for (let k = 0; k < RAYS; k++) {
      const t = (2 * Math.PI * h * k) / RAYS;
      a += radii[k]! * Math.cos(t);
      b += radii[k]! * Math.sin(t);
    }
    out[o++] = Math.hypot(a, b) * inv;
  }
  return o;
}

/**
 * Names the descriptor recipe; stored beside every descriptor so that a changed recipe never
 * compares with old descriptors (models are then reprocessed, images uploaded again).
 */
// v2: views rendered from a simplified mesh (view-mesh.ts); stored with polar signatures (polar-signature.ts).
// v3: views in perspective (model-views.ts VIEW_DISTANCE).
export const VIEW_METHOD = `views-z${ZERNIKE_ORDER}-c${CONTOUR_HARMONICS}-e${EDGE_ORDER}-g${GRID}-polar-v3`;
