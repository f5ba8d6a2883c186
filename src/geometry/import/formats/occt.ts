import type { Occt, OcctNode, OcctResult } from 'occt-import-js';
import type { FormatId } from '../../../contract/file-types';
import {
  unreadableReason,
  defineImporter,
  failed,
  plural,
  type ImportContext,
  type ImportedModel,
  type CadReaderName,
  type ImportError,
  type ProductNode,
} from '../importer';
import { mergeMeshes, type LengthUnit, type Mesh } from '../../mesh/mesh';
import { sniff } from '../sniff';
import { scanStep } from '../../step/step-references';
import { validateMesh } from '../validate';

let occt: Promise<Occt> | undefined;

/**
 * The OpenCascade module (7.6 MB of WebAssembly, ~150 ms to start), loaded once per thread and
 * reused. A failed load is forgotten so that the next call tries again.
 */
export function loadOcct(wasmBinary?: ArrayBuffer | Uint8Array): Promise<Occt> {
  occt ??= import('occt-import-js')
    .then(({ default: factory }) => factory({ print() {}, printErr() {}, ...(wasmBinary ? { wasmBinary } : {}) }))
    .catch((e: unknown) => {
      occt = undefined;
      throw e;
    });
  return occt;
}

type Reader = 'ReadStepFile' | 'ReadIgesFile' | 'ReadBrepFile';

function occtImporter(format: 'step' | 'iges' | 'brep', label: string, reader: Reader, units: LengthUnit) {
  return defineImporter(format, label, async (bytes, ctx) => {
    const header = checkHeader(format, label, bytes);
    if (header) return header;
    if (ctx.nativeCadReader) {
      const native = await ctx.nativeCadReader(format, bytes, params(ctx));
      if (native.ok) return toModel(native.result, bytes, format, label, units, 'opencascade-native');
      if (native.limit)
        return failed(
          `The ${label} file could not be read within the limits one model may use (${native.detail}): it is too large or too complex to read here.`,
        );
      // A small file, or the native reader stopped for another reason: the WebAssembly one reads it.
    }
    let lib: Occt;
    try {
      lib = await loadOcct(ctx.occtWasmBinary);
    } catch (e) {
      void e;
      return failed(`The CAD reader could not be started, so the ${label} file was not read; try again later.`);
    }
    let result: OcctResult;
    try {
      result = lib[reader](bytes, params(ctx));
    } catch (e) {
      // A WebAssembly abort can leave the module unusable: start a fresh one next time.
      occt = undefined;
      return failed(
        e instanceof RangeError || /memory|alloc/i.test(String(e))
          ? unreadableReason(label, new RangeError('alloc'))
          : `The ${label} file could not be read: the CAD reader stopped on its content, which is damaged or uses something we do not support.`,
      );
    }
    return toModel(result, bytes, format, label, units, 'occt-import-js');
  });
}

/** STEP (AP203/AP214/AP242) through occt-import-js; coordinates come back in millimetres. */
export const stepImporter = occtImporter('step', 'STEP', 'ReadStepFile', 'mm');
/** IGES through occt-import-js; coordinates come back in millimetres. */
export const igesImporter = occtImporter('iges', 'IGES', 'ReadIgesFile', 'mm');
/** OpenCascade's own BREP through occt-import-js; BREP carries no unit. */
export const brepImporter = occtImporter('brep', 'BREP', 'ReadBrepFile', 'unknown');

/**
 * Tessellation relative to the part's size: OpenCascade takes the linear deflection as a ratio of
 * each shape's mean bounding-box side (0.001 ≈ 0.06 % of the diagonal of a cube-like part), and
 * 0.5 rad angular deflection keeps small holes and fillets round; the angular limit decides most
 * triangles. On the CAx-IF files surface area and volume stay within 0.1 % and 0.2 % of a fine
 * tessellation (0.0001 / 0.1 rad); 0.002 or 0.003 stay within 0.3 % / 0.8 % but save no measurable
 * time: with the WebAssembly warm, reading a 5 MB STEP file costs the same ~6.5–7 s of CPU even with
 * an absurdly coarse deflection — the cost is the STEP parse and transfer to shapes, not meshing.
 */
export const DEFAULT_LINEAR_DEFLECTION = 0.001;
export const DEFAULT_ANGULAR_DEFLECTION = 0.5;

function params(ctx: ImportContext) {
  return {
    linearUnit: 'millimeter' as const,
    linearDeflectionType: 'bounding_box_ratio' as const,
    linearDeflection: ctx.linearDeflection ?? DEFAULT_LINEAR_DEFLECTION,
    angularDeflection: ctx.angularDeflection ?? DEFAULT_ANGULAR_DEFLECTION,
  };
}

// OpenCascade happily "reads" any bytes as an empty model; check the header so that the
// reason can say the file is not what it claims.
function checkHeader(format: FormatId, label: string, bytes: Uint8Array): ImportError | undefined {
  const s = sniff(bytes.subarray(0, 4096), bytes.byteLength);
  if (s?.kind === format) return undefined;
  if (format === 'iges' && s?.kind === 'text') return undefined; // IGES headers vary; let OpenCascade judge
  const what = s ? `it looks like ${s.description}` : 'it contains unreadable binary data';
  const expected =
    format === 'step'
      ? 'a STEP file starts with "ISO-10303-21;"'
      : format === 'brep'
        ? 'a BREP file starts with "DBRep_DrawableShape"'
        : 'an IGES file is made of 80-column lines';
  return failed(`This is not a ${label} file: ${what} (${expected}).`);
}

function toModel(
  result: OcctResult,
  bytes: Uint8Array,
  format: FormatId,
  label: string,
  units: LengthUnit,
  reader: CadReaderName,
): ImportedModel | ImportError {
  if (!result.success || !result.root) {
    return failed(
      `The ${label} file could not be read: it is damaged, cut off, or uses a variant of ${label} that OpenCascade does not understand.`,
    );
  }
  const meshes = result.meshes ?? [];
  const parts: Mesh[] = meshes.map((m) => ({
    positions: Float32Array.from(m.attributes.position.array),
    indices: Uint32Array.from(m.index.array),
  }));
  // Each node lists the meshes placed under it; OpenCascade has already applied the node
  // locations to the coordinates, so flattening is a merge.
  const toNode = (n: OcctNode): ProductNode => ({
    name: n.name,
    triangleCount: n.meshes.reduce((sum, i) => sum + (parts[i]?.indices.length ?? 0) / 3, 0),
    children: n.children.map(toNode),
  });
  const structure = toNode(result.root);
  const triangles = parts.reduce((s, p) => s + p.indices.length, 0) / 3;
  if (triangles === 0) {
    if (format === 'step') {
      const scan = scanStep(bytes);
      if (scan.references.length) {
        const list = scan.references.slice(0, 10).join(', ') + (scan.references.length > 10 ? ', …' : '');
        return {
          code: 'failed',
          reason: `This STEP file is an assembly whose parts are stored in ${plural(scan.references.length, 'other file')} (${list}); it holds no geometry of its own. Upload those files with it.`,
          references: scan.references,
        };
      }
    }
    return failed(`The ${label} file contains no solid or surface geometry (it may hold only wireframe curves, points, or drawing data).`);
  }
  const model: ImportedModel = { ...mergeMeshes(parts), units, structure, reader };
  return validateMesh(model, label) ?? model;
}
