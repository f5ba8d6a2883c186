import type { FormatId } from '../../contract/file-types';
import type { Mesh } from '../mesh/mesh';
import type { OcctParams, OcctResult } from 'occt-import-js';

/**
 * Why a file gave no geometry, in words a designer understands.
 * - `failed`: the file is damaged, empty, or not what its name says.
 * - `unsupported`: a recognised format whose geometry we cannot read (native CAD).
 */
export interface ImportError {
  code: 'failed' | 'unsupported';
  reason: string;
  /** For a STEP assembly whose parts live in other files: the file names it references. */
  references?: string[];
}

/** One node of a CAD product structure (STEP/IGES assemblies), as read by OpenCascade. */
export interface ProductNode {
  name: string;
  /** Triangles of the geometry that sits directly on this node (already placed in world space). */
  triangleCount: number;
  children: ProductNode[];
}

/** An imported model: the merged, world-space mesh plus what the format told us on the way. */
export interface ImportedModel extends Mesh {
  /** Which reader read a CAD file: OpenCascade built for this machine, or occt-import-js (WebAssembly). */
  reader?: CadReaderName;
  /** Product structure of a CAD file (STEP/IGES/BREP) or the node tree of a glTF/3MF scene. */
  structure?: ProductNode;
  /** Things worth telling the user that did not stop the import. */
  warnings?: string[];
}

export type CadReaderName = 'opencascade-native' | 'occt-import-js';

/** Options an importer may use; every field is optional. */
export interface ImportContext {
  /** The original file name (informational; detection by name happens in `importFile`). */
  fileName?: string;
  /** OpenCascade tessellation: linear deflection as a ratio of each shape's mean bounding-box side (default 0.001). */
  linearDeflection?: number;
  /** OpenCascade tessellation: angular deflection in radians (default 0.5). */
  angularDeflection?: number;
  /**
   * The occt-import-js WebAssembly binary, for hosts where the module cannot find
   * `occt-import-js.wasm` next to its script (bundled workers). Node finds it on its own.
   */
  occtWasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * OpenCascade built for this machine (the service's child process): used for STEP, IGES and
   * BREP before the WebAssembly reader, with the same parameters and the same answer.
   */
  nativeCadReader?: NativeCadReader;
  /**
   * Most bytes a packed file (3MF archive, glTF accessors and meshopt buffers) may declare or
   * unpack to; checked before the memory is spent (default {@link DEFAULT_UNPACKED_MAX_BYTES}).
   */
  unpackedMaxBytes?: number;
}

/** A native OpenCascade reader's answer: occt-import-js's result, or why there is none (`limit`: it hit its memory or time limit). */
export type NativeCadRead = { ok: true; result: OcctResult } | { ok: false; limit: boolean; detail: string };
export type NativeCadReader = (format: 'step' | 'iges' | 'brep', bytes: Uint8Array, params: OcctParams) => Promise<NativeCadRead>;

/** 256 MiB: read as text and parsed, an unpacked model needs about three times its size. */
export const DEFAULT_UNPACKED_MAX_BYTES = 256 * 1024 * 1024;

/** One importer per format (its extensions are the file-types vocabulary's), listed in `registry.ts`. */
export interface Importer {
  format: FormatId;
  /** Never throws: every problem comes back as an {@link ImportError}. */
  import(bytes: Uint8Array, ctx?: ImportContext): Promise<ImportedModel | ImportError>;
}

export function isImportError(r: unknown): r is ImportError {
  return typeof r === 'object' && r !== null && 'code' in r && 'reason' in r;
}

export function failed(reason: string): ImportError {
  return { code: 'failed', reason };
}

export function unsupported(reason: string): ImportError {
  return { code: 'unsupported', reason };
}

/** 1204 → "1,204" (reasons are read by people). */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 triangle" / "2 triangles". */
export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${count(n)} ${n === 1 ? word : pluralWord}`;
}

/**
 * Builds an importer from a parse function and wraps it so that nothing thrown inside can
 * escape `import`: an unexpected exception becomes a `failed` result naming the format.
 */
export function defineImporter(
  format: FormatId,
  label: string,
  parse: (bytes: Uint8Array, ctx: ImportContext) => Promise<ImportedModel | ImportError> | ImportedModel | ImportError,
): Importer {
  return {
    format,
    async import(bytes, ctx = {}) {
      try {
        if (!(bytes instanceof Uint8Array)) return failed(`The ${label} file could not be read: no file content was given.`);
        if (bytes.byteLength === 0) return failed(`The ${label} file is empty (0 bytes).`);
        return await parse(bytes, ctx);
      } catch (e) {
        // The engine's own words (a V8 limit, a parser's message) mean nothing to a designer.
        return failed(unreadableReason(label, e));
      }
    },
  };
}

/** Why an importer that threw gave nothing, in plain words. */
export function unreadableReason(label: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError && /alloc|length|too large|string longer|size/i.test(message)) {
    return `The ${label} file declares more data than one model may hold in memory, so it was not read.`;
  }
  return `The ${label} file is damaged or is not a valid ${label} file, so it could not be read.`;
}
