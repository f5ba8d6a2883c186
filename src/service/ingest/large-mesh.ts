// Mesh files too large to hold in memory, read from disk a piece at a time: a first pass measures
// (triangles, box, area, volume), a second keeps the triangles — all of them when there are few
// enough, otherwise a simplified copy on a grid (geometry/mesh/cluster.ts). Memory stays bounded
// by the copy, whatever the file's size. Runs inside a worker thread (process-model.ts).
import fs from 'node:fs/promises';
import { count, failed, isImportError, type ImportedModel, type ImportError } from '../../geometry/import/importer';
import { stlStream } from '../../geometry/import/formats/stl-stream';
import { objStream } from '../../geometry/import/formats/obj-stream';
import { plyStream } from '../../geometry/import/formats/ply-stream';
import type { MeshStream, TriangleSink } from '../../geometry/import/formats/mesh-stream';
import { clusterGrid, VertexClusterer } from '../../geometry/mesh/cluster';
import type { Vec3 } from '../../geometry/mesh/mesh';
import { extensionOf } from '../../contract/file-types';

/** The readers a piece at a time, by extension; any other format is read whole. */
const STREAMS: Record<string, (head: Uint8Array, totalBytes: number, sink: TriangleSink) => MeshStream | ImportError> = {
  stl: stlStream,
  obj: (_head, _total, sink) => objStream(sink),
  ply: (head, _total, sink) => plyStream(head, sink),
};
const LABELS: Record<string, string> = { stl: 'STL', obj: 'OBJ', ply: 'PLY' };

/** Files from this size are read a piece at a time (smaller ones whole, as every other format). */
export const LARGE_MESH_MIN_BYTES = 64 * 1024 * 1024;

/**
 * Most triangles the search features, the thumbnail and the viewer file are computed from. A
 * larger mesh is simplified to about this many first (sized to the part: the features of a
 * scan do not need its twenty million triangles, nor does a 256-pixel picture).
 */
export const DETAIL_MAX_TRIANGLES = 500_000;

const CHUNK_BYTES = 8 * 1024 * 1024;

export function isStreamedMesh(fileName: string, bytes: number, minBytes = LARGE_MESH_MIN_BYTES): boolean {
  return bytes >= minBytes && extensionOf(fileName) in STREAMS;
}

/** What the file itself holds, measured on every triangle (the mesh may be a simplified copy). */
export interface ExactFacts {
  triangles: number;
  bbox: { min: Vec3; max: Vec3 };
  surfaceArea: number;
  /** Signed volume of all triangles (meaningful when the surface is closed). */
  volume: number;
}

/** The copy the features and pictures were made from, when the file had more triangles than the detail kept. */
export interface Simplified {
  triangles: number;
  /** No corner of the copy is farther than this from the file's surface (a grid cell's diagonal), in the file's units. */
  tolerance: number;
}

export type LargeMesh = ImportedModel & { exact: ExactFacts; simplified?: Simplified };

export async function readLargeMesh(
  filePath: string,
  fileName: string,
  targetTriangles = DETAIL_MAX_TRIANGLES,
): Promise<LargeMesh | ImportError> {
  const extension = extensionOf(fileName);
  const open = STREAMS[extension];
  if (!open) return failed(`${fileName} is not a mesh format read a piece at a time.`);
  const handle = await fs.open(filePath, 'r');
  try {
    const { size } = await handle.stat();
    // enough for a PLY header with its comments
    const head = new Uint8Array(Math.min(size, 64 * 1024));
    await handle.read(head, 0, head.length, 0);
    const buffer = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(1, size)));

    const pass = async (sink: TriangleSink) => {
      const reader = open(head, size, sink);
      if (isImportError(reader)) return reader;
      for (let at = 0; at < size;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
        if (bytesRead === 0) break;
        at += bytesRead;
        const error = reader.feed(buffer.subarray(0, bytesRead));
        if (error) return error;
      }
      return reader.end();
    };

    const exact = measuring();
    const first = await pass(exact.add);
    if (isImportError(first)) return first;
    const facts = exact.facts(first.triangles);
    if (!(facts.surfaceArea > 0)) return failed(`The ${LABELS[extension]} file's ${count(first.triangles)} triangles all have zero area.`);
    const warnings = [...first.warnings];

    if (first.triangles <= targetTriangles) {
      const positions = new Float32Array(first.triangles * 9);
      let t = 0;
      const second = await pass((p) => {
        if (t < first.triangles) positions.set(p, 9 * t++);
      });
      if (isImportError(second)) return second;
      const indices = new Uint32Array(first.triangles * 3);
      for (let i = 0; i < indices.length; i++) indices[i] = i;
      return { positions, indices, units: 'unknown', exact: facts, ...(warnings.length ? { warnings } : {}) };
    }

    const grid = clusterGrid(facts.bbox, facts.surfaceArea, targetTriangles);
    const clusterer = new VertexClusterer(grid);
    const second = await pass((p) => clusterer.add(p));
    if (isImportError(second)) return second;
    const mesh = clusterer.mesh('unknown');
    const simplified = { triangles: mesh.indices.length / 3, tolerance: grid.cell * Math.sqrt(3) };
    return { ...mesh, units: 'unknown', exact: facts, simplified, ...(warnings.length ? { warnings } : {}) };
  } finally {
    await handle.close();
  }
}

/** Box, area and signed volume over triangles as they pass. */
function measuring() {
  const min: Vec3 = [Infinity, Infinity, Infinity];
  const max: Vec3 = [-Infinity, -Infinity, -Infinity];
  let area = 0;
  let volume = 0;
  return {
    add(p: Float32Array) {
      for (let k = 0; k < 9; k++) {
        const v = p[k]!;
        const axis = k % 3;
        if (v < min[axis]!) min[axis] = v;
        if (v > max[axis]!) max[axis] = v;
      }
      const ux = p[3]! - p[0]!;
      const uy = p[4]! - p[1]!;
      const uz = p[5]! - p[2]!;
      const vx = p[6]! - p[0]!;
      const vy = p[7]! - p[1]!;
      const vz = p[8]! - p[2]!;
      const cx = uy * vz - uz * vy;
      const cy = uz * vx - ux * vz;
      const cz = ux * vy - uy * vx;
      area += Math.sqrt(cx * cx + cy * cy + cz * cz) / 2;
      // a·(b×c)/6 = a·((b−a)×(c−a))/6
      volume += (p[0]! * cx + p[1]! * cy + p[2]! * cz) / 6;
    },
    facts(triangles: number): ExactFacts {
      return { triangles, bbox: { min, max }, surfaceArea: area, volume };
    },
  };
}
