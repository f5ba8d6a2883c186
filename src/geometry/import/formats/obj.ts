import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { count, defineImporter, failed, plural, type ImportError } from '../importer';
import { objectToMesh } from './three-adapter';
import { validateMesh } from '../validate';

/** Wavefront OBJ through three's OBJLoader; materials (.mtl) are not needed for geometry. */
export const objImporter = defineImporter('obj', 'OBJ', (bytes) => {
  const text = new TextDecoder().decode(bytes);
  const problem = checkFaceIndices(text);
  if (problem) return problem;
  const mesh = objectToMesh(new OBJLoader().parse(text));
  mesh.units = 'unknown';
  return validateMesh(mesh, 'OBJ') ?? mesh;
});

// OBJLoader turns a face that points past the vertex list into NaN coordinates; this scan
// finds it first so that the reason can say what is wrong.
function checkFaceIndices(text: string): ImportError | undefined {
  let vertices = 0;
  let faces = 0;
  let line = 0;
  for (const raw of text.split(/\r?\n/)) {
    line++;
    const s = raw.trimStart();
    if (s.startsWith('v ') || s.startsWith('v\t')) {
      vertices++;
    } else if (s.startsWith('f ') || s.startsWith('f\t')) {
      faces++;
      const refs = s.slice(2).trim().split(/\s+/);
      if (refs.length < 3) return failed(`Face ${count(faces)} (line ${count(line)}) of the OBJ file has fewer than three corners.`);
      for (const ref of refs) {
        const k = Number.parseInt(ref, 10);
        const resolved = k < 0 ? vertices + k + 1 : k;
        if (!Number.isFinite(k) || k === 0 || resolved < 1 || resolved > vertices) {
          return failed(
            `Face ${count(faces)} (line ${count(line)}) of the OBJ file refers to vertex ${ref.split('/')[0]}, but only ${plural(vertices, 'vertex', 'vertices')} are defined before it.`,
          );
        }
      }
    }
  }
  if (faces === 0) {
    return failed(
      vertices > 0
        ? `The OBJ file has ${plural(vertices, 'point')} but no faces, so it has no surface to read.`
        : 'The OBJ file contains no vertices and no faces.',
    );
  }
  return undefined;
}
