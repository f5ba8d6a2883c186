// Helpers for the engine's tests: dropped files and small STEP texts.
import type { SourceFile } from '../engine/planner';

/** A STEP file whose product structure references the given files (none = a part). */
export function stepText(...references: string[]): string {
  const entities = references.map((r, i) => `#${i + 10}=DOCUMENT_FILE('${r}','','',#2,'','');`);
  return [
    'ISO-10303-21;',
    "HEADER;FILE_NAME('x.stp','',(''),(''),'','','');ENDSEC;",
    'DATA;',
    "#1=PRODUCT('p','p','',(#2));",
    "#2=PRODUCT_CONTEXT('',#3,'mechanical');",
    ...entities,
    'ENDSEC;',
    'END-ISO-10303-21;',
  ].join('\n');
}

/** A dropped file; `text` defaults to a STEP part for .stp/.step names. */
export function dropped(path: string, size = 1000, options: { text?: string; lastModified?: number; noBlob?: boolean } = {}): SourceFile {
  const text = options.text ?? (/\.(stp|step)$/i.test(path) ? stepText() : 'solid x\nendsolid x\n');
  return {
    path,
    size,
    lastModified: options.lastModified ?? 1_700_000_000_000,
    text: () => Promise.resolve(text),
    ...(options.noBlob ? {} : { blob: new Blob([new Uint8Array(size)]) }),
  };
}
