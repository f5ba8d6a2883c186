import type { ImportError } from '../importer';

// Mesh files read a piece at a time, so that a file of any size passes through bounded memory
// (service/ingest/large-mesh.ts reads them from disk). Each reader takes the file's pieces in
// order and hands on its triangles one at a time.

/** Receives each triangle as nine coordinates (the array is reused: copy what you keep). */
export type TriangleSink = (corners: Float32Array) => void;

export interface MeshStream {
  feed(chunk: Uint8Array): ImportError | undefined;
  /** After the last piece: the triangle count, or why the file is not whole. */
  end(): ImportError | { triangles: number; warnings: string[] };
}

export function finite(p: Float32Array): boolean {
  for (let k = 0; k < 9; k++) if (!Number.isFinite(p[k]!)) return false;
  return true;
}

/** Text in whole lines: a line cut by a piece's end waits for the next piece. */
export function lineReader(onLines: (text: string) => ImportError | undefined, label: string) {
  const decoder = new TextDecoder('latin1');
  let rest = '';
  return {
    feed(chunk: Uint8Array): ImportError | undefined {
      const text = rest + decoder.decode(chunk);
      const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
      rest = cut < 0 ? text : text.slice(cut + 1);
      if (rest.length > 1 << 20)
        return { code: 'failed', reason: `The ${label} file has a line longer than 1 MB; it is not a text ${label}.` };
      return cut < 0 ? undefined : onLines(text.slice(0, cut + 1));
    },
    end(): ImportError | undefined {
      const last = rest;
      rest = '';
      return last ? onLines(last) : undefined;
    },
  };
}

/** Vertices kept while faces refer to them by number (OBJ, PLY). */
export class VertexList {
  private xyz = new Float32Array(3 * 4096);
  count = 0;

  push(x: number, y: number, z: number): void {
    if (3 * this.count + 3 > this.xyz.length) {
      const grown = new Float32Array(this.xyz.length * 2);
      grown.set(this.xyz);
      this.xyz = grown;
    }
    this.xyz[3 * this.count++] = x;
    this.xyz[3 * this.count - 2] = y;
    this.xyz[3 * this.count - 1] = z;
  }

  /** Vertex `v` (from 0) as corner `k` (0–2) of `corners`. */
  copy(v: number, corners: Float32Array, k: number): void {
    corners[3 * k] = this.xyz[3 * v]!;
    corners[3 * k + 1] = this.xyz[3 * v + 1]!;
    corners[3 * k + 2] = this.xyz[3 * v + 2]!;
  }
}
