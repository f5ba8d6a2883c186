// The one registry: format → importer, plus the sniffing that catches files that are not what
// their name says. Which extension names which format is the file-types vocabulary's.
import {
  extensionOf,
  formatOfExtension,
  NATIVE_CAD,
  READABLE_EXTENSIONS,
  READABLE_FORMATS,
  type FormatId,
} from '../../contract/file-types';
import { failed, unreadableReason, unsupported, type ImportContext, type ImportedModel, type ImportError, type Importer } from './importer';
import { glbImporter, gltfImporter } from './formats/gltf';
import { objImporter } from './formats/obj';
import { brepImporter, igesImporter, stepImporter } from './formats/occt';
import { offImporter } from './formats/off';
import { plyImporter } from './formats/ply';
import { stlImporter } from './formats/stl';
import { threeMfImporter } from './formats/threemf';
import { describeFormat, sniff, type Sniffed } from './sniff';

export const IMPORTERS: readonly Importer[] = [
  stlImporter,
  objImporter,
  plyImporter,
  offImporter,
  gltfImporter,
  glbImporter,
  threeMfImporter,
  stepImporter,
  igesImporter,
  brepImporter,
];

/** The importer of a format, or of the format an extension names ("STL", ".stp"). */
export function importerFor(extOrFormat: string): Importer | undefined {
  const format = formatOfExtension(extOrFormat);
  return format && IMPORTERS.find((i) => i.format === format);
}

/** The verdict of {@link detectFormat}. */
export interface FormatDetection {
  /** The file name's extension ("" when none). */
  extension: string;
  /** The importer's format to use; absent when the file must not be imported (see `error`). */
  format?: FormatId;
  /** What the first bytes look like, when recognised. */
  sniffed?: Sniffed;
  /** Set when the file cannot be imported: the model ends with this code and reason. */
  error?: ImportError;
}

const BINARY_FORMATS: ReadonlySet<FormatId> = new Set(['glb', '3mf']);

/**
 * Decides how to read a file from its name and its first bytes (4 KB are plenty; pass
 * `totalSize` when `firstBytes` is only the start, so binary STL can be recognised by size).
 * A file whose content is recognisably something else than its extension says gets a `failed`
 * error naming what it looks like.
 */
export function detectFormat(fileName: string, firstBytes: Uint8Array, totalSize: number = firstBytes.byteLength): FormatDetection {
  const extension = extensionOf(fileName);
  const sniffed = sniff(firstBytes.subarray(0, 4096), totalSize);
  const out: FormatDetection = { extension };
  if (sniffed) out.sniffed = sniffed;
  const named = extension ? `.${extension}` : 'without an extension';
  if (totalSize === 0) return { ...out, error: failed(`The file ${fileName ? `"${baseName(fileName)}" ` : ''}is empty (0 bytes).`) };

  const importer = extension ? importerFor(extension) : undefined;
  if (!importer) {
    const native = nativeCadError(extension);
    if (native) {
      // A "native" file that is really a neutral format is mis-named, not unsupported.
      if (sniffed && isReadable(sniffed.kind)) {
        return {
          ...out,
          error: failed(
            `This file is named ${named} but it is ${sniffed.description}; rename it to .${sniffed.kind === 'step' ? 'stp' : sniffed.kind} and upload it again.`,
          ),
        };
      }
      return { ...out, error: native };
    }
    const hint = sniffed && isReadable(sniffed.kind) ? ` It looks like ${sniffed.description}; rename it accordingly.` : '';
    return {
      ...out,
      error: unsupported(
        `Files ${extension ? `ending in .${extension}` : 'without an extension'} are not a 3D format we read (we read ${READABLE_EXTENSIONS.map((e) => `.${e}`).join(', ')}).${hint}`,
      ),
    };
  }

  const expected = importer.format;
  const mismatch = (what: string) => ({
    ...out,
    error: failed(`This file is named ${named} but it is not ${describeFormat(expected)}: ${what}.`),
  });
  if (!sniffed) {
    if (expected === 'stl') return { ...out, format: 'stl' }; // binary STL carries no signature; the importer checks its size
    return mismatch(
      BINARY_FORMATS.has(expected)
        ? 'its content does not start with the right signature'
        : 'it contains binary data that matches no known format',
    );
  }
  if (sniffed.kind === expected) return { ...out, format: expected };
  if ((expected === 'gltf' && sniffed.kind === 'glb') || (expected === 'glb' && sniffed.kind === 'gltf'))
    return { ...out, format: sniffed.kind };
  if (sniffed.kind === 'text') {
    // Unrecognised text: let the text formats with loose headers judge for themselves.
    if (expected === 'obj' || expected === 'iges') return { ...out, format: expected };
    return mismatch('it is a text file without the header that format needs');
  }
  return mismatch(`it looks like ${sniffed.description}`);
}

/**
 * Imports a whole file: detects its format from name and content, then runs the importer.
 * Never throws.
 */
export async function importFile(fileName: string, bytes: Uint8Array, ctx: ImportContext = {}): Promise<ImportedModel | ImportError> {
  try {
    const d = detectFormat(fileName, bytes, bytes.byteLength);
    if (d.error) return d.error;
    const importer = d.format ? importerFor(d.format) : undefined;
    if (!importer) return failed('The file format could not be determined.');
    return await importer.import(bytes, { fileName, ...ctx });
  } catch (e) {
    return failed(unreadableReason('model', e));
  }
}

function isReadable(kind: string): kind is FormatId {
  return Object.hasOwn(READABLE_FORMATS, kind);
}

const NATIVE_REMEDY = 'export it as STEP (or STL) from the program that made it and upload that file instead';

/** `unsupported` with a reason naming the program, e.g. "This file is a SolidWorks part (.sldprt); …". */
function nativeCadError(extension: string): ImportError | undefined {
  if (!Object.hasOwn(NATIVE_CAD, extension)) return undefined;
  return unsupported(`This file is ${NATIVE_CAD[extension]} (.${extension}); its geometry cannot be read — ${NATIVE_REMEDY}.`);
}

function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}
