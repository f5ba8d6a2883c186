/**
 * `npx tsx src/bench/outer-surface.ts`: CPU of the outer-surface step (descriptors/outer-surface.ts)
 * on generated parts of about 4k, 16k, 64k and 256k triangles, against its budget of 1 s at 64k
 * triangles, and how it scales (the exponent of time against triangles between sizes).
 * Parts: a slender bar (1,280 × 30 × 30 mm) drilled with many small holes, so its long faces are
 * tessellated into long thin triangles as a STEP export's are, with a pin in one hole (a second
 * body); the same bar cut in two bodies along an oblique plane (the cut's two faces kept, the part
 * turned off the axes); and a compact block cut in two with an enclosed inner body.
 * Knobs: OUTER_SURFACE_SIZES (triangle targets, comma-separated; default 4000,16000,64000,256000),
 * OUTER_SURFACE_RUNS (timed runs per mesh, median; default 3, one for meshes over 100k triangles),
 * OUTER_SURFACE_FAMILIES (only these parts, by index: 0 bar + pin, 1 cut bar, 2 block).
 */
import type { Manifold, ManifoldToplevel } from 'manifold-3d';
import { randomRigid } from '../geometry/testing/benchmark-dataset';
import { outerSurface as current, type OuterSurface } from '../geometry/search/descriptors/outer-surface';
import { prng } from '../geometry/search/descriptors/sampling';
import { loadManifold, manifoldToMesh } from '../geometry/testing/fixtures';
import { applyToMesh, mergeMeshes, type Mesh } from '../geometry/mesh/mesh';
import { weld } from '../geometry/mesh/mesh-facts';
import { chordErrors } from '../geometry/search/descriptors/chord';

const BUDGET_S = 1;
const BUDGET_TRIANGLES = 64_000;

/** Drills `holes` vertical holes (and as many across) of `segments` sides along the solid's x. */
function drilled(m: ManifoldToplevel, solid: Manifold, size: [number, number, number], holes: number, segments: number): Manifold {
  const parts: Manifold[] = [];
  const pitch = size[0] / (holes + 1);
  const d = Math.min(0.35 * pitch, 0.15 * Math.min(size[1], size[2]));
  for (let i = 0; i < holes; i++) {
    const x = pitch * (i + 1);
    // Alternately through the height and through the width, off the centre line.
    const off = ((i % 5) - 2) * 0.12;
    if (i % 2 === 0) parts.push(m.Manifold.cylinder(size[2] + 2, d / 2, d / 2, segments).translate([x, size[1] * (0.5 + off), -1]));
    else
      parts.push(
        m.Manifold.cylinder(size[1] + 2, d / 2, d / 2, segments)
          .rotate([-90, 0, 0])
          .translate([x, -1, size[2] * (0.5 + off)]),
      );
  }
  const tools = m.Manifold.union(parts);
  const out = solid.subtract(tools);
  tools.delete();
  for (const p of parts) p.delete();
  return out;
}

type Family = 'bar + pin' | 'bar cut in two, turned' | 'block cut in two + inner body';

/** A part of `family` with about `target` triangles (holes scaled to reach it). */
async function part(family: Family, target: number): Promise<Mesh> {
  const m = await loadManifold();
  const bar = family !== 'block cut in two + inner body';
  const size: [number, number, number] = bar ? [1280, 30, 30] : [100, 60, 40];
  const segments = 24;
  // About 4·segments triangles per hole (its wall, and its rims in the faces' triangulation).
  const holes = Math.max(1, Math.round(target / (4 * segments)));
  const block = m.Manifold.cube(size);
  const solid = drilled(m, block, size, holes, segments);
  block.delete();
  const rand = prng(holes);
  let mesh: Mesh;
  if (family === 'bar + pin') {
    // A pin pressed into the first hole (overlapping its wall a little): a second body.
    const pitch = size[0] / (holes + 1);
    const d = Math.min(0.35 * pitch, 0.15 * Math.min(size[1], size[2]));
    const pin = m.Manifold.cylinder(size[2] + 10, d / 2 + 0.01, d / 2 + 0.01, segments).translate([pitch, size[1] * (0.5 - 0.24), -5]);
    mesh = mergeMeshes([manifoldToMesh(solid), manifoldToMesh(pin)]);
    pin.delete();
  } else {
    const [x, y] = solid.splitByPlane(bar ? [1, 0.3, 0.2] : [0.3, 1, 0.2], bar ? 640 : 30);
    const parts = [manifoldToMesh(x), manifoldToMesh(y)];
    x.delete();
    y.delete();
    if (!bar) {
      const inner = m.Manifold.cube([8, 8, 8]).translate([46, 10, 16]);
      parts.push(manifoldToMesh(inner));
      inner.delete();
    }
    mesh = bar ? applyToMesh(mergeMeshes(parts), randomRigid(rand, 50)) : mergeMeshes(parts);
  }
  solid.delete();
  return weld(mesh).mesh;
}

function cpuSeconds(f: () => void): number {
  const c = process.cpuUsage();
  f();
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1e6;
}

function time(fn: (mesh: Mesh) => OuterSurface, mesh: Mesh, runs: number): { s: number; out: OuterSurface } {
  let out = fn(mesh);
  const ts: number[] = [];
  for (let i = 0; i < runs; i++) ts.push(cpuSeconds(() => (out = fn(mesh))));
  return { s: ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)]!, out };
}

/** The bench's part of family `index` (see OUTER_SURFACE_FAMILIES) with about `target` triangles. */
export const partMesh = (index: number, target: number) =>
  part((['bar + pin', 'bar cut in two, turned', 'block cut in two + inner body'] as const)[index]!, target);

async function main() {
  const sizes = (process.env.OUTER_SURFACE_SIZES ?? '4000,16000,64000,256000').split(',').map(Number);
  const all: Family[] = ['bar + pin', 'bar cut in two, turned', 'block cut in two + inner body'];
  const only = process.env.OUTER_SURFACE_FAMILIES?.split(',').map(Number);
  const families = only ? all.filter((_, i) => only.includes(i)) : all;
  console.log(`outer surface: CPU seconds (median), budget ${BUDGET_S} s at ${BUDGET_TRIANGLES.toLocaleString('en-US')} triangles`);
  for (const family of families) {
    const rows: { tri: number; s: number }[] = [];
    for (const target of sizes) {
      const mesh = await part(family, target);
      const tri = mesh.indices.length / 3;
      const runs = Number(process.env.OUTER_SURFACE_RUNS ?? (tri > 100_000 ? 1 : 3));
      // With the chord errors ingestion passes (computed before, not timed: ingestion has them).
      const curves = chordErrors(mesh);
      const { s, out } = time((m) => current(m, curves), mesh, runs);
      rows.push({ tri, s });
      const perBudget = (s * BUDGET_TRIANGLES) / tri / BUDGET_S;
      console.log(
        `  ${family.padEnd(30)} ${tri.toLocaleString('en-US').padStart(8)} triangles  ${s.toFixed(3).padStart(8)} s  (${perBudget.toFixed(3)} × budget scaled to 64k)  hidden ${(100 * out.hiddenShare).toFixed(2)} %, ${(out.mesh.indices.length / 3).toLocaleString('en-US')} out`,
      );
    }
    const exps = rows.slice(1).map((r, i) => Math.log(r.s / rows[i]!.s) / Math.log(r.tri / rows[i]!.tri));
    console.log(
      `  ${family}: scaling exponent between sizes ${exps.map((e) => e.toFixed(2)).join(', ')}; overall ${(Math.log(rows.at(-1)!.s / rows[0]!.s) / Math.log(rows.at(-1)!.tri / rows[0]!.tri)).toFixed(2)}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
