import { describe, expect, it } from 'vitest';
import { plateWithHoles, toObj, toPly, toStlAscii, toStlBinary } from '../../testing/fixtures';
import { isImportError, type ImportedModel, type ImportError } from '../importer';
import type { MeshStream, TriangleSink } from './mesh-stream';
import { objStream } from './obj-stream';
import { objImporter } from './obj';
import { plyStream } from './ply-stream';
import { plyImporter } from './ply';
import { stlStream } from './stl-stream';
import { stlImporter } from './stl';

type Open = (head: Uint8Array, total: number, sink: TriangleSink) => MeshStream | ImportError;
const openStl: Open = stlStream;
const openObj: Open = (_h, _t, sink) => objStream(sink);
const openPly: Open = (head, _t, sink) => plyStream(head, sink);

/** The triangles a piecewise read delivers, fed in pieces of `size` bytes. */
function readInPieces(bytes: Uint8Array, size: number, open: Open = openStl) {
  const corners: number[] = [];
  const reader = open(bytes.subarray(0, 64 * 1024), bytes.length, (p) => corners.push(...p));
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

/** A mesh's triangles as the corners a whole-file importer gives (for OBJ and PLY, through three's loaders). */
async function cornersOf(importer: typeof objImporter, bytes: Uint8Array): Promise<number[]> {
  const m = await importer.import(bytes, {});
  if (isImportError(m)) throw new Error(m.reason);
  return Array.from(m.indices, (v) => [0, 1, 2].map((k) => m.positions[3 * v + k]!)).flat();
}

const quads = {
  obj: new TextEncoder().encode('v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\r\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\nf -5 -4 -1\n'),
  ply: new TextEncoder().encode(
    'ply\nformat ascii 1.0\ncomment quads\nelement vertex 5\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nelement face 2\nproperty list uchar int vertex_indices\nproperty int flags\nend_header\n0 0 0 1\n1 0 0 2\n1 1 0 3\n0 1 0 4\n0 0 1 5\n4 0 1 2 3 7\n3 0 1 4 0\n',
  ),
};

describe('OBJ and PLY read a piece at a time', () => {
  it('give the triangles of three’s loaders, fans of polygons included, however the pieces fall', async () => {
    const { mesh } = await plateWithHoles();
    const cases: [Uint8Array, Open, typeof objImporter][] = [
      [toObj(mesh), openObj, objImporter],
      [quads.obj, openObj, objImporter],
      [toPly(mesh), openPly, plyImporter],
      [toPly(mesh, 'ascii'), openPly, plyImporter],
      [quads.ply, openPly, plyImporter],
    ];
    for (const [bytes, open, importer] of cases) {
      const expected = await cornersOf(importer, bytes);
      for (const size of [1, 13, 4096, bytes.length]) {
        const read = readInPieces(bytes, size, open);
        if (isImportError(read)) throw new Error(read.reason);
        expect(read.corners, `pieces of ${size}`).toEqual(expected);
      }
    }
  });

  it('fails a cut or broken file with a sentence', async () => {
    const { mesh } = await plateWithHoles();
    const ply = toPly(mesh);
    const cases: [Uint8Array, Open, RegExp][] = [
      [ply.subarray(0, ply.length - 7), openPly, /^The PLY file ends before its \d+ vertices and \d+ faces are complete/],
      [
        new TextEncoder().encode('v 0 0 0\nv 1 0 0\nf 1 2 3\n'),
        openObj,
        /^Face 1 \(line 3\) of the OBJ file refers to vertex 3, but only 2 vertices are defined before it\.$/,
      ],
      [new TextEncoder().encode('v 0 0 0\nv 1 0 0\n'), openObj, /has 2 points but no faces/],
      [
        new TextEncoder().encode(
          'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n',
        ),
        openPly,
        /point cloud/,
      ],
    ];
    for (const [bytes, open, sentence] of cases) {
      const read = readInPieces(bytes, 1000, open);
      if (!isImportError(read)) throw new Error('read a broken file');
      expect(read.reason).toMatch(sentence);
    }
  });
});
