// Review and order a drop of files before anything is sent (issue 4, deliverables 1 and 2).
import {
  filePathProblem,
  fileNameOf,
  folderOf,
  folderPathProblem,
  joinFilePath,
  normalizeDroppedPath,
  normalizeFolderPath,
} from '../../../contract/file-paths';
import { extensionOf, fileKindOf, isStepFile, needsDeclaredUnit, type FileKind } from '../../../contract/file-types';
import { structureOf, SUPPORTED_EXTENSIONS_TEXT, type Role } from './roles';
import type { DeclaredUnit } from '../../../contract/models';
import { formatBytes } from '../../../ui/format-bytes';

/** One dropped file, as the page hands it over (a File plus react-dropzone's path). */
export interface SourceFile {
  /** react-dropzone's `path`/`relativePath`, or the file name. A leading "/" or "./" is stripped. */
  path: string;
  size: number;
  lastModified: number;
  /**
   * Text of the file, read only for STEP files to find assemblies and their references. The first
   * few MB are enough: pass `() => file.slice(0, 8 << 20).text()`.
   */
  text?: () => Promise<string>;
  /** The bytes to upload (the File itself). Not needed to plan. */
  blob?: Blob;
}

export interface PlanOptions {
  /** Folder path the drop goes into ("Projects/Pump"); the dropped paths are appended to it. */
  targetFolder: string;
  maxFileBytes: number;
  /** How much of a STEP file's text is scanned for references (characters). */
  maxScanChars?: number;
  /** How many files are read at once while scanning. */
  scanConcurrency?: number;
  /** The unit of mesh files that do not say theirs (STL, OBJ, PLY, OFF); default millimetres. */
  meshUnits?: DeclaredUnit;
  /**
   * Paths (lower case) that already hold a model on the service: files dropped at one of them are
   * kept beside it under a free name such as `bracket (2).step`.
   */
  keepBesideStored?: ReadonlySet<string>;
}

/** One line of the review list shown before anything is sent. */
export interface ReviewRow {
  /** Position in the dropped list. */
  index: number;
  filePath: string;
  /** Display name sent at creation (the file name). */
  name: string;
  size: number;
  lastModified: number;
  extension: string;
  kind: FileKind | null;
  /** null when the type is not recognised. */
  role: Role | null;
  /** File names this file references (STEP external references). */
  references: string[];
  /** Reasons the file will not be sent. Empty = it will be sent. */
  problems: string[];
  /** Things worth knowing that do not stop the upload (missing parts, native CAD...). */
  notes: string[];
}

/** One file that will be sent, in sending order. */
export interface PlanItem {
  index: number;
  filePath: string;
  name: string;
  size: number;
  lastModified: number;
  role: Role;
  kind: FileKind;
  /** filePaths of files in this plan that should be stored before this one (its parts). */
  dependsOn: string[];
  /** 0 for parts; 1 + the deepest sub-assembly below it for assemblies. */
  depth: number;
  /** For a mesh file that does not say its unit: the one chosen for the batch. */
  units?: DeclaredUnit;
}

export interface PlanResult {
  targetFolder: string;
  /** Set when the target folder itself breaks the folder rules. */
  folderProblem: string | null;
  rows: ReviewRow[];
  plan: PlanItem[];
}

export const DEFAULT_MAX_SCAN_CHARS = 8 * 1024 * 1024;

const ROLE_RANK: Record<Role, number> = { part: 0, 'sub-assembly': 1, assembly: 2 };

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function isInSubtree(folder: string, candidateFilePath: string): boolean {
  const lowerFolder = folder.toLowerCase();
  const candidateFolder = folderOf(candidateFilePath).toLowerCase();
  return candidateFolder === lowerFolder || candidateFolder.startsWith(`${lowerFolder}/`);
}

/** `bracket.step` as its n-th copy: `bracket (n).step`. */
export function numberedCopy(filePath: string, n: number): string {
  const name = fileNameOf(filePath);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : '';
  return joinFilePath(folderOf(filePath), `${stem} (${n})${extension}`);
}

/** Renames the rows dropped at a stored path to the first numbered copy nobody holds. */
function keepBeside(rows: ReviewRow[], stored: ReadonlySet<string>): void {
  const taken = new Set([...stored, ...rows.map((r) => r.filePath.toLowerCase())]);
  for (const row of rows) {
    if (!stored.has(row.filePath.toLowerCase())) continue;
    let n = 2;
    while (taken.has(numberedCopy(row.filePath, n).toLowerCase())) n++;
    const renamed = numberedCopy(row.filePath, n);
    taken.add(renamed.toLowerCase());
    row.notes.push(`${row.filePath} is already on the service; this file is kept beside it as ${fileNameOf(renamed)}.`);
    row.filePath = renamed;
    row.name = fileNameOf(renamed);
  }
}

/**
 * What is wrong with the target folder for these dropped paths, or null. No target is fine when
 * every file came in a dropped folder: that folder goes to the top level by its own name.
 */
export function targetFolderProblem(targetFolder: string, droppedPaths: readonly string[]): string | null {
  if (targetFolder !== '') return folderPathProblem(targetFolder);
  const loose = droppedPaths.filter((p) => !normalizeDroppedPath(p).includes('/')).length;
  if (loose === 0) return null;
  return `Type the folder to put ${loose === 1 ? 'the file' : `the ${loose} files`} that ${loose === 1 ? 'is' : 'are'} not in a dropped folder into.`;
}

/**
 * Builds the review list and the sending plan: parts, then sub-assemblies, then top assemblies,
 * assemblies after the files they reference (cycles are broken and noted).
 */
export async function planUpload(files: readonly SourceFile[], options: PlanOptions): Promise<PlanResult> {
  const targetFolder = normalizeFolderPath(options.targetFolder);
  const folderProblem = targetFolderProblem(
    targetFolder,
    files.map((f) => f.path),
  );
  const maxScanChars = options.maxScanChars ?? DEFAULT_MAX_SCAN_CHARS;

  const rows: ReviewRow[] = files.map((file, index) => {
    const relative = normalizeDroppedPath(file.path);
    const filePath = joinFilePath(targetFolder, relative);
    const name = fileNameOf(filePath);
    const extension = extensionOf(name);
    const kind = fileKindOf(name);
    const problems: string[] = [];
    const notes: string[] = [];
    if (!kind) {
      problems.push(
        extension
          ? `“.${extension}” files are not supported. Supported: ${SUPPORTED_EXTENSIONS_TEXT}.`
          : `The file has no extension, so its type is unknown. Supported: ${SUPPORTED_EXTENSIONS_TEXT}.`,
      );
    }
    // A loose file without a target: the target field says what to do, not every row. Its own
    // name is still checked, as if it were in a folder.
    const pathProblem = filePathProblem(targetFolder === '' && !relative.includes('/') ? joinFilePath('folder', relative) : filePath);
    if (pathProblem) problems.push(pathProblem);
    if (file.size === 0) problems.push('The file is empty.');
    else if (file.size > options.maxFileBytes) {
      problems.push(`The file is ${formatBytes(file.size, 'up')}; the limit is ${formatBytes(options.maxFileBytes)}.`);
    }
    if (kind === 'native')
      notes.push('Native CAD file: it is stored, but the service may mark it unsupported if it cannot read its geometry.');
    return {
      index,
      filePath,
      name,
      size: file.size,
      lastModified: file.lastModified,
      extension,
      kind,
      role: kind ? 'part' : null,
      references: [],
      problems,
      notes,
    };
  });

  if (options.keepBesideStored?.size) keepBeside(rows, options.keepBesideStored);

  // Duplicates (case-insensitive): the first one is kept, the others are flagged.
  const firstByPath = new Map<string, ReviewRow>();
  for (const row of rows) {
    const key = row.filePath.toLowerCase();
    const first = firstByPath.get(key);
    if (first) row.problems.push(`Another file in this drop has the same path (${first.filePath}).`);
    else firstByPath.set(key, row);
  }

  // Structure: STEP files are read (only the ones that could be sent); natives by extension.
  const assemblies = new Set<ReviewRow>();
  await mapLimit(rows, options.scanConcurrency ?? 4, async (row) => {
    const file = files[row.index]!;
    let text: string | null = null;
    const readable = row.size > 0 && row.size <= options.maxFileBytes;
    if (isStepFile(row.name) && file.text && readable) {
      try {
        text = (await file.text()).slice(0, maxScanChars);
      } catch {
        row.notes.push('The file could not be read to check whether it is an assembly; it is sent as a part.');
      }
    }
    const structure = structureOf(row.name, text);
    row.references = structure.references;
    if (structure.isAssembly) {
      row.role = 'assembly';
      assemblies.add(row);
    }
  });

  const sendable = (row: ReviewRow) => row.problems.length === 0 && row.kind !== null;
  const byFileName = new Map<string, ReviewRow[]>();
  for (const row of rows) {
    const key = row.name.toLowerCase();
    const list = byFileName.get(key);
    if (list) list.push(row);
    else byFileName.set(key, [row]);
  }

  // Edges assembly -> referenced files (the service looks them up by file name in the
  // assembly's folder and its subfolders).
  const edges = new Map<ReviewRow, ReviewRow[]>();
  for (const row of assemblies) {
    const folder = folderOf(row.filePath);
    const targets: ReviewRow[] = [];
    const missing: string[] = [];
    const elsewhere: string[] = [];
    const withProblems: string[] = [];
    for (const ref of row.references) {
      const candidates = (byFileName.get(ref.toLowerCase()) ?? []).filter((c) => c !== row);
      const inTree = candidates.filter((c) => isInSubtree(folder, c.filePath));
      if (inTree.length === 0) {
        if (candidates.length > 0) elsewhere.push(ref);
        else missing.push(ref);
        continue;
      }
      const good = inTree.filter(sendable);
      if (good.length === 0) withProblems.push(ref);
      for (const c of good) if (!targets.includes(c)) targets.push(c);
    }
    edges.set(row, targets);
    if (missing.length > 0) {
      row.notes.push(
        `References ${missing.length} file${missing.length === 1 ? '' : 's'} not in this drop (${missing.join(', ')}). ` +
          'Unless they are already in this folder on the service, the assembly will be incomplete.',
      );
    }
    if (elsewhere.length > 0) {
      row.notes.push(
        `${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'is' : 'are'} in this drop but not in the assembly’s folder or a subfolder of it, so the service will not link ${elsewhere.length === 1 ? 'it' : 'them'}.`,
      );
    }
    if (withProblems.length > 0) {
      row.notes.push(
        `${withProblems.join(', ')} will not be sent (see ${withProblems.length === 1 ? 'its' : 'their'} problems), so the assembly will be incomplete.`,
      );
    }
  }

  // Referenced assemblies are sub-assemblies.
  for (const [, targets] of edges) {
    for (const t of targets) if (t.role === 'assembly') t.role = 'sub-assembly';
  }

  // Depth-first walk: depth of every assembly, and edges that close a cycle are dropped.
  const depth = new Map<ReviewRow, number>();
  const dependsOn = new Map<ReviewRow, ReviewRow[]>();
  const visiting = new Set<ReviewRow>();
  const visit = (row: ReviewRow): number => {
    const known = depth.get(row);
    if (known !== undefined) return known;
    if (!assemblies.has(row)) {
      depth.set(row, 0);
      return 0;
    }
    visiting.add(row);
    let d = 1;
    const kept: ReviewRow[] = [];
    for (const target of edges.get(row) ?? []) {
      if (visiting.has(target)) {
        row.notes.push(`${row.name} and ${target.name} reference each other; the order between them is a guess.`);
        continue;
      }
      kept.push(target);
      if (assemblies.has(target)) d = Math.max(d, visit(target) + 1);
    }
    visiting.delete(row);
    dependsOn.set(row, kept);
    depth.set(row, d);
    return d;
  };
  for (const row of rows) if (sendable(row)) visit(row);

  const plan: PlanItem[] = rows
    .filter(sendable)
    .map((row) => ({
      index: row.index,
      filePath: row.filePath,
      name: row.name,
      size: row.size,
      lastModified: row.lastModified,
      role: row.role!,
      kind: row.kind!,
      dependsOn: (dependsOn.get(row) ?? []).map((r) => r.filePath),
      depth: depth.get(row) ?? 0,
      ...(needsDeclaredUnit(row.name) ? { units: options.meshUnits ?? 'mm' } : {}),
    }))
    .sort((a, b) => ROLE_RANK[a.role] - ROLE_RANK[b.role] || a.depth - b.depth || a.index - b.index);

  return { targetFolder, folderProblem, rows, plan };
}

/** Splits a plan into creation requests of at most `size` models (100, the service's limit). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
