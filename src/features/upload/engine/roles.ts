// What kind of file a dropped file is, from its extension (and, for STEP, from its content).
import { scanStep } from '../../../geometry/step-references';

/** Role of a file in the upload order: parts first, then sub-assemblies, then top assemblies. */
export type Role = 'part' | 'sub-assembly' | 'assembly';

/**
 * mesh/cad: the service reads their geometry. native: accepted for upload, but the service marks
 * them `unsupported` when it cannot read them (a settled state: nothing more happens to them).
 */
export type FileKind = 'mesh' | 'cad' | 'native';

export const MESH_EXTENSIONS = ['stl', 'obj', 'ply', 'off', 'gltf', 'glb', '3mf'] as const;
export const CAD_EXTENSIONS = ['step', 'stp', 'iges', 'igs', 'brep', 'brp'] as const;
export const NATIVE_EXTENSIONS = [
  'sldprt', 'sldasm', 'prt', 'asm', 'catpart', 'catproduct', 'ipt', 'iam', 'x_t', 'x_b', 'par', 'psm', 'jt',
] as const;
/** Mesh formats whose files do not say what unit their numbers are in: the uploader says it. */
const UNITLESS_EXTENSIONS = new Set(['stl', 'obj', 'ply', 'off']);

export function needsDeclaredUnit(fileName: string): boolean {
  return UNITLESS_EXTENSIONS.has(extensionOf(fileName));
}

/** Native types that are assemblies by definition (SolidWorks, Creo, CATIA, Inventor). */
const NATIVE_ASSEMBLY_EXTENSIONS = new Set(['sldasm', 'asm', 'catproduct', 'iam']);
const STEP_EXTENSIONS = new Set(['step', 'stp']);

const KIND = new Map<string, FileKind>([
  ...MESH_EXTENSIONS.map((e) => [e, 'mesh'] as const),
  ...CAD_EXTENSIONS.map((e) => [e, 'cad'] as const),
  ...NATIVE_EXTENSIONS.map((e) => [e, 'native'] as const),
]);

/**
 * Lower-case extension of a file name, without the dot ("" when none). Creo's version suffix
 * ("bracket.prt.3") is skipped, so that file counts as "prt".
 */
export function extensionOf(fileName: string): string {
  const lower = fileName.toLowerCase();
  const versioned = /\.(prt|asm)\.\d+$/.exec(lower);
  if (versioned) return versioned[1]!;
  const dot = lower.lastIndexOf('.');
  return dot <= 0 ? '' : lower.slice(dot + 1);
}

export function fileKindOf(fileName: string): FileKind | null {
  return KIND.get(extensionOf(fileName)) ?? null;
}

export function isStepFile(fileName: string): boolean {
  return STEP_EXTENSIONS.has(extensionOf(fileName));
}

export function isNativeAssemblyFile(fileName: string): boolean {
  return NATIVE_ASSEMBLY_EXTENSIONS.has(extensionOf(fileName));
}

/** What a file's content says about its structure (STEP only). */
export interface StructureInfo {
  isAssembly: boolean;
  /** File names (no folders) of the files it references. */
  references: string[];
}

/** Structure of a file from its name and (for STEP) text; null text = not read. */
export function structureOf(fileName: string, text: string | null): StructureInfo {
  if (isStepFile(fileName) && text !== null) {
    const s = scanStep(text);
    return { isAssembly: s.isAssembly, references: s.references };
  }
  return { isAssembly: isNativeAssemblyFile(fileName), references: [] };
}

export const SUPPORTED_EXTENSIONS_TEXT = [...MESH_EXTENSIONS, ...CAD_EXTENSIONS, ...NATIVE_EXTENSIONS].join(', ');
