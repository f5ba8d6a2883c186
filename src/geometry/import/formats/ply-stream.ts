import { count, failed, plural, type ImportError } from '../importer';
import { finite, lineReader, VertexList, type MeshStream, type TriangleSink } from './mesh-stream';

/**
 * PLY (text and binary, either byte order) a piece at a time, for files too large for three's
 * PLYLoader (ply.ts), which needs the whole file: vertices are kept, each face is cut into a fan of
 * triangles as the loader cuts it. Any other element or property is read past.
 */
export function plyStream(head: Uint8Array, sink: TriangleSink): MeshStream | ImportError {
  const header = parseHeader(head);
  if (typeof header === 'string') return failed(header);
  const { format, elements, bytes: headerBytes } = header;
  const vertexCount = elements.find((e) => e.name === 'vertex')?.count ?? 0;
  const faceCount = elements.find((e) => e.name === 'face')?.count ?? 0;
  if (vertexCount === 0) return failed('The PLY file contains no vertices.');
  if (faceCount === 0)
    return failed(`The PLY file holds ${plural(vertexCount, 'point')} but no faces: it is a point cloud, not a surface.`);

  const corners = new Float32Array(9);
  const vertices = new VertexList();
  let element = 0; // index into elements
  let done = 0; // records of that element read
  let faces = 0;
  let triangles = 0;
  const xyz = [0, 0, 0];
  const refs: number[] = [];

  /** One record's values, in property order (a list: its values, after its count). */
  const record = (read: (type: string) => number | undefined): ImportError | 'wait' | undefined => {
    const e = elements[element]!;
    const isVertex = e.name === 'vertex';
    const isFace = e.name === 'face';
    refs.length = 0;
    for (const p of e.properties) {
      if (p.list) {
        const n = read(p.list.count);
        if (n === undefined) return 'wait';
        for (let i = 0; i < n; i++) {
          const v = read(p.list.item);
          if (v === undefined) return 'wait';
          if (isFace && (p.name === 'vertex_indices' || p.name === 'vertex_index')) refs.push(v);
        }
      } else {
        const v = read(p.type!);
        if (v === undefined) return 'wait';
        if (isVertex) {
          const axis = p.name === 'x' ? 0 : p.name === 'y' ? 1 : p.name === 'z' ? 2 : -1;
          if (axis >= 0) xyz[axis] = v;
        }
      }
    }
    if (isVertex) vertices.push(xyz[0]!, xyz[1]!, xyz[2]!);
    if (isFace) {
      faces++;
      for (const r of refs) {
        if (!(r >= 0 && r < vertexCount && r < vertices.count)) {
          return failed(
            `Face ${count(faces)} of the PLY file refers to vertex ${count(r)}, but the file has only ${plural(vertices.count, 'vertex', 'vertices')} before it.`,
          );
        }
      }
      for (let j = 1; j + 1 < refs.length; j++) {
        vertices.copy(refs[0]!, corners, 0);
        vertices.copy(refs[j]!, corners, 1);
        vertices.copy(refs[j + 1]!, corners, 2);
        if (!finite(corners)) return failed(`Face ${count(faces)} of the PLY file has a corner whose coordinates are not numbers.`);
        triangles++;
        sink(corners);
      }
    }
    if (++done === e.count) {
      element++;
      done = 0;
    }
    return undefined;
  };
  const finished = () => element >= elements.length;

  let skip = headerBytes;
  let feed: (chunk: Uint8Array) => ImportError | undefined;
  let flush = (): ImportError | undefined => undefined;
  if (format === 'ascii') {
    const text = lineReader((lines) => {
      for (const line of lines.split(/\r?\n|\r/)) {
        if (finished()) return undefined;
        const words = line.trim().split(/\s+/);
        if (words.length === 1 && words[0] === '') continue;
        let at = 0;
        const error = record(() => (at < words.length ? Number(words[at++]) : undefined));
        if (error === 'wait')
          return failed(`A line of the PLY file's ${elements[element]!.name} list is short of values: "${line.trim().slice(0, 60)}".`);
        if (error) return error;
      }
      return undefined;
    }, 'PLY');
    feed = text.feed;
    flush = text.end;
  } else {
    const little = format === 'binary_little_endian';
    let pending = new Uint8Array(0);
    feed = (chunk) => {
      const data = pending.length ? concat(pending, chunk) : chunk;
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      let at = 0;
      for (;;) {
        if (finished()) break;
        const start = at;
        const error = record((type) => {
          const [size, read] = TYPES[type]!;
          if (at + size > data.length) return undefined;
          const v = read(view, at, little);
          at += size;
          return v;
        });
        if (error === 'wait') {
          at = start;
          break;
        }
        if (error) return error;
      }
      pending = finished() ? new Uint8Array(0) : data.slice(at);
      return undefined;
    };
  }
  return {
    feed(chunk) {
      if (skip > 0) {
        const take = Math.min(skip, chunk.length);
        skip -= take;
        chunk = chunk.subarray(take);
      }
      return chunk.length ? feed(chunk) : undefined;
    },
    end() {
      const error = flush();
      if (error) return error;
      if (elements.slice(element).some((e) => e.name === 'vertex' || e.name === 'face')) {
        return failed(
          `The PLY file ends before its ${plural(vertexCount, 'vertex', 'vertices')} and ${plural(faceCount, 'face')} are complete: it was probably cut off.`,
        );
      }
      return { triangles, warnings: [] };
    },
  };
}

interface Property {
  name: string;
  type?: string;
  list?: { count: string; item: string };
}

interface Element {
  name: string;
  count: number;
  properties: Property[];
}

type Read = (view: DataView, at: number, little: boolean) => number;
const int8: Read = (v, a) => v.getInt8(a);
const uint8: Read = (v, a) => v.getUint8(a);
const int16: Read = (v, a, l) => v.getInt16(a, l);
const uint16: Read = (v, a, l) => v.getUint16(a, l);
const int32: Read = (v, a, l) => v.getInt32(a, l);
const uint32: Read = (v, a, l) => v.getUint32(a, l);
const float32: Read = (v, a, l) => v.getFloat32(a, l);
const float64: Read = (v, a, l) => v.getFloat64(a, l);

/** PLY's scalar types, both spellings: size in bytes and how to read one. */
const TYPES: Record<string, [number, Read]> = {
  char: [1, int8],
  int8: [1, int8],
  uchar: [1, uint8],
  uint8: [1, uint8],
  short: [2, int16],
  int16: [2, int16],
  ushort: [2, uint16],
  uint16: [2, uint16],
  int: [4, int32],
  int32: [4, int32],
  uint: [4, uint32],
  uint32: [4, uint32],
  float: [4, float32],
  float32: [4, float32],
  double: [8, float64],
  float64: [8, float64],
};

function parseHeader(head: Uint8Array): { format: string; elements: Element[]; bytes: number } | string {
  const text = new TextDecoder('latin1').decode(head.subarray(0, Math.min(head.byteLength, 64 * 1024)));
  if (!/^ply\r?\n/.test(text)) return 'The file does not start with "ply", so it is not a PLY file.';
  const end = /end_header\r?\n/.exec(text);
  if (!end) return 'The PLY file has no complete header (no "end_header" line): it was probably cut off.';
  const lines = text.slice(0, end.index).split(/\r?\n/);
  const format = lines.find((l) => l.startsWith('format '))?.split(/\s+/)[1] ?? '';
  if (!['ascii', 'binary_little_endian', 'binary_big_endian'].includes(format)) return `The PLY file uses an unknown format "${format}".`;
  const elements: Element[] = [];
  for (const line of lines) {
    const words = line.trim().split(/\s+/);
    if (words[0] === 'element') elements.push({ name: words[1] ?? '', count: Number(words[2]), properties: [] });
    else if (words[0] === 'property') {
      const e = elements.at(-1);
      if (!e) return 'The PLY file names a property before any element.';
      const property: Property =
        words[1] === 'list'
          ? { name: words[4] ?? '', list: { count: words[2] ?? '', item: words[3] ?? '' } }
          : { name: words[2] ?? '', type: words[1] ?? '' };
      for (const type of property.list ? [property.list.count, property.list.item] : [property.type!]) {
        if (!(type in TYPES)) return `The PLY file's property "${property.name}" has an unknown type "${type}".`;
      }
      e.properties.push(property);
    }
  }
  if (elements.some((e) => !Number.isInteger(e.count) || e.count < 0))
    return 'The PLY file has an element whose count is not a whole number.';
  return { format, elements, bytes: end.index + end[0].length };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
