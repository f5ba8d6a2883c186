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
  it('gives the file’s triangles for binary and text STL, however the pieces fall', async () => {
    const { mesh } = await plateWithHoles();
    const expected = Array.from(mesh.indices, (v) => [0, 1, 2].map((k) => Math.fround(mesh.positions[3 * v + k]!))).flat();
    for (const bytes of [toStlBinary(mesh), toStlAscii(mesh)]) {
      const whole = await wholeRead(bytes);
      expect(Array.from(whole.positions)).toEqual(expected);
      for (const size of [1, 7, 49, 50, 51, 4096, bytes.length]) {
        const read = readInPieces(bytes, size);
        if (isImportError(read)) throw new Error(read.reason);
        expect(read.triangles, `pieces of ${size}`).toBe(whole.indices.length / 3);
        expect(read.corners, `pieces of ${size}`).toEqual(expected);
      }
    }
  });

  it('fails a cut or broken file with a sentence, read whole or in pieces', async () => {
    const { mesh } = await plateWithHoles();
    const binary = toStlBinary(mesh);
    const ascii = toStlAscii(mesh);
    const nan = binary.slice();
    new DataView(nan.buffer).setFloat32(84 + 50 * 3 + 16, NaN, true);
    const cases: [Uint8Array, RegExp][] = [
      [binary.subarray(0, binary.length - 30), /^The STL file ends before its \d+ triangles are complete \(only \d+ are there\)/],
      [ascii.subarray(0, Math.floor(ascii.length / 2)), /^The STL file ends in the middle of triangle \d+/],
      [nan, /invalid coordinate \(not a number or infinite\) in triangle 4\.$/],
    ];
    for (const [bytes, sentence] of cases) {
      for (const read of [readInPieces(bytes, 4096), await stlImporter.import(bytes, {})]) {
        if (!isImportError(read)) throw new Error('read a broken file');
        expect(read.code).toBe('failed');
        expect(read.reason).toMatch(sentence);
      }
    }
  });
});
