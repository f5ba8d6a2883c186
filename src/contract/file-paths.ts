// The filePath and folder-name rules of this API (models, folders) as pure checks that
// return a reason a designer can act on, or null when the value is fine.
//
// One source for the app's upload review and the service's validation.
import { z } from 'zod';

export const MAX_FILE_PATH_BYTES = 1024;
export const MAX_FOLDER_NAME_CHARS = 100;

/** Not allowed anywhere in a filePath (model records). */
const FILE_PATH_FORBIDDEN = ['\n', '\r', '*', ':', '"', '<', '>', '|', '#', '[', ']', '?', '\\'] as const;
/** Not allowed in a folder name (folders). */
const FOLDER_NAME_FORBIDDEN = ['\n', '\r', '"', '#', '*', '/', ':', '<', '>', '?', '[', '\\', ']', '|'] as const;

const encoder = new TextEncoder();

export function utf8ByteLength(s: string): number {
  return encoder.encode(s).length;
}

function describeChar(c: string): string {
  if (c === '\n' || c === '\r') return 'a line break';
  return `“${c}”`;
}

function forbiddenIn(value: string, forbidden: readonly string[]): string[] {
  return forbidden.filter((c) => value.includes(c));
}

function listChars(chars: string[]): string {
  const described = [...new Set(chars.map(describeChar))];
  if (described.length === 1) return described[0]!;
  return `${described.slice(0, -1).join(', ')} and ${described[described.length - 1]!}`;
}

/**
 * Paths from react-dropzone: "/asm/parts/p1.iges" (folder drop), "asm/parts/p1.iges"
 * (<input webkitdirectory>), "./a.stl" (single file). Strips the leading "/" or "./".
 */
export function normalizeDroppedPath(path: string): string {
  return path.replace(/^(?:\.?\/)+/, '');
}

/** A target folder as typed or picked: no leading or trailing slashes, no surrounding blanks. */
export function normalizeFolderPath(folder: string): string {
  return folder.trim().replace(/^\/+|\/+$/g, '');
}

export function joinFilePath(folder: string, relativePath: string): string {
  const f = normalizeFolderPath(folder);
  const r = normalizeDroppedPath(relativePath);
  return f ? `${f}/${r}` : r;
}

/** Folder part of a filePath ("" when there is none). */
export function folderOf(filePath: string): string {
  const i = filePath.lastIndexOf('/');
  return i < 0 ? '' : filePath.slice(0, i);
}

/** File-name part of a filePath. */
export function fileNameOf(filePath: string): string {
  return filePath.slice(filePath.lastIndexOf('/') + 1);
}

/** A folder name: 1..100 characters, none of `\n \r " # * / : < > ? [ \ ] |`. */
export function folderNameProblem(name: string): string | null {
  if (name.length === 0) return 'A folder name is empty.';
  if (name === '.' || name === '..') return `“${name}” cannot be used as a folder name.`;
  // zod's .max() and the service count UTF-16 code units; do the same.
  if (name.length > MAX_FOLDER_NAME_CHARS) {
    return `The folder name “${name.slice(0, 40)}…” is longer than ${MAX_FOLDER_NAME_CHARS} characters.`;
  }
  const bad = forbiddenIn(name, FOLDER_NAME_FORBIDDEN);
  if (bad.length > 0) return `The folder name “${name}” contains ${listChars(bad)}, which folder names cannot contain.`;
  return null;
}

/** A folder path written with slashes ("a/b/c"); every segment must be a valid folder name. */
export function folderPathProblem(path: string): string | null {
  if (path.length === 0) return 'Choose a folder to upload into.';
  for (const segment of path.split('/')) {
    const problem = folderNameProblem(segment);
    if (problem) return problem;
  }
  return null;
}

/**
 * A model filePath: folder path + "/" + file name, at most 1024 bytes of UTF-8, none of
 * `\n \r * : " < > | # [ ] ? \`, no "." or ".." segments, every folder a valid folder name.
 */
export function filePathProblem(filePath: string): string | null {
  if (filePath.length === 0) return 'The file has no path.';
  const bytes = utf8ByteLength(filePath);
  if (bytes > MAX_FILE_PATH_BYTES) {
    return `The path is too long (${bytes} bytes; the service allows ${MAX_FILE_PATH_BYTES}). Use shorter folder or file names.`;
  }
  const bad = forbiddenIn(filePath, FILE_PATH_FORBIDDEN);
  if (bad.length > 0) return `The path contains ${listChars(bad)}, which the service does not allow in paths.`;
  const segments = filePath.split('/');
  if (segments.some((s) => s === '.' || s === '..')) return 'The path contains “.” or “..” as a folder, which the service does not allow.';
  if (segments.length < 2) return 'The file must go into a folder; choose a target folder.';
  const fileName = segments[segments.length - 1]!;
  if (fileName.length === 0) return 'The path has no file name.';
  for (const folder of segments.slice(0, -1)) {
    const problem = folderNameProblem(folder);
    if (problem) return problem;
  }
  return null;
}

function refineWith(check: (value: string) => string | null) {
  return (value: string, ctx: z.RefinementCtx) => {
    const problem = check(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
}

/** zod forms of the same rules (see the note at the top of this file). */
export const filePathSchema = z.string().superRefine(refineWith(filePathProblem));
export const folderNameSchema = z.string().superRefine(refineWith(folderNameProblem));
