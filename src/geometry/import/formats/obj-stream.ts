import { count, failed, plural, type ImportError } from '../importer';
import { finite, lineReader, VertexList, type MeshStream, type TriangleSink } from './mesh-stream';

/**
 * Wavefront OBJ a piece at a time, for files too large for three's OBJLoader (obj.ts), which
 * needs the whole text: `v` lines are kept (a face may name any vertex before it), each `f` line
 * is cut into a fan of triangles as the loader cuts it. Normals, texture coordinates, groups and
 * materials are not needed for the surface and are skipped.
 */
export function objStream(sink: TriangleSink): MeshStream {
  const corners = new Float32Array(9);
  const vertices = new VertexList();
  let faces = 0;
  let triangles = 0;
  let line = 0;
  const refs: number[] = [];
  const text = lineReader((lines): ImportError | undefined => {
    for (const raw of lines.split(/\r?\n|\r/)) {
      line++;
      const s = raw.trimStart();
      if (s.startsWith('v ') || s.startsWith('v\t')) {
        const p = s.slice(2).trim().split(/\s+/);
        vertices.push(Number(p[0]), Number(p[1]), Number(p[2]));
      } else if (s.startsWith('f ') || s.startsWith('f\t')) {
        faces++;
        const words = s.slice(2).trim().split(/\s+/);
        if (words.length < 3) return failed(`Face ${count(faces)} (line ${count(line)}) of the OBJ file has fewer than three corners.`);
        refs.length = 0;
        for (const word of words) {
          const k = Number.parseInt(word, 10);
          const resolved = k < 0 ? vertices.count + k + 1 : k;
          if (!Number.isFinite(k) || k === 0 || resolved < 1 || resolved > vertices.count) {
            return failed(
              `Face ${count(faces)} (line ${count(line)}) of the OBJ file refers to vertex ${word.split('/')[0]}, but only ${plural(vertices.count, 'vertex', 'vertices')} are defined before it.`,
            );
          }
          refs.push(resolved - 1);
        }
        for (let j = 1; j + 1 < refs.length; j++) {
          vertices.copy(refs[0]!, corners, 0);
          vertices.copy(refs[j]!, corners, 1);
          vertices.copy(refs[j + 1]!, corners, 2);
          if (!finite(corners))
            return failed(`Face ${count(faces)} (line ${count(line)}) of the OBJ file has a corner whose coordinates are not numbers.`);
          triangles++;
          sink(corners);
        }
      }
    }
    return undefined;
  }, 'OBJ');
  return {
    feed: text.feed,
    end() {
      const error = text.end();
      if (error) return error;
      if (faces === 0) {
        return failed(
          vertices.count > 0
            ? `The OBJ file has ${plural(vertices.count, 'point')} but no faces, so it has no surface to read.`
            : 'The OBJ file contains no vertices and no faces.',
        );
      }
      return { triangles, warnings: [] };
    },
  };
}
