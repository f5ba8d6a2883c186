import { count, defineImporter, failed, plural, type ImportedModel, type ImportError } from '../importer';
import { validateMesh } from '../validate';

/**
 * Object File Format (text): "OFF", counts "nv nf ne", nv vertex lines, nf face lines
 * "n i0 … i(n-1) [colour]". Variants with colours/normals/texture coordinates (COFF, NOFF,
 * STOFF...) keep x y z first, so only the first three numbers of a vertex line are used.
 */
export const offImporter = defineImporter('off', 'OFF', (bytes) => {
  const r = parseOff(new TextDecoder().decode(bytes));
  if ('code' in r) return r;
  return validateMesh(r, 'OFF') ?? r;
});

function parseOff(text: string): ImportedModel | ImportError {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/#.*/, '').trim());
  let i = 0;
  const next = (): string | undefined => {
    while (i < lines.length && lines[i] === '') i++;
    return lines[i++];
  };
  let first = next();
  if (first === undefined || !/^[A-Z]*OFF\b/.test(first)) return failed('The file does not start with "OFF", so it is not an OFF file.');
  if (/^[A-Z]*4[A-Z]*OFF|^[A-Z]*nOFF/.test(first))
    return failed('The OFF file is a higher-dimensional variant (4OFF/nOFF) that has no 3D surface.');
  // The counts may follow the keyword on the same line.
  first = first.replace(/^[A-Z]*OFF\s*/, '');
  const countsLine = first !== '' ? first : next();
  const counts = countsLine?.split(/\s+/).map(Number) ?? [];
  const nv = counts[0] ?? NaN;
  const nf = counts[1] ?? NaN;
  if (!Number.isInteger(nv) || !Number.isInteger(nf) || nv < 0 || nf < 0) {
    return failed('The OFF file does not say how many vertices and faces it has (second line should be "vertices faces edges").');
  }
  if (nf === 0) return failed(`The OFF file has ${plural(nv, 'vertex', 'vertices')} but no faces, so it has no surface to read.`);
  // A vertex line takes at least 6 bytes ("0 0 0\n"), a face line 8: counts beyond that are lies.
  if (nv * 6 + nf * 8 > text.length) {
    return failed(
      `The OFF file announces ${plural(nv, 'vertex', 'vertices')} and ${plural(nf, 'face')}, more than its ${count(text.length)} characters can hold: it is damaged or cut off.`,
    );
  }
  const positions = new Float32Array(nv * 3);
  for (let v = 0; v < nv; v++) {
    const l = next();
    if (l === undefined)
      return failed(`The OFF file ends after ${count(v)} of its ${plural(nv, 'vertex', 'vertices')}: it was probably cut off.`);
    const p = l.split(/\s+/);
    if (p.length < 3 && lines.slice(i).every((x) => x === '')) {
      return failed(`The OFF file ends in the middle of vertex ${count(v + 1)} of ${count(nv)}: it was probably cut off.`);
    }
    if (p.length < 3) return failed(`Vertex ${count(v + 1)} of the OFF file does not have three coordinates.`);
    positions[v * 3] = Number(p[0]);
    positions[v * 3 + 1] = Number(p[1]);
    positions[v * 3 + 2] = Number(p[2]);
  }
  const indices: number[] = [];
  for (let f = 0; f < nf; f++) {
    const l = next();
    if (l === undefined) return failed(`The OFF file ends after ${count(f)} of its ${plural(nf, 'face')}: it was probably cut off.`);
    const p = l.split(/\s+/).map(Number);
    const n = p[0] ?? 0;
    if (p.length < n + 1 && lines.slice(i).every((x) => x === '')) {
      return failed(`The OFF file ends in the middle of face ${count(f + 1)} of ${count(nf)}: it was probably cut off.`);
    }
    if (!Number.isInteger(n) || n < 3 || p.length < n + 1)
      return failed(`Face ${count(f + 1)} of the OFF file is malformed (it needs at least three corner numbers).`);
    for (let k = 1; k <= n; k++) {
      const idx = p[k]!;
      if (!Number.isInteger(idx) || idx < 0 || idx >= nv) {
        return failed(
          `Face ${count(f + 1)} of the OFF file refers to vertex ${p[k]}, but the file has only ${plural(nv, 'vertex', 'vertices')} (numbered from 0).`,
        );
      }
    }
    for (let k = 2; k < n; k++) indices.push(p[1]!, p[k]!, p[k + 1]!); // fan
  }
  return { positions, indices: Uint32Array.from(indices), units: 'unknown' };
}
