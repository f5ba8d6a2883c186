import type { FileStatus } from './engine/engine';
import type { Role } from './engine/roles';
import { stateLabel } from '../../ui/model-state';

// A file the service took is a model: its states read as everywhere else in the app.
export const statusWords: Record<FileStatus, string> = {
  problem: 'Not sent',
  'needs-file': 'Add the file again',
  waiting: 'Waiting',
  uploading: 'Uploading',
  retrying: 'Retrying',
  'upload-failed': 'Upload failed',
  cancelled: 'Cancelled',
  processing: stateLabel('processing'),
  finished: stateLabel('finished'),
  'finished-incomplete': stateLabel('finished-incomplete'),
  failed: stateLabel('failed'),
  'failed-incomplete': stateLabel('failed-incomplete'),
  unsupported: stateLabel('unsupported'),
  gone: 'Deleted',
};

/** Order of the counts in the summary. */
export const summaryOrder: readonly FileStatus[] = [
  'waiting',
  'uploading',
  'retrying',
  'processing',
  'finished',
  'finished-incomplete',
  'failed',
  'failed-incomplete',
  'unsupported',
  'upload-failed',
  'cancelled',
  'needs-file',
  'gone',
];

export const roleWords: Record<Role, string> = { part: 'Part', 'sub-assembly': 'Sub-assembly', assembly: 'Assembly' };

export type Tone = 'ok' | 'warn' | 'bad' | 'busy' | 'quiet';

export function toneOf(status: FileStatus): Tone {
  switch (status) {
    case 'finished':
      return 'ok';
    case 'finished-incomplete':
    case 'needs-file':
    case 'retrying':
      return 'warn';
    case 'failed':
    case 'failed-incomplete':
    case 'upload-failed':
    case 'unsupported':
    case 'problem':
      return 'bad';
    case 'uploading':
    case 'processing':
    case 'waiting':
      return 'busy';
    default:
      return 'quiet';
  }
}

/** "1 part", "3 parts"; "1 assembly", "2 assemblies". */
export function countWords(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

const pathCollator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * Rows in file-path order (a folder's files together, as in a file browser) with each one's
 * index in the engine's list, which is what removing or cancelling one refers to.
 */
export function inPathOrder<T extends { readonly filePath: string }>(files: readonly T[]): [T, number][] {
  return files.map((f, i): [T, number] => [f, i]).sort(([a], [b]) => pathCollator.compare(a.filePath, b.filePath));
}

/** `filePath` without the batch's target folder, which the page shows once above the list. */
export function pathInFolder(filePath: string, folder: string): string {
  const prefix = folder.replace(/\/+$/, '');
  return prefix && filePath.toLowerCase().startsWith(`${prefix.toLowerCase()}/`) ? filePath.slice(prefix.length + 1) : filePath;
}
