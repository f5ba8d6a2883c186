// A duplicates report, run by a worker: the scope's duplicate groups (duplicates.ts) with its
// progress written as it goes, and the result kept with the scope's fingerprint (staleness).
import type { Kysely } from 'kysely';
import { existingFolderIds, subtreeIds } from '../store/folders';
import { failReport, finishReport, reportById, scopeFingerprint, setReportProgress, type ReportPhase } from '../store/duplicate-reports';
import type { Database } from '../store/schema';
import { scopeDuplicates, type DuplicateClusters } from './duplicates';
import { TooManyPairs } from './near-pairs';

/** What a ready report keeps: the groups and relations at its threshold, before any decision. */
export type StoredReport = DuplicateClusters;

/** Progress is written at most this often (and at every change of step). */
const PROGRESS_EVERY_MS = 250;

/** The folders a report covers now: the ones asked for that still exist, with their subfolders if asked; null for the whole tenant. */
export async function reportFolders(
  db: Kysely<Database>,
  tenantId: number,
  folderIds: readonly number[] | null,
  includeSubfolders: boolean,
): Promise<number[] | null> {
  if (folderIds === null) return null;
  const roots = await existingFolderIds(db, tenantId, folderIds);
  return includeSubfolders ? subtreeIds(db, tenantId, roots) : roots;
}

/**
 * Runs report `id` unless it is already over. A report whose worker died is run again from the
 * start by the queue's retry. Failures of the request itself (too many pairs at a low threshold)
 * end the report `failed` with the reason; anything else is thrown for the queue to retry.
 */
export async function runDuplicateReport(db: Kysely<Database>, id: string): Promise<void> {
  const report = await reportById(db, id);
  if (!report || report.status === 'ready' || report.status === 'failed') return;
  const folders = await reportFolders(db, report.tenant_id, report.folder_ids, report.include_subfolders);
  let writing: Promise<void> = Promise.resolve();
  let lastStep = '',
    lastAt = 0;
  const write = (phase: ReportPhase, done: number, total: number) => {
    writing = writing.then(() => setReportProgress(db, id, phase, done, total));
  };
  try {
    const fingerprint = await scopeFingerprint(db, report.tenant_id, folders);
    const found = await scopeDuplicates(db, report.tenant_id, folders, report.threshold, {}, (step, done, total) => {
      const now = performance.now();
      if (step === lastStep && now - lastAt < PROGRESS_EVERY_MS && done < total) return;
      lastStep = step;
      lastAt = now;
      write(step, done, total);
    });
    await writing;
    await finishReport(db, id, fingerprint, found satisfies StoredReport);
  } catch (error) {
    await writing.catch(() => {});
    if (error instanceof TooManyPairs) {
      await failReport(
        db,
        id,
        `At ${report.threshold}% more than ${error.maxPairs.toLocaleString('en')} pairs of these models match: run the report at a higher threshold.`,
      );
      return;
    }
    throw error;
  }
}
