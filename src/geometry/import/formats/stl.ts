import { defineImporter, isImportError, type ImportedModel } from '../importer';
import { validateMesh } from '../validate';
import { stlStream } from './stl-stream';

/** STL, binary or ASCII, read whole: the piecewise reader (stl-stream.ts) fed the file at once. */
export const stlImporter = defineImporter('stl', 'STL', (bytes) => {
  let positions = new Float32Array(9 * 1024);
  let triangles = 0;
  const reader = stlStream(bytes, bytes.byteLength, (corners) => {
    if (9 * triangles + 9 > positions.length) {
      const grown = new Float32Array(positions.length * 2);
      grown.set(positions);
      positions = grown;
    }
    positions.set(corners, 9 * triangles++);
  });
  if (isImportError(reader)) return reader;
  const error = reader.feed(bytes);
  if (error) return error;
  const end = reader.end();
  if (isImportError(end)) return end;
  const indices = new Uint32Array(3 * triangles);
  for (let i = 0; i < indices.length; i++) indices[i] = i;
  const model: ImportedModel = { positions: positions.slice(0, 9 * triangles), indices, units: 'unknown' };
  if (end.warnings.length) model.warnings = end.warnings;
  return validateMesh(model, 'STL') ?? model;
});
