// The one vocabulary of model file types: which extensions name which format, which formats the
// service reads, and which native CAD files it recognises but cannot read. The upload planner,
// the folder filters, the stored `fileType`, the ingest worker and the geometry import registry
// all decide through this module, so a file is judged the same way from drop to ingestion.

/**
 * How the service treats a file: `cad` (exchange formats with exact geometry) and `mesh`
 * (triangles) it reads; `native` it stores, but it cannot read the geometry, so the model ends
 * `unsupported` with a reason naming the program that made it.
 */
export type FileKind = 'cad' | 'mesh' | 'native';

/** Formats whose geometry the service reads, with their extensions (lower case, no dot). */
export const READABLE_FORMATS = {
  // CAD exchange formats, read with OpenCascade. `.p21` is the name ISO 10303-21 itself uses for
  // a STEP file.
  step: { kind: 'cad', extensions: ['step', 'stp', 'p21'] },
  iges: { kind: 'cad', extensions: ['iges', 'igs'] },
  brep: { kind: 'cad', extensions: ['brep', 'brp'] },
  stl: { kind: 'mesh', extensions: ['stl'] },
  obj: { kind: 'mesh', extensions: ['obj'] },
  ply: { kind: 'mesh', extensions: ['ply'] },
  off: { kind: 'mesh', extensions: ['off'] },
  gltf: { kind: 'mesh', extensions: ['gltf'] },
  glb: { kind: 'mesh', extensions: ['glb'] },
  '3mf': { kind: 'mesh', extensions: ['3mf'] },
} as const satisfies Record<string, { kind: Exclude<FileKind, 'native'>; extensions: readonly string[] }>;

/** A format whose geometry the service reads; every id is also one of its extensions. */
export type FormatId = keyof typeof READABLE_FORMATS;

/** Native CAD files by extension, as a message names them ("This file is a SolidWorks part"). */
export const NATIVE_CAD: Readonly<Record<string, string>> = {
  sldprt: 'a SolidWorks part',
  sldasm: 'a SolidWorks assembly',
  slddrw: 'a SolidWorks drawing',
  prt: 'a Creo or NX part',
  asm: 'a Creo or Solid Edge assembly',
  drw: 'a Creo drawing',
  catpart: 'a CATIA V5 part',
  catproduct: 'a CATIA V5 product (assembly)',
  catdrawing: 'a CATIA V5 drawing',
  cgr: 'a CATIA graphics file',
  ipt: 'an Inventor part',
  iam: 'an Inventor assembly',
  idw: 'an Inventor drawing',
  x_t: 'a Parasolid text file',
  x_b: 'a Parasolid binary file',
  xmt_txt: 'a Parasolid text file',
  xmt_bin: 'a Parasolid binary file',
  par: 'a Solid Edge part',
  psm: 'a Solid Edge sheet-metal part',
  pwd: 'a Solid Edge weldment',
  jt: 'a JT file',
  sat: 'an ACIS file',
  sab: 'an ACIS file',
  '3dm': 'a Rhino model',
  f3d: 'a Fusion 360 archive',
  fcstd: 'a FreeCAD document',
  skp: 'a SketchUp model',
  dwg: 'an AutoCAD drawing',
  dxf: 'a DXF drawing',
};

/** Native kinds that are assemblies by definition (SolidWorks, Creo, CATIA, Inventor). */
const NATIVE_ASSEMBLIES: ReadonlySet<string> = new Set(['sldasm', 'asm', 'catproduct', 'iam']);

/**
 * Formats whose files do not say what unit their numbers are in: the uploader says it. BREP is
 * OpenCascade's own format and carries no unit either (a part read as millimetres can be 38 m long).
 */
const UNITLESS: ReadonlySet<FormatId> = new Set<FormatId>(['stl', 'obj', 'ply', 'off', 'brep']);

/** Extensions whose geometry the service reads. */
export const READABLE_EXTENSIONS: readonly string[] = Object.values(READABLE_FORMATS).flatMap((f) => f.extensions);
/** Native CAD extensions: accepted and stored, never read. */
export const NATIVE_CAD_EXTENSIONS: readonly string[] = Object.keys(NATIVE_CAD);
/** Every extension an upload may have: the readable ones, then native CAD. */
export const ACCEPTED_EXTENSIONS: readonly string[] = [...READABLE_EXTENSIONS, ...NATIVE_CAD_EXTENSIONS];

const FORMAT_OF_EXTENSION: ReadonlyMap<string, FormatId> = new Map(
  (Object.keys(READABLE_FORMATS) as FormatId[]).flatMap((id) => READABLE_FORMATS[id].extensions.map((e) => [e, id] as const)),
);

/**
 * Lower-case extension of a file name (folders ignored), without the dot; "" when there is none.
 *
 * - Several dots: the last part counts ("v1.2.stl" → "stl", "part.tar.gz" → "gz").
 * - A trailing number after an extension is a version, not a type: Creo (Pro/ENGINEER) saves
 *   every version beside the last as "bracket.prt.1", "bracket.prt.2", … and those are Creo parts
 *   ("prt"). A number alone ("scan.001") is the extension.
 * - Leading dots belong to the name, as on Unix: ".hidden" and ".stl" have no extension.
 */
export function extensionOf(fileName: string): string {
  const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1).toLowerCase();
  const parts = base.replace(/^\.+/, '').split('.').slice(1);
  const last = parts.at(-1) ?? '';
  const before = parts.at(-2);
  return /^\d+$/.test(last) && before !== undefined && before !== '' && !/^\d+$/.test(before) ? before : last;
}

/** The readable format of a bare extension or format id, any case, with or without its dot ("STL", ".stp"). */
export function formatOfExtension(extension: string): FormatId | undefined {
  return FORMAT_OF_EXTENSION.get(extension.trim().toLowerCase().replace(/^\./, ''));
}

/** The readable format a file's name says it is, or undefined. */
export function formatOf(fileName: string): FormatId | undefined {
  return FORMAT_OF_EXTENSION.get(extensionOf(fileName));
}

/** How the service treats a file with this name; null when it is not a model file we accept. */
export function fileKindOf(fileName: string): FileKind | null {
  const extension = extensionOf(fileName);
  const format = FORMAT_OF_EXTENSION.get(extension);
  if (format) return READABLE_FORMATS[format].kind;
  return Object.hasOwn(NATIVE_CAD, extension) ? 'native' : null;
}

/** A triangle-mesh format (as opposed to CAD exchange or native CAD). */
export function isMeshFormat(fileName: string): boolean {
  return fileKindOf(fileName) === 'mesh';
}

/** A STEP file: the only format whose assemblies may reference parts in other files. */
export function isStepFile(fileName: string): boolean {
  return formatOf(fileName) === 'step';
}

/** A native CAD assembly (its parts cannot be read, but it is known to be an assembly). */
export function isNativeAssemblyFile(fileName: string): boolean {
  return NATIVE_ASSEMBLIES.has(extensionOf(fileName));
}

/** A mesh whose file does not state its unit, so the uploader declares one. */
export function needsDeclaredUnit(fileName: string): boolean {
  const format = formatOf(fileName);
  return format !== undefined && UNITLESS.has(format);
}

/** The axis a model's geometry calls "up": thumbnails and every 3D view stand the model on it. */
export const upAxes = ['z', 'y'] as const;
export type UpAxis = (typeof upAxes)[number];

// glTF is Y-up by its specification, and OBJ comes mostly from Y-up tools (Blender, Maya, game
// engines). CAD exchange files (STEP, IGES, BREP) and print formats (STL, 3MF, PLY, OFF) are Z-up
// by convention. A designer overrides it per model where a file breaks the rule.
const Y_UP_FORMATS: ReadonlySet<FormatId | undefined> = new Set<FormatId>(['gltf', 'glb', 'obj']);

/** The up axis a file of this name has unless its model says otherwise. */
export function defaultUpAxis(fileName: string): UpAxis {
  return Y_UP_FORMATS.has(formatOf(fileName)) ? 'y' : 'z';
}

/** A stored or requested up axis, if it is one (anything else: null, the format decides). */
export function parseUpAxis(value: string | null | undefined): UpAxis | null {
  return (upAxes as readonly string[]).includes(value ?? '') ? (value as UpAxis) : null;
}
