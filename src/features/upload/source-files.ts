// Dropped or picked files as the engine's SourceFile.
import type { SourceFile } from './engine/planner';

/** Bytes of a STEP file read to find assemblies and their references. */
const SCAN_BYTES = 8 << 20;

type DroppedFile = File & { path?: string; relativePath?: string };

/**
 * react-dropzone's `path` ("/asm/p1.stp" on a folder drop, "asm/p1.stp" from
 * <input webkitdirectory>, "./a.stl" for a single file), else the browser's
 * webkitRelativePath, else the name. The engine strips a leading "/" or "./".
 */
export function droppedPathOf(file: DroppedFile): string {
  return file.path || file.relativePath || file.webkitRelativePath || file.name;
}

export function toSourceFile(file: File): SourceFile {
  return {
    path: droppedPathOf(file as DroppedFile),
    size: file.size,
    lastModified: file.lastModified,
    text: () => file.slice(0, SCAN_BYTES).text(),
    blob: file,
  };
}

/** Files of several drops, without repeating one that was already taken (same path, size and date). */
export function mergeSourceFiles(existing: readonly SourceFile[], added: readonly SourceFile[]): SourceFile[] {
  const key = (f: SourceFile) => `${f.path.replace(/^(?:\.?\/)+/, '').toLowerCase()}|${f.size}|${f.lastModified}`;
  const seen = new Set(existing.map(key));
  const out = [...existing];
  for (const f of added) {
    if (seen.has(key(f))) continue;
    seen.add(key(f));
    out.push(f);
  }
  return out;
}
