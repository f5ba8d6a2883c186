// Pure text scan of a STEP (ISO 10303-21) file's product structure. OpenCascade returns no
// geometry for an assembly whose parts live in other files, so these have to be found by hand.

/** What the product structure of a STEP file says about assemblies. */
export interface StepStructure {
  /** File names (no folders) of the external part/sub-assembly files, in order of appearance. */
  references: string[];
  /** The same references as written in the file (may include folders, always with `/`). */
  referencePaths: string[];
  /** Number of PRODUCT entities. */
  productCount: number;
  /** Number of parent → child links (NEXT_ASSEMBLY_USAGE_OCCURRENCE). */
  assemblyLinks: number;
  /** True when the file describes an assembly (links between products, or external references). */
  isAssembly: boolean;
}

const CAD_FILE = /\.(stp|step|p21|stpz|stpx|igs|iges|brp|brep|x_t|x_b|xmt_txt|xmt_bin|sldprt|sldasm|catpart|catproduct|prt|asm|ipt|iam|par|psm|jt|stl|3mf|obj|ply|off|glb|gltf)(\.\d+)?$/i;

/** Scans a STEP file (bytes or text) for assembly structure and external file references. */
export function scanStep(content: string | Uint8Array): StepStructure {
  const text = typeof content === 'string' ? content : new TextDecoder('latin1').decode(content);
  const dataAt = text.search(/\bDATA\s*(\([^)]*\))?\s*;/);
  const data = dataAt >= 0 ? text.slice(dataAt) : text;

  const paths: string[] = [];
  const add = (raw: string | undefined, requireCadExtension: boolean) => {
    if (raw === undefined) return;
    const p = decodeStepString(raw).trim().replace(/\\/g, '/').replace(/^file:\/\/\/?/i, '');
    if (!p || !/\.[A-Za-z0-9_]+$/.test(p)) return;
    if (requireCadExtension && !CAD_FILE.test(p)) return;
    if (!paths.includes(p)) paths.push(p);
  };
  const str = String.raw`'((?:[^']|'')*)'`;
  // DOCUMENT_FILE(id, name, description, kind, revision, ...): the id is the file name; some
  // writers leave it blank and put the file name into `name`.
  for (const m of data.matchAll(new RegExp(String.raw`\bDOCUMENT_FILE\s*\(\s*${str}\s*,\s*${str}`, 'gi'))) {
    if (/\.[A-Za-z0-9_]+$/.test(m[1]!.trim())) add(m[1], false);
    else add(m[2], true);
  }
  for (const m of data.matchAll(new RegExp(String.raw`\bAPPLIED_EXTERNAL_IDENTIFICATION_ASSIGNMENT\s*\(\s*${str}`, 'gi'))) add(m[1], true);
  for (const m of data.matchAll(new RegExp(String.raw`\bEXTERNAL_SOURCE\s*\(\s*IDENTIFIER\s*\(\s*${str}`, 'gi'))) add(m[1], true);
  // AP203 style: DOCUMENT(id, name, ...) attached through APPLIED_DOCUMENT_REFERENCE.
  if (/\bAPPLIED_DOCUMENT_REFERENCE\s*\(/i.test(data)) {
    for (const m of data.matchAll(new RegExp(String.raw`[=\s]DOCUMENT\s*\(\s*${str}\s*,\s*${str}`, 'gi'))) {
      add(m[1], true);
      add(m[2], true);
    }
  }

  const productCount = countMatches(data, /[=\s(]PRODUCT\s*\(/gi);
  const assemblyLinks = countMatches(data, /\bNEXT_ASSEMBLY_USAGE_OCCURRENCE\s*\(/gi);
  const references = unique(paths.map((p) => p.slice(p.lastIndexOf('/') + 1)));
  return { references, referencePaths: paths, productCount, assemblyLinks, isAssembly: assemblyLinks > 0 || references.length > 0 };
}

/** File names (no folders) that a STEP file's product structure references. */
export function findStepReferences(content: string | Uint8Array): string[] {
  return scanStep(content).references;
}

/** True when the STEP file is an assembly: products linked to each other, or external part files. */
export function isStepAssembly(content: string | Uint8Array): boolean {
  return scanStep(content).isAssembly;
}

/** Decodes a STEP string literal's escapes: '' and the \X\, \X2\…\X0\, \X4\…\X0\ and \S\ forms. */
export function decodeStepString(s: string): string {
  return s
    .replace(/''/g, "'")
    .replace(/\\X2\\((?:[0-9A-F]{4})+)\\X0\\/gi, (_, hex: string) => String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16))))
    .replace(/\\X4\\((?:[0-9A-F]{8})+)\\X0\\/gi, (_, hex: string) => String.fromCodePoint(...(hex.match(/.{8}/g) ?? []).map((h) => parseInt(h, 16))))
    .replace(/\\X\\([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\S\\(.)/g, (_, c: string) => String.fromCharCode(c.charCodeAt(0) + 128))
    .replace(/\\\\/g, '\\');
}

function countMatches(s: string, re: RegExp): number {
  let n = 0;
  for (const _ of s.matchAll(re)) n++;
  return n;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
