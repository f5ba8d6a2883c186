// Binary STL files of any size, written a piece at a time (never held whole): a closed ring with
// a wavy section, tessellated as finely as asked. For the large-file tests and benchmark.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Mesh } from '../../geometry/mesh/mesh';

/** The ring's tessellation that has about `triangles` triangles (2 per grid cell). */
export function ringGrid(triangles: number): { around: number; section: number } {
  const section = Math.max(8, Math.round(Math.sqrt(triangles / 2 / 8)));
  return { around: Math.max(8, Math.round(triangles / 2 / section)), section };
}

function ringPoint(around: number, section: number, i: number, j: number): [number, number, number] {
  const u = (2 * Math.PI * (i % around)) / around;
  const v = (2 * Math.PI * (j % section)) / section;
  const r = 12 * (1 + 0.12 * Math.sin(5 * v));
  const R = 48 + r * Math.cos(v);
  return [R * Math.cos(u), R * Math.sin(u), r * Math.sin(v)];
}

/** The same ring as an indexed mesh held in memory (for OBJ, PLY and the like; sizes tests can hold). */
export function ringMesh(triangles: number): Mesh {
  const { around, section } = ringGrid(triangles);
  const positions = new Float32Array(3 * around * section);
  const indices = new Uint32Array(6 * around * section);
  const at = (i: number, j: number) => (i % around) * section + (j % section);
  for (let i = 0; i < around; i++) {
    for (let j = 0; j < section; j++) {
      positions.set(ringPoint(around, section, i, j), 3 * at(i, j));
      indices.set([at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1)], 6 * at(i, j));
    }
  }
  return { positions, indices, units: 'mm' };
}

/** Bytes of the binary STL writeBigStl writes for `triangles`. */
export function bigStlBytes(triangles: number): number {
  const { around, section } = ringGrid(triangles);
  return 84 + 50 * 2 * around * section;
}

/**
 * Writes a closed, outward-facing ring (outer radius 60, tube radius 12 with five waves around
 * its section, in millimetres) as binary STL to `file`. ASCII when `ascii` is set.
 */
export async function writeBigStl(file: string, triangles: number, { ascii = false } = {}): Promise<{ triangles: number; bytes: number }> {
  const { around, section } = ringGrid(triangles);
  const count = 2 * around * section;
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (chunk: Buffer | string) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const point = (i: number, j: number) => ringPoint(around, section, i, j);
  if (ascii) await write('solid ring\n');
  else {
    const header = Buffer.alloc(84);
    header.write('binary STL written by service/testing/big-stl');
    header.writeUInt32LE(count, 80);
    await write(header);
  }
  const perChunk = 20_000;
  let buffer = ascii ? '' : Buffer.alloc(50 * perChunk);
  let inBuffer = 0;
  const flush = async () => {
    if (inBuffer === 0) return;
    await write(typeof buffer === 'string' ? buffer : Buffer.from(buffer.subarray(0, 50 * inBuffer)));
    if (typeof buffer === 'string') buffer = '';
    else buffer = Buffer.alloc(50 * perChunk);
    inBuffer = 0;
  };
  const triangle = async (a: number[], b: number[], c: number[]) => {
    if (typeof buffer === 'string') {
      buffer += ` facet normal 0 0 0\n  outer loop\n${[a, b, c].map((p) => `   vertex ${p[0]} ${p[1]} ${p[2]}\n`).join('')}  endloop\n endfacet\n`;
    } else {
      const o = 50 * inBuffer;
      [...a, ...b, ...c].forEach((x, k) => (buffer as Buffer).writeFloatLE(x, o + 12 + 4 * k));
    }
    if (++inBuffer === perChunk) await flush();
  };
  for (let i = 0; i < around; i++) {
    for (let j = 0; j < section; j++) {
      const p00 = point(i, j);
      const p10 = point(i + 1, j);
      const p01 = point(i, j + 1);
      const p11 = point(i + 1, j + 1);
      await triangle(p00, p10, p11);
      await triangle(p00, p11, p01);
    }
  }
  await flush();
  if (ascii) await write('endsolid ring\n');
  out.end();
  await once(out, 'finish');
  return { triangles: count, bytes };
}

/**
 * The same ring as indexed OBJ or binary PLY, written a piece at a time: its vertices, then its
 * faces (two triangles per grid cell, as ringMesh numbers them).
 */
export async function writeBigIndexed(
  file: string,
  triangles: number,
  format: 'obj' | 'ply',
): Promise<{ triangles: number; bytes: number }> {
  const { around, section } = ringGrid(triangles);
  const vertices = around * section;
  const count = 2 * vertices;
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (chunk: Buffer | string) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const at = (i: number, j: number) => (i % around) * section + (j % section);
  if (format === 'ply') {
    await write(
      `ply\nformat binary_little_endian 1.0\ncomment written by service/testing/big-stl\nelement vertex ${vertices}\nproperty float x\nproperty float y\nproperty float z\nelement face ${count}\nproperty list uchar int vertex_indices\nend_header\n`,
    );
  } else await write('# written by service/testing/big-stl\no ring\n');
  const rows = Math.max(1, Math.floor(100_000 / section));
  for (let i0 = 0; i0 < around; i0 += rows) {
    const i1 = Math.min(around, i0 + rows);
    if (format === 'ply') {
      const chunk = Buffer.alloc(12 * (i1 - i0) * section);
      let o = 0;
      for (let i = i0; i < i1; i++)
        for (let j = 0; j < section; j++) for (const v of ringPoint(around, section, i, j)) o = chunk.writeFloatLE(v, o);
      await write(chunk);
    } else {
      let text = '';
      for (let i = i0; i < i1; i++) for (let j = 0; j < section; j++) text += `v ${ringPoint(around, section, i, j).join(' ')}\n`;
      await write(text);
    }
  }
  for (let i0 = 0; i0 < around; i0 += rows) {
    const i1 = Math.min(around, i0 + rows);
    const faces: number[][] = [];
    for (let i = i0; i < i1; i++) {
      for (let j = 0; j < section; j++) {
        faces.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)], [at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
      }
    }
    if (format === 'ply') {
      const chunk = Buffer.alloc(13 * faces.length);
      let o = 0;
      for (const f of faces) {
        o = chunk.writeUInt8(3, o);
        for (const k of f) o = chunk.writeInt32LE(k, o);
      }
      await write(chunk);
    } else {
      await write(faces.map((f) => `f ${f[0]! + 1} ${f[1]! + 1} ${f[2]! + 1}\n`).join(''));
    }
  }
  out.end();
  await once(out, 'finish');
  return { triangles: count, bytes };
}
