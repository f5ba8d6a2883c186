import { count, failed, plural, type ImportError } from '../importer';

// STL read a piece at a time: files too large to hold are fed from disk (service/ingest/
// large-mesh.ts), a whole file in one piece (stl.ts). Own parser rather than three's STLLoader:
// the loader cannot tell a cut-off file from a valid one (it throws a RangeError or reads a binary
// header starting with "solid" as text).

const STL_HEADER = 84;
const STL_RECORD = 50;

/** Binary when the size formula holds (84 + 50 × triangles), whatever the header says. */
function isStlBinaryOfSize(head: Uint8Array, totalBytes: number): boolean {
  if (head.byteLength < STL_HEADER) return false;
  const n = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true);
  return STL_HEADER + n * STL_RECORD === totalBytes;
}

/** Starts with "solid" and has no NUL in its first KiB (`bytes` may be only the file's start). */
function looksAsciiStl(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.byteLength, 1024)));
  if (!/^\s*(\uFEFF)?solid/i.test(head.replace(/^\u00EF\u00BB\u00BF/, ''))) return false;
  // Binary exporters like to write "solid <name>" into the 80-byte header too; text has no NULs.
  for (let i = 0; i < Math.min(bytes.byteLength, 1024); i++) if (bytes[i] === 0) return false;
  return true;
}

import { finite, lineReader, type MeshStream, type TriangleSink } from './mesh-stream';

/** `head` is the file's first bytes (at least 1 KiB when the file is that long), `totalBytes` its size. */
export function stlStream(head: Uint8Array, totalBytes: number, sink: TriangleSink): MeshStream | ImportError {
  if (isStlBinaryOfSize(head, totalBytes)) return binaryStream(head, totalBytes, sink);
  if (looksAsciiStl(head)) return asciiStream(sink);
  return binaryStream(head, totalBytes, sink);
}

function binaryStream(head: Uint8Array, totalBytes: number, sink: TriangleSink): MeshStream | ImportError {
  if (totalBytes < STL_HEADER) {
    return failed(`The STL file is only ${plural(totalBytes, 'byte')} long, shorter than the 84-byte header every binary STL starts with.`);
  }
  const n = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true);
  const expected = STL_HEADER + n * STL_RECORD;
  if (n === 0) return failed('The STL file says it contains no triangles.');
  if (totalBytes < expected) {
    const present = Math.floor((totalBytes - STL_HEADER) / STL_RECORD);
    return failed(
      `The STL file ends before its ${count(n)} triangles are complete (only ${count(present)} are there): the file was probably cut off while copying or uploading.`,
    );
  }
  const corners = new Float32Array(9);
  const carry = new Uint8Array(STL_RECORD);
  let carried = 0;
  let offset = 0; // bytes of the file seen so far
  let done = 0;
  const record = (view: DataView, at: number) => {
    for (let k = 0; k < 9; k++) corners[k] = view.getFloat32(at + 12 + k * 4, true); // the facet normal is skipped: winding defines it
    if (!finite(corners)) return invalid(done);
    done++;
    sink(corners);
    return undefined;
  };
  return {
    feed(chunk) {
      let i = 0;
      if (offset < STL_HEADER) i = Math.min(chunk.length, STL_HEADER - offset);
      offset += chunk.length;
      if (carried > 0 && i < chunk.length) {
        const take = Math.min(STL_RECORD - carried, chunk.length - i);
        carry.set(chunk.subarray(i, i + take), carried);
        carried += take;
        i += take;
        if (carried < STL_RECORD) return undefined;
        carried = 0;
        if (done < n) {
          const error = record(new DataView(carry.buffer), 0);
          if (error) return error;
        }
      }
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (; i + STL_RECORD <= chunk.length && done < n; i += STL_RECORD) {
        const error = record(view, i);
        if (error) return error;
      }
      if (done < n && i < chunk.length) {
        carry.set(chunk.subarray(i), 0);
        carried = chunk.length - i;
      }
      return undefined;
    },
    end() {
      const warnings =
        totalBytes > expected
          ? [`The STL file has ${plural(totalBytes - expected, 'extra byte')} after its ${plural(n, 'triangle')}; they were ignored.`]
          : [];
      return { triangles: done, warnings };
    },
  };
}

function asciiStream(sink: TriangleSink): MeshStream {
  const corners = new Float32Array(9);
  const re = /\b(facet|vertex|endfacet|endsolid)\b([^\n\r]*)/gi;
  let vertices = 0;
  let facets = 0;
  let open = false;
  let ended = false;
  const text = lineReader((lines) => {
    re.lastIndex = 0;
    for (let m = re.exec(lines); m; m = re.exec(lines)) {
      const kw = m[1]!.toLowerCase();
      if (kw === 'facet') {
        open = true;
        vertices = 0;
      } else if (kw === 'vertex') {
        const parts = m[2]!.trim().split(/\s+/);
        if (parts.length < 3) return failed(`Line "${m[0].trim().slice(0, 60)}" of the STL file does not hold three coordinates.`);
        if (vertices < 3) for (let k = 0; k < 3; k++) corners[vertices * 3 + k] = Number(parts[k]);
        vertices++;
      } else if (kw === 'endfacet') {
        if (vertices !== 3) {
          return failed(`Facet ${count(facets + 1)} of the STL file has ${plural(vertices, 'vertex', 'vertices')} instead of 3.`);
        }
        if (!finite(corners)) return invalid(facets);
        open = false;
        facets++;
        sink(corners);
      } else {
        ended = true;
      }
    }
    return undefined;
  }, 'STL');
  return {
    feed: text.feed,
    end() {
      const error = text.end();
      if (error) return error;
      if (open) {
        return failed(
          `The STL file ends in the middle of triangle ${count(facets + 1)} (after ${plural(facets, 'complete triangle')}): the file was probably cut off.`,
        );
      }
      if (facets === 0) return failed('The STL file is a text STL without any triangles ("facet" entries).');
      const warnings = ended
        ? []
        : ['The STL file has no closing "endsolid" line; all its triangles were complete, so it was read anyway.'];
      return { triangles: facets, warnings };
    },
  };
}

function invalid(triangle: number): ImportError {
  return failed(`The STL file has an invalid coordinate (not a number or infinite) in triangle ${count(triangle + 1)}.`);
}
