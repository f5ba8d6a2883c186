import { count, defineImporter, failed, plural, type ImportedModel, type ImportError } from '../importer';
import { validateMesh } from '../validate';

// Own parser rather than three's STLLoader: the loader cannot tell a cut-off file from a valid
// one (it throws a RangeError or reads a binary header starting with "solid" as text).

export const STL_HEADER = 84;
export const STL_RECORD = 50;
const HEADER = STL_HEADER;
const RECORD = STL_RECORD;

/** STL, binary or ASCII. Binary is recognised by its exact size (84 + 50 × triangles). */
export const stlImporter = defineImporter('stl', 'STL', (bytes) => {
  const result = looksAscii(bytes) ? parseAscii(bytes) : parseBinary(bytes);
  if ('code' in result) return result;
  return validateMesh(result, 'STL') ?? result;
});

/** Binary size formula holds → binary, whatever the header says. */
export function isBinaryStlSize(bytes: Uint8Array): boolean {
  return isStlBinaryOfSize(bytes, bytes.byteLength);
}

/** The same rule from the file's first bytes and its size (a file read a piece at a time). */
export function isStlBinaryOfSize(head: Uint8Array, totalBytes: number): boolean {
  if (head.byteLength < HEADER) return false;
  const n = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(80, true);
  return HEADER + n * RECORD === totalBytes;
}

function looksAscii(bytes: Uint8Array): boolean {
  return !isBinaryStlSize(bytes) && looksAsciiStl(bytes);
}

/** Starts with "solid" and has no NUL in its first KiB (`bytes` may be only the file's start). */
export function looksAsciiStl(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.byteLength, 1024)));
  if (!/^\s*(\uFEFF)?solid/i.test(head.replace(/^\u00EF\u00BB\u00BF/, ''))) return false;
  // Binary exporters like to write "solid <name>" into the 80-byte header too; text has no NULs.
  for (let i = 0; i < Math.min(bytes.byteLength, 1024); i++) if (bytes[i] === 0) return false;
  return true;
}

function parseBinary(bytes: Uint8Array): ImportedModel | ImportError {
  if (bytes.byteLength < HEADER) {
    return failed(
      `The STL file is only ${plural(bytes.byteLength, 'byte')} long, shorter than the 84-byte header every binary STL starts with.`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(80, true);
  const expected = HEADER + n * RECORD;
  const present = Math.floor((bytes.byteLength - HEADER) / RECORD);
  if (n === 0) return failed('The STL file says it contains no triangles.');
  if (bytes.byteLength < expected) {
    return failed(
      `The STL file ends before its ${count(n)} triangles are complete (only ${count(present)} are there): the file was probably cut off while copying or uploading.`,
    );
  }
  const warnings: string[] = [];
  if (bytes.byteLength > expected) {
    warnings.push(
      `The STL file has ${plural(bytes.byteLength - expected, 'extra byte')} after its ${plural(n, 'triangle')}; they were ignored.`,
    );
  }
  const positions = new Float32Array(n * 9);
  for (let t = 0; t < n; t++) {
    const o = HEADER + t * RECORD + 12; // skip the facet normal: winding defines orientation
    for (let k = 0; k < 9; k++) positions[t * 9 + k] = view.getFloat32(o + k * 4, true);
  }
  const model: ImportedModel = { positions, indices: sequence(n * 3), units: 'unknown' };
  if (warnings.length) model.warnings = warnings;
  return model;
}

function parseAscii(bytes: Uint8Array): ImportedModel | ImportError {
  const text = new TextDecoder().decode(bytes);
  const coords: number[] = [];
  const re = /\b(facet|vertex|endfacet|endsolid)\b([^\n\r]*)/gi;
  let verticesInFacet = 0;
  let facets = 0;
  let open = false;
  let ended = false;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const kw = m[1]!.toLowerCase();
    if (kw === 'facet') {
      open = true;
      verticesInFacet = 0;
    } else if (kw === 'vertex') {
      const parts = m[2]!.trim().split(/\s+/);
      if (parts.length < 3) return failed(`Line "${m[0].trim().slice(0, 60)}" of the STL file does not hold three coordinates.`);
      for (let k = 0; k < 3; k++) coords.push(Number(parts[k]));
      verticesInFacet++;
    } else if (kw === 'endfacet') {
      if (verticesInFacet !== 3) {
        return failed(`Facet ${count(facets + 1)} of the STL file has ${plural(verticesInFacet, 'vertex', 'vertices')} instead of 3.`);
      }
      open = false;
      facets++;
    } else {
      ended = true;
    }
  }
  if (open || (!ended && coords.length % 9 !== 0)) {
    return failed(
      `The STL file ends in the middle of triangle ${count(facets + 1)} (after ${plural(facets, 'complete triangle')}): the file was probably cut off.`,
    );
  }
  if (facets === 0) return failed('The STL file is a text STL without any triangles ("facet" entries).');
  const model: ImportedModel = { positions: Float32Array.from(coords), indices: sequence(facets * 3), units: 'unknown' };
  if (!ended) model.warnings = ['The STL file has no closing "endsolid" line; all its triangles were complete, so it was read anyway.'];
  return model;
}

function sequence(n: number): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}
