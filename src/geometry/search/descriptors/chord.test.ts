import { describe, expect, it } from 'vitest';
import type { Mesh } from '../../mesh/mesh';
import { faceNormals, weld } from '../../mesh/mesh-facts';
import { loadManifold, manifoldToMesh } from '../../testing/fixtures';
import { chordErrors } from './chord';

/**
 * An open n-gon tube of radius r and height h (welded). `sliver` splits each side facet into a
 * wide triangle, a middle one and a sliver along one of its bending edges, as boolean kernels cut
 * coarse curves; `needleAt` inserts a zero-width strip of two needles along that bending edge.
 */
function tube(
  n: number,
  r: number,
  h: number,
  o: { sliver?: boolean; needleAt?: number; far?: number } = {},
): { mesh: Mesh; side: number[]; sagitta: number } {
  const pos: number[] = [];
  const vertex = (x: number, y: number, z: number) => (pos.push(x, y, z), pos.length / 3 - 1);
  const bottom: number[] = [],
    top: number[] = [];
  for (let k = 0; k < n; k++) {
    const a = (2 * Math.PI * k) / n;
    bottom.push(vertex(r * Math.cos(a), r * Math.sin(a), 0));
    top.push(vertex(r * Math.cos(a), r * Math.sin(a), h));
  }
  const idx: number[] = [];
  const side: number[] = [];
  const tri = (a: number, b: number, c: number, isSide = true) => {
    if (isSide) side.push(idx.length / 3);
    idx.push(a, b, c);
  };
  // Where the needles go, the next facet starts from copies of the edge's ends moved outwards by a
  // hair: the needles' normals point along the curve, across both facets.
  const start = (k: number) => {
    if (k !== o.needleAt) return [bottom[k]!, top[k]!] as const;
    const a = (2 * Math.PI * k) / n,
      out = r + 1e-5;
    return [vertex(out * Math.cos(a), out * Math.sin(a), 0), vertex(out * Math.cos(a), out * Math.sin(a), h)] as const;
  };
  for (let k = 0; k < n; k++) {
    const [b0, t0] = start(k);
    const b1 = bottom[(k + 1) % n]!,
      t1 = top[(k + 1) % n]!;
    if (k === o.needleAt) {
      tri(bottom[k]!, b0, t0, false);
      tri(bottom[k]!, t0, top[k]!, false);
    }
    tri(b0, b1, t1);
    if (o.sliver) {
      // A vertex on the top edge a fifth of the way along: the sliver beside the bending edge at t0.
      const m = vertex(...([0, 1, 2].map((c) => 0.8 * pos[t0 * 3 + c]! + 0.2 * pos[t1 * 3 + c]!) as [number, number, number]));
      tri(b0, t1, m);
      tri(b0, m, t0);
    } else {
      tri(b0, t1, t0);
    }
  }
  if (o.far) {
    const v = vertex(o.far, 0, 0);
    tri(v, vertex(o.far, 1, 0), vertex(o.far, 0, 1), false);
  }
  return { mesh: { positions: Float32Array.from(pos), indices: Uint32Array.from(idx) }, side, sagitta: r * (1 - Math.cos(Math.PI / n)) };
}

describe('chord errors', () => {
  it("gives every triangle of a coarse curve its facet's sagitta, however the facet is cut", () => {
    const { mesh, side, sagitta } = tube(8, 10, 30, { sliver: true });
    const { chord } = chordErrors(mesh);
    for (const t of side) expect(chord[t]).toBeGreaterThan(0.9 * sagitta);
    for (const t of side) expect(chord[t]).toBeLessThan(1.2 * sagitta);
  });

  it("says which way each facet's curve bends: away from a shaft's normals, towards a bore's", () => {
    const { mesh, side } = tube(16, 10, 30);
    // Wound with normals outwards: the outside of a shaft.
    expect(side.map((t) => chordErrors(mesh).side[t])).toEqual(side.map(() => -1));
    // The same facets wound the other way: the wall of a bore, normals towards the axis.
    const flipped = { ...mesh, indices: Uint32Array.from(mesh.indices, (_, k) => mesh.indices[k - (k % 3) + (2 - (k % 3))]!) };
    expect(side.map((t) => chordErrors(flipped).side[t])).toEqual(side.map(() => 1));
  });

  it('sees two facets meet across a needle strip', () => {
    const { mesh, side, sagitta } = tube(8, 10, 30, { sliver: true, needleAt: 3 });
    const { chord } = chordErrors(mesh);
    for (const t of side) expect(chord[t]).toBeGreaterThan(0.9 * sagitta);
  });

  it('keeps the thin facets of a small hole in a large part', () => {
    // 56 facets 0.11 mm wide and 20 mm long, in a part 1 m across.
    const { mesh, side, sagitta } = tube(56, 1, 20, { far: 1000 });
    const { chord } = chordErrors(mesh);
    for (const t of side) expect(chord[t]).toBeGreaterThan(0.9 * sagitta);
  });

  it("does not pass a chamfered tip's 45° onto the shaft's strips as their curve's", async () => {
    // A pin 3 mm in radius and 100 mm long in 32 strips, its tip a cone from r to r/2 at 45°.
    const m = await loadManifold();
    const r = 3;
    const cs = new m.CrossSection([
      [
        [0, 0],
        [r, 0],
        [r, 100 - r / 2],
        [r / 2, 100],
        [0, 100],
      ],
    ]);
    const solid = cs.revolve(32);
    const mesh = weld(manifoldToMesh(solid)).mesh;
    solid.delete();
    cs.delete();
    const { chord, side } = chordErrors(mesh);
    const { normal } = faceNormals(mesh.positions, mesh.indices);
    const sagitta = r * (1 - Math.cos(Math.PI / 32));
    let strips = 0;
    for (let t = 0; t < mesh.indices.length / 3; t++) {
      if (Math.abs(normal[t * 3 + 2]!) > 0.01 || !side[t]) continue;
      strips++;
      // Where its curve is known, the shaft's chord error is its own sagitta (0.014 mm), not the tip's 0.2.
      expect(chord[t]).toBeLessThan(1.2 * sagitta);
    }
    expect(strips).toBeGreaterThanOrEqual(32);
  });
});
