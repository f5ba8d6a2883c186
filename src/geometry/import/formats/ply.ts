import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { count, defineImporter, failed, plural } from '../importer';
import { geometryToMesh, toArrayBuffer } from './three-adapter';
import { validateMesh } from '../validate';

/** PLY (ASCII and binary) through three's PLYLoader, given a real ArrayBuffer (see dependency notes). */
export const plyImporter = defineImporter('ply', 'PLY', (bytes) => {
  const header = readPlyHeader(bytes);
  if (typeof header === 'string') return failed(header);
  if (header.faces === 0) {
    return failed(`The PLY file holds ${plural(header.vertices, 'point')} but no faces: it is a point cloud, not a surface.`);
  }
  // The smallest a vertex (three 1-byte values) and a face (count + three 1-byte indices) can be;
  // a header announcing more than the bytes can hold would have the loader allocate for nothing.
  const minimum = header.format === 'ascii' ? header.vertices * 6 + header.faces * 8 : header.vertices * 3 + header.faces * 4;
  if (minimum > bytes.byteLength) {
    return failed(
      `The PLY file announces ${plural(header.vertices, 'vertex', 'vertices')} and ${plural(header.faces, 'face')}, more than its ${count(bytes.byteLength)} bytes can hold: it is damaged or cut off.`,
    );
  }
  let geometry;
  try {
    geometry = new PLYLoader().parse(toArrayBuffer(bytes));
  } catch {
    return failed(
      `The PLY file ends before its ${plural(header.vertices, 'vertex', 'vertices')} and ${plural(header.faces, 'face')} are complete: it was probably cut off.`,
    );
  }
  const mesh = geometryToMesh(geometry);
  geometry.dispose();
  const got = mesh.positions.length / 3;
  if (got < header.vertices) {
    return failed(
      `The PLY file announces ${plural(header.vertices, 'vertex', 'vertices')} but holds only ${count(got)}: it was probably cut off.`,
    );
  }
  if (mesh.indices.length / 3 < header.faces) {
    return failed(
      `The PLY file announces ${plural(header.faces, 'face')} but only ${count(mesh.indices.length / 3)} could be read: it was probably cut off, or it has faces with more than four corners.`,
    );
  }
  mesh.units = 'unknown';
  return validateMesh(mesh, 'PLY') ?? mesh;
});

interface PlyHeader {
  format: string;
  vertices: number;
  faces: number;
}

function readPlyHeader(bytes: Uint8Array): PlyHeader | string {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.byteLength, 64 * 1024)));
  if (!/^ply\r?\n/.test(head)) return 'The file does not start with "ply", so it is not a PLY file.';
  const end = head.search(/end_header\r?\n/);
  if (end < 0) return 'The PLY file has no complete header (no "end_header" line): it was probably cut off.';
  const lines = head.slice(0, end).split(/\r?\n/);
  const format = lines.find((l) => l.startsWith('format '))?.split(/\s+/)[1] ?? '';
  if (!['ascii', 'binary_little_endian', 'binary_big_endian'].includes(format)) return `The PLY file uses an unknown format "${format}".`;
  let vertices = 0;
  let faces = 0;
  for (const l of lines) {
    const m = /^element\s+(\w+)\s+(\d+)/.exec(l);
    if (m?.[1] === 'vertex') vertices = Number(m[2]);
    if (m?.[1] === 'face') faces = Number(m[2]);
  }
  if (vertices === 0) return 'The PLY file contains no vertices.';
  return { format, vertices, faces };
}
