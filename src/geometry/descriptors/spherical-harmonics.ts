// Real, orthonormal spherical harmonics up to a small degree, for rotation-invariant energies.

/**
 * Adds w · Y_lm(u) for l = 0..L, m = −l..l into `out` at index l² + l + m, for a unit vector u.
 * Associated Legendre functions by the standard three-term recurrence.
 */
export function accumulateSH(L: number, x: number, y: number, z: number, w: number, out: Float64Array, P: Float64Array): void {
  // P[l * (L + 1) + m] = P_l^m(z)
  const st = Math.sqrt(Math.max(0, 1 - z * z));
  const W = L + 1;
  let pmm = 1;
  for (let m = 0; m <= L; m++) {
    if (m > 0) pmm *= -(2 * m - 1) * st;
    P[m * W + m] = pmm;
    if (m + 1 <= L) P[(m + 1) * W + m] = z * (2 * m + 1) * pmm;
    for (let l = m + 2; l <= L; l++) P[l * W + m] = ((2 * l - 1) * z * P[(l - 1) * W + m]! - (l + m - 1) * P[(l - 2) * W + m]!) / (l - m);
  }
  // cos(mφ), sin(mφ) by complex powers of (x + iy)/sinθ.
  let cr = 1, ci = 0;
  const ux = st > 1e-12 ? x / st : 1, uy = st > 1e-12 ? y / st : 0;
  for (let m = 0; m <= L; m++) {
    if (m > 0) {
      const nr = cr * ux - ci * uy;
      ci = cr * uy + ci * ux;
      cr = nr;
    }
    for (let l = m; l <= L; l++) {
      const base = l * l + l;
      const kp = w * K(l, m) * P[l * W + m]!;
      if (m === 0) out[base] = out[base]! + kp;
      else {
        out[base + m] = out[base + m]! + Math.SQRT2 * kp * cr;
        out[base - m] = out[base - m]! + Math.SQRT2 * kp * ci;
      }
    }
  }
}

const K_MAX = 16;
const K_TABLE = new Float64Array(K_MAX * K_MAX);
for (let l = 0; l < K_MAX; l++) {
  for (let m = 0; m <= l; m++) {
    let ratio = 1; // (l − m)! / (l + m)!
    for (let i = l - m + 1; i <= l + m; i++) ratio /= i;
    K_TABLE[l * K_MAX + m] = Math.sqrt(((2 * l + 1) / (4 * Math.PI)) * ratio);
  }
}
function K(l: number, m: number): number {
  return K_TABLE[l * K_MAX + m]!;
}

/** Per-degree energies sqrt(Σ_m c_lm²) for l = 0..L from accumulated coefficients. */
export function degreeEnergies(L: number, coeffs: Float64Array): number[] {
  const out: number[] = [];
  for (let l = 0; l <= L; l++) {
    let e = 0;
    for (let m = -l; m <= l; m++) e += coeffs[l * l + l + m]! ** 2;
    out.push(Math.sqrt(e));
  }
  return out;
}
