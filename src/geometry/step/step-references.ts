// Pure text scan of a STEP (ISO 10303-21) file's product structure. OpenCascade returns no
// geometry for an assembly whose parts live in other files, so these have to be found by hand.

import { fileKindOf } from '../../contract/file-types';
import { parseStepRecord, stepRecords, stepText, stringOf, type StepTyped, type StepValue } from './step-tokenizer';

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

/** Entities that can name an external file, and the one that makes AP203 `DOCUMENT`s count. */
const REFERENCING = new Set([
  'DOCUMENT_FILE',
  'APPLIED_EXTERNAL_IDENTIFICATION_ASSIGNMENT',
  'EXTERNAL_SOURCE',
  'DOCUMENT',
  'APPLIED_DOCUMENT_REFERENCE',
]);
/** A complex instance (`#1=(A(...) B(...));`) worth parsing: one with a part that counts or names a file. */
const COMPLEX_OF_INTEREST = /PRODUCT|NEXT_ASSEMBLY_USAGE_OCCURRENCE|DOCUMENT|EXTERNAL/i;

/** Scans a STEP file (bytes or text) for assembly structure and external file references. */
export function scanStep(content: string | Uint8Array): StepStructure {
  const text = stepText(content);
  // Candidate names by the entity they come from; added in this order, so that a name the file
  // gives in several ways keeps the spelling of its DOCUMENT_FILE.
  const documentFiles: [string, string][] = [];
  const identifications: string[] = [];
  const externalSources: string[] = [];
  const documents: [string, string][] = [];
  let documentReferences = false;
  let productCount = 0;
  let assemblyLinks = 0;

  for (const record of stepRecords(text)) {
    if (record.type === 'PRODUCT') productCount++;
    else if (record.type === 'NEXT_ASSEMBLY_USAGE_OCCURRENCE') assemblyLinks++;
    // Only records that can matter are parsed: most of a file is geometry.
    if (record.type === '' ? !COMPLEX_OF_INTEREST.test(text.slice(record.from, record.end)) : !REFERENCING.has(record.type)) continue;
    for (const part of parseStepRecord(text, record) ?? []) {
      const [first, second] = part.args;
      if (record.type === '') {
        if (part.type === 'PRODUCT') productCount++;
        else if (part.type === 'NEXT_ASSEMBLY_USAGE_OCCURRENCE') assemblyLinks++;
      }
      if (part.type === 'DOCUMENT_FILE') documentFiles.push([stringOf(first), stringOf(second)]);
      else if (part.type === 'APPLIED_EXTERNAL_IDENTIFICATION_ASSIGNMENT') identifications.push(stringOf(first));
      else if (part.type === 'EXTERNAL_SOURCE' && isTyped(first, 'IDENTIFIER')) externalSources.push(stringOf(first.args[0]));
      else if (part.type === 'DOCUMENT') documents.push([stringOf(first), stringOf(second)]);
      else if (part.type === 'APPLIED_DOCUMENT_REFERENCE') documentReferences = true;
    }
  }

  const paths: string[] = [];
  // A name from a field that may also hold a description counts only when it names a model file.
  const add = (raw: string, requireModelFile: boolean) => {
    const p = raw
      .trim()
      .replace(/\\/g, '/')
      .replace(/^file:\/\/\/?/i, '');
    if (!p || !/\.[A-Za-z0-9_]+$/.test(p)) return;
    if (requireModelFile && fileKindOf(p) === null) return;
    if (!paths.includes(p)) paths.push(p);
  };
  // DOCUMENT_FILE(id, name, description, kind, revision, ...): the id is the file name; some
  // writers leave it blank and put the file name into `name`.
  for (const [id, name] of documentFiles) {
    if (/\.[A-Za-z0-9_]+$/.test(id.trim())) add(id, false);
    else add(name, true);
  }
  for (const name of identifications) add(name, true);
  for (const name of externalSources) add(name, true);
  // AP203 style: DOCUMENT(id, name, ...) attached through APPLIED_DOCUMENT_REFERENCE.
  if (documentReferences) {
    for (const [id, name] of documents) {
      add(id, true);
      add(name, true);
    }
  }

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

function isTyped(v: StepValue | undefined, type: string): v is StepTyped {
  return v !== null && typeof v === 'object' && 'typed' in v && v.typed === type;
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
