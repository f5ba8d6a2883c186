// Part designs for the search benchmark (benchmark data, not a production path). Each archetype
// draws its base dimensions from a seeded PRNG, so one archetype yields many different designs
// (families), and a split built from another seed holds designs the dev split never showed.
// Deliberately unlike the descriptor's test parts: asymmetric hole patterns (nearly symmetric
// parts whose mirror image is another part), swept elbows, hollow housings, hinge leaves, cams.
import type { CrossSection, Manifold, ManifoldToplevel } from 'manifold-3d';

export type Params = Record<string, number>;

/** Every dimension name the designs use, so a build can destructure them as numbers. */
type Dims = Record<
  | 'L'
  | 'W'
  | 'T'
  | 'd'
  | 'off'
  | 'slot'
  | 'pocket'
  | 'A'
  | 'B'
  | 'D'
  | 'rib'
  | 'chamfer'
  | 'n'
  | 'hub'
  | 'extra'
  | 'face'
  | 'z'
  | 'mod'
  | 'bore'
  | 'key'
  | 'web'
  | 'head'
  | 'collar'
  | 'tip'
  | 's1'
  | 's2'
  | 'groove'
  | 'flat'
  | 't'
  | 'Rb'
  | 'ang'
  | 'leg'
  | 'lip'
  | 'bead'
  | 'g'
  | 'hubx'
  | 'recess'
  | 'H'
  | 'h'
  | 'bore2'
  | 'notch'
  | 'boss2'
  | 'window'
  | 'k'
  | 'hole3'
  | 'countersink'
  | 'flange'
  | 'ribs'
  | 'tab'
  | 'notchd'
  | 'Hh'
  | 'R'
  | 'e'
  | 'b'
  | 'lighten',
  number
>;

export interface Archetype {
  name: string;
  /** Base dimensions (mm) of one design, drawn from `rand`. */
  draw(rand: () => number): Params;
  /** Parameters that are dimensions (a variant changes 1–3 of them by 5–30 %; an edit one by 1–3 %). */
  dims: readonly string[];
  /**
   * A parameter that moves a feature (a hole, a slot) along the part, in mm from its design
   * position; absent when the design has no such feature.
   */
  shift?: string;
  /** Millimetre dimensions whose small change is local (a thickness, a diameter): feature edits. */
  edits: readonly string[];
  /**
   * Parameters whose change moves some surface by a multiple of itself (a bend radius that is a
   * multiple of the tube's diameter, a gear's module times its teeth): the benchmark never counts
   * two records that differ in one as one part to the stated tolerance.
   */
  scaling?: readonly string[];
  /** 0/1 parameters that add or remove a feature (a family variant). */
  features: readonly string[];
  /** A 0/1 parameter adding detail that keeps the overall box and the hole count (the geo-related partner). */
  detail: string;
  /** The design has no mirror symmetry: its mirror image is another part. */
  chiral: boolean;
  build(m: ManifoldToplevel, p: Params, segments: number): Manifold;
}

const between = (rand: () => number, lo: number, hi: number) => lo + (hi - lo) * rand();
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Boolean helpers that free their operands (manifold-3d objects live in wasm memory). */
function cut(a: Manifold, ...bs: Manifold[]): Manifold {
  let s = a;
  for (const b of bs) {
    const r = s.subtract(b);
    s.delete();
    b.delete();
    s = r;
  }
  return s;
}

function join(a: Manifold, ...bs: Manifold[]): Manifold {
  let s = a;
  for (const b of bs) {
    const r = s.add(b);
    s.delete();
    b.delete();
    s = r;
  }
  return s;
}

function polygon(m: ManifoldToplevel, pts: [number, number][]): CrossSection {
  return new m.CrossSection([pts]);
}

function extrudePolygon(m: ManifoldToplevel, pts: [number, number][], h: number): Manifold {
  const cs = polygon(m, pts);
  const s = cs.extrude(h);
  cs.delete();
  return s;
}

function revolvePolygon(m: ManifoldToplevel, pts: [number, number][], segments: number, degrees = 360): Manifold {
  const cs = polygon(m, pts);
  const s = cs.revolve(segments, degrees);
  cs.delete();
  return s;
}

const hole = (m: ManifoldToplevel, r: number, h: number, segments: number) =>
  m.Manifold.cylinder(h + 2, r, r, Math.max(8, Math.round(segments / 2))).translate(0, 0, -1);

export const ARCHETYPES: readonly Archetype[] = [
  {
    // Mounting plate: three holes, one off the grid, so the plate is nearly but not quite symmetric.
    name: 'mount-plate',
    draw: (r) => ({
      L: round1(between(r, 70, 160)),
      W: round1(between(r, 40, 90)),
      T: round1(between(r, 4, 12)),
      d: round1(between(r, 5, 12)),
      off: 0,
      slot: 0,
      pocket: 0,
    }),
    dims: ['L', 'W', 'T', 'd'],
    shift: 'off',
    edits: ['T', 'd'],
    features: ['slot'],
    detail: 'pocket',
    chiral: true,
    build(m, p, seg) {
      const { L, W, T, d, off, slot, pocket } = p as Dims;
      let s = m.Manifold.cube([L, W, T]);
      s = cut(
        s,
        hole(m, d / 2, T, seg).translate(L * 0.18, W * 0.25, 0),
        hole(m, d / 2, T, seg).translate(L * 0.82, W * 0.25, 0),
        hole(m, d / 2, T, seg).translate(L * 0.3 + off, W * 0.75, 0),
      );
      // A countersink on one side only: without it the plate's mirror image would be the plate turned over.
      s = cut(s, m.Manifold.cylinder(d * 0.3, d / 2, d * 0.8, seg).translate(L * 0.18, W * 0.25, T - d * 0.3 + 0.01));
      if (slot) s = cut(s, m.Manifold.cube([L * 0.25, d * 0.8, T + 2]).translate(L * 0.55, W * 0.7 - d * 0.4, -1));
      if (pocket) s = cut(s, m.Manifold.cube([L * 0.2, W * 0.2, T * 0.4]).translate(L * 0.6, W * 0.15, T * 0.6 + 0.01));
      return s;
    },
  },
  {
    name: 'angle-bracket',
    draw: (r) => ({
      A: round1(between(r, 30, 80)),
      B: round1(between(r, 25, 70)),
      T: round1(between(r, 3, 9)),
      D: round1(between(r, 20, 60)),
      d: round1(between(r, 4, 9)),
      off: 0,
      rib: 0,
      chamfer: 0,
    }),
    dims: ['A', 'B', 'T', 'D'],
    shift: 'off',
    edits: ['T', 'd'],
    features: ['rib'],
    detail: 'chamfer',
    chiral: true,
    build(m, p, seg) {
      const { A, B, T, D, d, off, rib, chamfer } = p as Dims;
      let s = extrudePolygon(
        m,
        [
          [0, 0],
          [A, 0],
          [A, T],
          [T, T],
          [T, B],
          [0, B],
        ],
        D,
      );
      s = cut(
        s,
        m.Manifold.cylinder(T + 2, d / 2, d / 2, seg)
          .rotate([-90, 0, 0])
          .translate(A * 0.6 + off, -1, D * 0.35),
      );
      s = cut(
        s,
        m.Manifold.cylinder(T + 2, d / 2, d / 2, seg)
          .rotate([0, 90, 0])
          .translate(-1, B * 0.65, D * 0.6),
      );
      if (rib)
        s = join(
          s,
          extrudePolygon(
            m,
            [
              [T - 0.01, T - 0.01],
              [A * 0.5, T - 0.01],
              [T - 0.01, B * 0.5],
            ],
            T,
          ).translate(0, 0, D / 2 - T / 2),
        );
      if (chamfer)
        s = cut(
          s,
          m.Manifold.cube([T * 1.5, T * 1.5, D + 2], true)
            .rotate([0, 0, 45])
            .translate(A, 0, D / 2),
        );
      return s;
    },
  },
  {
    name: 'bolt-flange',
    draw: (r) => ({
      D: round1(between(r, 60, 160)),
      T: round1(between(r, 6, 16)),
      n: 4 + Math.floor(r() * 5),
      hub: round1(between(r, 0.3, 0.5)),
      off: 0,
      extra: 0,
      face: 0,
    }),
    dims: ['D', 'T', 'hub'],
    shift: 'off',
    edits: ['T'],
    features: ['extra'],
    detail: 'face',
    chiral: false,
    build(m, p, seg) {
      const { D, T, n, hub, off, extra, face } = p as Dims;
      const R = D / 2;
      let s = join(m.Manifold.cylinder(T, R, R, seg * 2), m.Manifold.cylinder(T * 2.2, R * hub, R * hub, seg * 2));
      s = cut(s, hole(m, R * 0.22, T * 3, seg));
      const holes = n + (extra ? 1 : 0);
      for (let i = 0; i < holes; i++) {
        const a = (2 * Math.PI * i) / holes;
        s = cut(s, hole(m, R * 0.07, T, seg).translate(R * 0.75 * Math.cos(a) + (i === 0 ? off : 0), R * 0.75 * Math.sin(a), 0));
      }
      if (face)
        s = cut(
          s,
          cut(
            m.Manifold.cylinder(T * 0.25, R * 0.62, R * 0.62, seg * 2),
            m.Manifold.cylinder(T * 0.25, R * 0.5, R * 0.5, seg * 2),
          ).translate(0, 0, -0.01),
        );
      return s;
    },
  },
  {
    name: 'spur-gear',
    draw: (r) => ({
      z: 14 + Math.floor(r() * 26),
      mod: round1(between(r, 1, 3)),
      W: round1(between(r, 6, 20)),
      bore: round1(between(r, 0.15, 0.35)),
      key: 0,
      web: 0,
    }),
    dims: ['mod', 'W', 'bore'],
    edits: ['W'],
    scaling: ['mod'],
    features: ['key'],
    detail: 'web',
    chiral: false,
    build(m, p, seg) {
      const { z, mod, W, bore, key, web } = p as Dims;
      const rp = (z * mod) / 2,
        ra = rp + mod,
        rf = rp - 1.25 * mod;
      const pts: [number, number][] = [];
      for (let i = 0; i < z; i++) {
        const a0 = (2 * Math.PI * i) / z,
          w = (2 * Math.PI) / z;
        for (const [f, rr] of [
          [0, rf],
          [0.12, rf],
          [0.22, ra],
          [0.38, ra],
          [0.48, rf],
          [0.74, rf],
        ] as const)
          pts.push([rr * Math.cos(a0 + f * w), rr * Math.sin(a0 + f * w)]);
      }
      let s = extrudePolygon(m, pts, W);
      s = cut(s, hole(m, rp * bore, W, seg));
      if (key) s = cut(s, m.Manifold.cube([rp * 0.12, rp * 0.1, W + 2]).translate(rp * bore - rp * 0.03, -rp * 0.05, -1));
      if (web)
        s = cut(
          s,
          cut(
            m.Manifold.cylinder(W * 0.3, rp * 0.72, rp * 0.72, seg),
            m.Manifold.cylinder(W * 0.3, rp * bore * 1.6, rp * bore * 1.6, seg),
          ).translate(0, 0, W * 0.7 + 0.01),
        );
      return s;
    },
  },
  {
    name: 'hex-bolt',
    draw: (r) => ({ d: round1(between(r, 4, 16)), L: round1(between(r, 15, 80)), head: round1(between(r, 0.6, 0.8)), collar: 0, tip: 0 }),
    dims: ['d', 'L', 'head'],
    edits: ['L', 'd'],
    features: ['collar'],
    detail: 'tip',
    chiral: false,
    build(m, p, seg) {
      const { d, L, head, collar, tip } = p as Dims;
      let s = join(
        m.Manifold.cylinder(d * head, d * 0.9, d * 0.9, 6),
        m.Manifold.cylinder(L, d / 2, d / 2, seg).translate(0, 0, d * head - 0.01),
      );
      if (collar) s = join(s, m.Manifold.cylinder(d * 0.15, d * 0.85, d * 0.85, seg).translate(0, 0, d * head - 0.02));
      if (tip)
        s = cut(
          s,
          cut(m.Manifold.cylinder(d * 0.25, d, d, seg), m.Manifold.cylinder(d * 0.25, d / 2, d / 2 - d * 0.2, seg)).translate(
            0,
            0,
            d * head + L - d * 0.25 + 0.001,
          ),
        );
      return s;
    },
  },
  {
    name: 'stepped-shaft',
    draw: (r) => ({
      L: round1(between(r, 60, 220)),
      d: round1(between(r, 12, 40)),
      s1: round1(between(r, 0.2, 0.4)),
      s2: round1(between(r, 0.55, 0.8)),
      groove: 0,
      flat: 0,
    }),
    dims: ['L', 'd', 's1', 's2'],
    edits: ['L'],
    features: ['groove'],
    detail: 'flat',
    chiral: false,
    build(m, p, seg) {
      const { L, d, s1, s2, groove, flat } = p as Dims;
      const r = d / 2;
      const prof: [number, number][] = [
        [0, 0],
        [r * 0.7, 0],
        [r * 0.7, L * s1],
        [r, L * s1],
        [r, L * s2],
        [r * 0.55, L * s2],
        [r * 0.55, L],
        [0, L],
      ];
      let s = revolvePolygon(m, prof, seg);
      if (groove)
        s = cut(
          s,
          cut(m.Manifold.cylinder(r * 0.15, r + 1, r + 1, seg), m.Manifold.cylinder(r * 0.15, r * 0.85, r * 0.85, seg)).translate(
            0,
            0,
            (L * (s1 + s2)) / 2,
          ),
        );
      if (flat) s = cut(s, m.Manifold.cube([r, d * 2, L * 0.15]).translate(r * 0.45, -d, (L * (s2 + 1)) / 2 - L * 0.075));
      return s;
    },
  },
  {
    // Swept pipe elbow: an annulus revolved through an angle about an offset axis, with straight ends.
    name: 'pipe-elbow',
    draw: (r) => ({
      D: round1(between(r, 15, 50)),
      t: round1(between(r, 1.5, 5)),
      Rb: round1(between(r, 1.5, 3)),
      ang: Math.round(between(r, 45, 120)),
      leg: round1(between(r, 0, 40)),
      lip: 0,
      bead: 0,
    }),
    dims: ['D', 't', 'Rb', 'leg'],
    edits: ['t', 'leg'],
    scaling: ['D', 'Rb'],
    features: ['lip'],
    detail: 'bead',
    chiral: false,
    build(m, p, seg) {
      const { D, t, Rb, ang, leg, lip, bead } = p as Dims;
      const ro = D / 2,
        ri = ro - t,
        Rc = Rb * D;
      const ring = (o: number, i: number): [number, number][] => {
        const pts: [number, number][] = [];
        for (let k = 0; k < seg; k++) pts.push([Rc + o * Math.cos((2 * Math.PI * k) / seg), o * Math.sin((2 * Math.PI * k) / seg)]);
        const inner: [number, number][] = [];
        for (let k = seg - 1; k >= 0; k--) inner.push([Rc + i * Math.cos((2 * Math.PI * k) / seg), i * Math.sin((2 * Math.PI * k) / seg)]);
        return [...pts, ...inner];
      };
      const cs = new m.CrossSection([ring(ro, ri).slice(0, seg), ring(ro, ri).slice(seg)], 'EvenOdd');
      let s = cs.revolve(seg * 2, ang);
      cs.delete();
      const tube = (len: number) =>
        cut(m.Manifold.cylinder(len, ro, ro, seg), m.Manifold.cylinder(len + 2, ri, ri, seg).translate(0, 0, -1));
      if (leg > 0.5) s = join(s, tube(leg).rotate([90, 0, 0]).translate(Rc, 0.01, 0));
      if (lip)
        s = join(
          s,
          cut(m.Manifold.cylinder(t * 1.5, ro * 1.3, ro * 1.3, seg), m.Manifold.cylinder(t * 1.5 + 2, ri, ri, seg).translate(0, 0, -1))
            .rotate([90, 0, 0])
            .translate(Rc, leg + 0.01, 0),
        );
      if (bead)
        s = cut(
          s,
          cut(m.Manifold.cylinder(t, ro + 1, ro + 1, seg), m.Manifold.cylinder(t, ro - t * 0.3, ro - t * 0.3, seg))
            .rotate([90, 0, 0])
            .translate(Rc, leg * 0.5 + t, 0),
        );
      return s;
    },
  },
  {
    name: 'v-pulley',
    draw: (r) => ({
      D: round1(between(r, 40, 140)),
      W: round1(between(r, 10, 35)),
      g: round1(between(r, 0.08, 0.15)),
      bore: round1(between(r, 0.1, 0.25)),
      hubx: 0,
      recess: 0,
    }),
    dims: ['D', 'W', 'g', 'bore'],
    edits: ['W'],
    features: ['hubx'],
    detail: 'recess',
    chiral: false,
    build(m, p, seg) {
      const { D, W, g, bore, hubx, recess } = p as Dims;
      const R = D / 2,
        b = R * bore * 2,
        gd = D * g;
      let s = revolvePolygon(
        m,
        [
          [b, 0],
          [R, 0],
          [R, W * 0.3],
          [R - gd, W * 0.5],
          [R, W * 0.7],
          [R, W],
          [b, W],
        ],
        seg * 2,
      );
      if (hubx)
        s = join(
          s,
          cut(
            m.Manifold.cylinder(W * 0.4, b * 1.8, b * 1.8, seg),
            m.Manifold.cylinder(W * 0.4 + 2, b, b, seg).translate(0, 0, -1),
          ).translate(0, 0, W - 0.01),
        );
      if (recess)
        s = cut(
          s,
          cut(m.Manifold.cylinder(W * 0.25, R * 0.7, R * 0.7, seg * 2), m.Manifold.cylinder(W * 0.25, b * 1.6, b * 1.6, seg * 2)).translate(
            0,
            0,
            -0.01,
          ),
        );
      return s;
    },
  },
  {
    name: 'stepped-block',
    draw: (r) => ({
      L: round1(between(r, 40, 100)),
      W: round1(between(r, 25, 60)),
      H: round1(between(r, 15, 45)),
      h: round1(between(r, 0.3, 0.6)),
      off: 0,
      bore2: 0,
      notch: 0,
    }),
    dims: ['L', 'W', 'H', 'h'],
    shift: 'off',
    edits: ['H', 'W'],
    features: ['bore2'],
    detail: 'notch',
    chiral: true,
    build(m, p, seg) {
      const { L, W, H, h, off, bore2, notch } = p as Dims;
      let s = cut(m.Manifold.cube([L, W, H]), m.Manifold.cube([L * 0.45, W + 2, H * h]).translate(L * 0.55 + 0.01, -1, H * (1 - h) + 0.01));
      s = cut(s, hole(m, W * 0.12, H, seg).translate(L * 0.25 + off, W * 0.35, 0));
      if (bore2) s = cut(s, hole(m, W * 0.08, H, seg).translate(L * 0.8, W * 0.5, 0));
      if (notch) s = cut(s, m.Manifold.cube([L * 0.2, W * 0.15, H * 0.25]).translate(L * 0.05, W * 0.8, -0.01));
      return s;
    },
  },
  {
    // Open-topped housing: a hollow box with a mounting boss in one corner.
    name: 'housing',
    draw: (r) => ({
      L: round1(between(r, 40, 120)),
      W: round1(between(r, 30, 90)),
      H: round1(between(r, 15, 50)),
      t: round1(between(r, 1.5, 4)),
      off: 0,
      boss2: 0,
      window: 0,
    }),
    dims: ['L', 'W', 'H', 't'],
    shift: 'off',
    edits: ['t', 'H'],
    features: ['boss2'],
    detail: 'window',
    chiral: true,
    build(m, p, seg) {
      const { L, W, H, t, off, boss2, window } = p as Dims;
      let s = cut(m.Manifold.cube([L, W, H]), m.Manifold.cube([L - 2 * t, W - 2 * t, H]).translate(t, t, t));
      const bossR = Math.min(L, W) * 0.08;
      s = join(
        s,
        cut(m.Manifold.cylinder(H - t, bossR, bossR, seg), m.Manifold.cylinder(H, bossR * 0.45, bossR * 0.45, seg)).translate(
          t + bossR + 1 + off,
          t + bossR + 1,
          t - 0.01,
        ),
      );
      if (boss2)
        s = join(
          s,
          cut(m.Manifold.cylinder(H - t, bossR, bossR, seg), m.Manifold.cylinder(H, bossR * 0.45, bossR * 0.45, seg)).translate(
            L - t - bossR - 1,
            W - t - bossR - 1,
            t - 0.01,
          ),
        );
      if (window) s = cut(s, m.Manifold.cube([L * 0.3, t * 0.5, H * 0.3]).translate(L * 0.35, -0.01, H * 0.4));
      return s;
    },
  },
  {
    // Hinge leaf: a plate with knuckles along one edge and a hole pattern offset from the middle.
    name: 'hinge-leaf',
    draw: (r) => ({
      L: round1(between(r, 40, 120)),
      W: round1(between(r, 20, 45)),
      T: round1(between(r, 1.5, 4)),
      k: 2 + Math.floor(r() * 3),
      off: 0,
      hole3: 0,
      countersink: 0,
    }),
    dims: ['L', 'W', 'T'],
    shift: 'off',
    edits: ['T', 'W'],
    features: ['hole3'],
    detail: 'countersink',
    chiral: true,
    build(m, p, seg) {
      const { L, W, T, k, off, hole3, countersink } = p as Dims;
      let s = m.Manifold.cube([L, W, T]);
      const kr = T * 1.4,
        kl = L / (2 * k);
      for (let i = 0; i < k; i++)
        s = join(
          s,
          cut(m.Manifold.cylinder(kl * 0.95, kr, kr, seg), m.Manifold.cylinder(kl + 2, T * 0.6, T * 0.6, seg).translate(0, 0, -1))
            .rotate([0, 90, 0])
            .translate(2 * i * kl, -kr * 0.5, kr * 0.6),
        );
      const d = W * 0.18;
      const xs = [L * 0.2 + off, L * 0.62, ...(hole3 ? [L * 0.85] : [])];
      for (const x of xs) s = cut(s, hole(m, d / 2, T, seg).translate(x, W * 0.6, 0));
      if (countersink) s = cut(s, m.Manifold.cylinder(T * 0.5, d * 0.5, d * 0.9, seg).translate(L * 0.62, W * 0.6, T * 0.5 + 0.01));
      return s;
    },
  },
  {
    name: 'washer-spacer',
    draw: (r) => ({ D: round1(between(r, 10, 60)), d: round1(between(r, 0.3, 0.6)), H: round1(between(r, 1, 20)), flange: 0, chamfer: 0 }),
    dims: ['D', 'd', 'H'],
    edits: ['H'],
    features: ['flange'],
    detail: 'chamfer',
    chiral: false,
    build(m, p, seg) {
      const { D, d, H, flange, chamfer } = p as Dims;
      const R = D / 2,
        r = R * d;
      let s = cut(m.Manifold.cylinder(H, R, R, seg * 2), hole(m, r, H, seg * 2));
      if (flange) s = join(s, cut(m.Manifold.cylinder(H * 0.2 + 0.5, R * 1.4, R * 1.4, seg * 2), hole(m, r, H, seg * 2)));
      if (chamfer)
        s = cut(
          s,
          cut(m.Manifold.cylinder(H * 0.2, R + 1, R + 1, seg * 2), m.Manifold.cylinder(H * 0.2, R * 0.9, R + 1, seg * 2)).translate(
            0,
            0,
            H * 0.8 + 0.001,
          ),
        );
      return s;
    },
  },
  {
    name: 't-profile',
    draw: (r) => ({
      B: round1(between(r, 20, 60)),
      Hh: round1(between(r, 20, 60)),
      t: round1(between(r, 2, 6)),
      L: round1(between(r, 40, 200)),
      off: 0,
      slot: 0,
      notch: 0,
    }),
    dims: ['B', 'Hh', 't', 'L'],
    shift: 'off',
    edits: ['t', 'B'],
    features: ['slot'],
    detail: 'notch',
    chiral: true,
    build(m, p, seg) {
      const { B, Hh, t, L, off, slot, notch } = p as Dims;
      let s = extrudePolygon(
        m,
        [
          [-B / 2, Hh - t],
          [-t / 2, Hh - t],
          [-t / 2, 0],
          [t / 2, 0],
          [t / 2, Hh - t],
          [B / 2, Hh - t],
          [B / 2, Hh],
          [-B / 2, Hh],
        ],
        L,
      );
      s = cut(
        s,
        m.Manifold.cylinder(t + 2, B * 0.08, B * 0.08, seg)
          .rotate([-90, 0, 0])
          .translate(B * 0.25, Hh - t - 1, L * 0.3 + off),
      );
      if (slot) s = cut(s, m.Manifold.cube([t + 2, Hh * 0.3, L * 0.15]).translate(-t / 2 - 1, Hh * 0.2, L * 0.6));
      if (notch) s = cut(s, m.Manifold.cube([B * 0.2, t * 0.5, L * 0.1]).translate(-B / 2 - 0.01, Hh - t * 0.5 + 0.01, L * 0.8));
      return s;
    },
  },
  {
    // Disc cam: an eccentric disc with a bore and a drive pin hole.
    name: 'disc-cam',
    draw: (r) => ({
      R: round1(between(r, 15, 50)),
      e: round1(between(r, 0.1, 0.3)),
      T: round1(between(r, 4, 15)),
      b: round1(between(r, 0.15, 0.3)),
      off: 0,
      hub: 0,
      lighten: 0,
    }),
    dims: ['R', 'e', 'T', 'b'],
    shift: 'off',
    edits: ['T'],
    features: ['hub'],
    detail: 'lighten',
    chiral: false,
    build(m, p, seg) {
      const { R, e, T, b, off, hub, lighten } = p as Dims;
      let s = m.Manifold.cylinder(T, R, R, seg * 2).translate(R * e, 0, 0);
      s = cut(s, hole(m, R * b, T, seg), hole(m, R * 0.06, T, seg).translate(R * e, R * 0.55 + off, 0));
      if (hub)
        s = join(
          s,
          cut(
            m.Manifold.cylinder(T * 0.6, R * b * 1.8, R * b * 1.8, seg),
            m.Manifold.cylinder(T + 2, R * b, R * b, seg).translate(0, 0, -1),
          ).translate(0, 0, T - 0.01),
        );
      if (lighten) s = cut(s, m.Manifold.cylinder(T * 0.4, R * 0.22, R * 0.22, seg).translate(R * e * 2.2, -R * 0.35, T * 0.6 + 0.01));
      return s;
    },
  },
  {
    // A thin washer: its thickness is a few per cent of its diagonal, so a thickness change of
    // 5–15 % moves each face far less than the surface tolerance (the case the dimension test is for).
    name: 'thin-washer',
    draw: (r) => {
      const D = round1(between(r, 12, 45));
      return { D, d: round1(D * between(r, 0.35, 0.6)), T: round1(between(r, 0.8, 3)), tab: 0, notchd: 0 };
    },
    dims: ['D', 'd', 'T'],
    edits: ['T', 'd'],
    features: ['tab'],
    detail: 'notchd',
    chiral: false,
    build(m, p, seg) {
      const { D, d, T, tab, notchd } = p as Dims;
      const R = D / 2;
      let s = cut(m.Manifold.cylinder(T, R, R, seg * 2), m.Manifold.cylinder(T + 2, d / 2, d / 2, seg * 2).translate(0, 0, -1));
      if (tab) s = join(s, m.Manifold.cube([R * 0.5, R * 0.4, T]).translate(R * 0.9, -R * 0.2, 0));
      if (notchd) s = cut(s, m.Manifold.cube([R * 0.3, R * 0.12, T + 2]).translate(R * 0.8, -R * 0.06, -1));
      return s;
    },
  },
  {
    // A slender pin: its diameter is a few per cent of its length.
    name: 'slender-pin',
    draw: (r) => ({ L: round1(between(r, 60, 200)), d: round1(between(r, 3, 9)), h: round1(between(r, 0.6, 0.9)), groove: 0, flat: 0 }),
    dims: ['L', 'd', 'h'],
    edits: ['d'],
    features: ['groove'],
    detail: 'flat',
    chiral: false,
    build(m, p, seg) {
      const { L, d, h, groove, flat } = p as Dims;
      const r = d / 2;
      // A head at one end (1.6 × the diameter), a chamfered tip at the other.
      const prof: [number, number][] = [
        [0, 0],
        [r * 1.6, 0],
        [r * 1.6, d * h],
        [r, d * h],
        [r, L - r * 0.5],
        [r * 0.5, L],
        [0, L],
      ];
      let s = revolvePolygon(m, prof, seg);
      if (groove)
        s = cut(
          s,
          cut(m.Manifold.cylinder(r * 0.6, r + 1, r + 1, seg), m.Manifold.cylinder(r * 0.6, r * 0.75, r * 0.75, seg)).translate(
            0,
            0,
            L * 0.8,
          ),
        );
      if (flat) s = cut(s, m.Manifold.cube([r, d * 2, L * 0.2]).translate(r * 0.6, -d, L * 0.4));
      return s;
    },
  },
  {
    // A plate stiffened by thin ribs: a rib's thickness is under 2 % of the plate's diagonal.
    name: 'ribbed-plate',
    draw: (r) => ({
      L: round1(between(r, 80, 180)),
      W: round1(between(r, 50, 110)),
      T: round1(between(r, 2, 5)),
      t: round1(between(r, 1, 3)),
      H: round1(between(r, 8, 20)),
      ribs: 0,
      chamfer: 0,
    }),
    dims: ['L', 'W', 'T', 'H'],
    edits: ['t', 'T'],
    features: ['ribs'],
    detail: 'chamfer',
    chiral: true,
    build(m, p, seg) {
      const { L, W, T, t, H, ribs, chamfer } = p as Dims;
      let s = m.Manifold.cube([L, W, T]);
      // Three ribs along the length, off centre (so the plate is chiral), a fourth across with `ribs`.
      for (const y of [0.2, 0.45, 0.85]) s = join(s, m.Manifold.cube([L * 0.9, t, H]).translate(L * 0.05, W * y - t / 2, T - 0.01));
      if (ribs) s = join(s, m.Manifold.cube([t, W * 0.8, H]).translate(L * 0.3 - t / 2, W * 0.1, T - 0.01));
      s = cut(s, hole(m, Math.min(L, W) * 0.05, T, seg).translate(L * 0.02 + Math.min(L, W) * 0.06, W * 0.6, 0));
      // A square turned 45° about its centre on the corner: a chamfer cut across the corner (a
      // square with a corner at the plate's corner, as before, lay wholly outside it).
      if (chamfer)
        s = cut(
          s,
          m.Manifold.cube([L * 0.1, L * 0.1, T + 2], true)
            .rotate([0, 0, 45])
            .translate(L, W, T / 2),
        );
      return s;
    },
  },
];
