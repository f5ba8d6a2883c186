import { describe, expect, it } from 'vitest';
import { plateWithHoles, toStlAscii, toStlBinary } from '../../testing/fixtures';
import { isImportError, type ImportedModel } from '../importer';
import { stlStream } from './stl-stream';
import { stlImporter } from './stl';

/** The triangles a piecewise read delivers, fed in pieces of `size` bytes. */
function readInPieces(bytes: Uint8Array, size: number) {
  const corners: number[] = [];
  const reader = stlStream(bytes.subarray(0, 1024), bytes.length, (p) => corners.push(...p));
  if (isImportError(reader)) return reader;
  for (let at = 0; at < bytes.length; at += size) {
    const error = reader.feed(bytes.slice(at, at + size));
    if (error) return error;
  }
  const end = reader.end();
  return isImportError(end) ? end : { ...end, corners };
}

async function wholeRead(bytes: Uint8Array): Promise<ImportedModel> {
  const model = await stlImporter.import(bytes, {});
  if (isImportError(model)) throw new Error(model.reason);
  return model;
}

describe('STL read a piece at a time', () => {
  it('gives the whole-file reader’s triangles for binary and text STL, however the pieces fall', async () => {
    const { mesh } = await plateWithHoles();
    for (const bytes of [toStlBinary(mesh), toStlAscii(mesh)]) {
      const whole = await wholeRead(bytes);
      const expected = Array.from(whole.indices, (v) => [0, 1, 2].map((k) => whole.positions[3 * v + k]!)).flat();
      for (const size of [1, 7, 49, 50, 51, 4096, bytes.length]) {
        const read = readInPieces(bytes, size);
        if (isImportError(read)) throw new Error(read.reason);
        expect(read.triangles, `pieces of ${size}`).toBe(whole.indices.length / 3);
        expect(read.corners, `pieces of ${size}`).toEqual(expected);
      }
    }
  });

  it('fails a cut or broken file with the whole-file reader’s sentence', async () => {
    const { mesh } = await plateWithHoles();
    const binary = toStlBinary(mesh);
    const ascii = toStlAscii(mesh);
    const nan = binary.slice();
    new DataView(nan.buffer).setFloat32(84 + 50 * 3 + 16, NaN, true);
    for (const bytes of [binary.subarray(0, binary.length - 30), ascii.subarray(0, Math.floor(ascii.length / 2)), nan]) {
      const read = readInPieces(bytes, 4096);
      expect(isImportError(read)).toBe(true);
      if (!isImportError(read)) continue;
      expect(read.code).toBe('failed');
      const whole = await stlImporter.import(bytes, {});
      if (isImportError(whole) && bytes !== nan) expect(read.reason).toBe(whole.reason);
      else expect(read.reason).toMatch(/invalid coordinate .* triangle 4/);
    }
  });
});
