// A dropped file's role in the upload order and its structure (STEP files are read for the files
// they reference). What kind of file it is, the file-types vocabulary (contract/file-types.ts) says.
import { ACCEPTED_EXTENSIONS, isNativeAssemblyFile, isStepFile } from '../../../contract/file-types';
import { scanStep } from '../../../geometry/step/step-references';

/** Role of a file in the upload order: parts first, then sub-assemblies, then top assemblies. */
export type Role = 'part' | 'sub-assembly' | 'assembly';

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

export const SUPPORTED_EXTENSIONS_TEXT = ACCEPTED_EXTENSIONS.join(', ');
