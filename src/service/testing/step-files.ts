// STEP files of a chosen size for benchmarks and tests, made of real B-rep content from the CAx-IF
// files occt-import-js ships (no large single part ships with any package).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const caxif = path.join(
  path.dirname(createRequire(import.meta.url).resolve('occt-import-js/package.json')),
  'test',
  'testfiles',
  'cax-if',
);

/**
 * A ~5 MB STEP of real B-rep content: copies of the largest CAx-IF file (as1-oc-214.stp, an
 * OpenCascade-written assembly of B-spline and analytic faces, 0.44 MB) one after another in one
 * file, entity ids renumbered. OpenCascade's cost grows linearly with the copies (≈ 0.55 s of
 * CPU each), so this measures its throughput on real CAD data; no 5 MB single part ships with
 * the package. The copies coincide in space (moving them apart would mean rewriting their
 * assembly placements), so after welding the mesh is non-manifold along every edge — a harder
 * case for our own steps than a real part, which the stage figures show.
 */
export function bigStep(targetBytes = 5_000_000): { bytes: Uint8Array; copies: number } {
  const text = readFileSync(path.join(caxif, 'as1-oc-214.stp'), 'latin1');
  const start = text.indexOf('DATA;') + 'DATA;'.length;
  const end = text.lastIndexOf('ENDSEC;');
  const data = text.slice(start, end);
  const maxId = Math.max(...[...data.matchAll(/#(\d+)/g)].map((m) => Number(m[1])));
  const copies = Math.max(1, Math.round(targetBytes / data.length));
  const parts: string[] = [];
  for (let k = 0; k < copies; k++) parts.push(data.replace(/#(\d+)/g, (_, n: string) => `#${Number(n) + k * maxId}`));
  const out = text.slice(0, start) + parts.join('\n') + text.slice(end);
  return { bytes: new Uint8Array(Buffer.from(out, 'latin1')), copies };
}
