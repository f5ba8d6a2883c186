// The one piece of the upload feature the app shell loads up front (the header indicator).
// It holds no engine: the upload session (lazy, with the upload page) publishes into it.

export interface UploadStatus {
  /** Files being sent or waiting for the service to finish. */
  active: boolean;
  /** The batch needs attention: files to drop again, or failures. */
  attention: boolean;
  filesTotal: number;
  /** Stored and settled, failed or cancelled. */
  filesDone: number;
  /** Files whose model record exists on the service (their folders exist too). */
  filesRecorded: number;
  bytesTotal: number;
  bytesSent: number;
  /** Short words for the header: "Uploading 3 of 10", "Processing 4", "Upload finished". */
  label: string;
}

export const idleUploadStatus: UploadStatus = Object.freeze({
  active: false,
  attention: false,
  filesTotal: 0,
  filesDone: 0,
  filesRecorded: 0,
  bytesTotal: 0,
  bytesSent: 0,
  label: '',
});

let status: UploadStatus = idleUploadStatus;
const listeners = new Set<() => void>();

export function getUploadStatus(): UploadStatus {
  return status;
}

export function subscribeUploadStatus(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function publishUploadStatus(next: UploadStatus): void {
  const same = (Object.keys(next) as (keyof UploadStatus)[]).every((k) => next[k] === status[k]);
  if (same) return;
  status = next;
  for (const listener of [...listeners]) listener();
}

// A saved batch is flagged in localStorage (cheap, synchronous) so the shell knows, without
// opening IndexedDB or loading the engine, whether there is one to bring back after a reload.
const SAVED_FLAG = 'gsw.upload.saved-batch';

export function hasSavedBatch(): boolean {
  try {
    return globalThis.localStorage?.getItem(SAVED_FLAG) === '1';
  } catch {
    return false;
  }
}

export function setSavedBatchFlag(saved: boolean): void {
  try {
    if (saved) globalThis.localStorage?.setItem(SAVED_FLAG, '1');
    else globalThis.localStorage?.removeItem(SAVED_FLAG);
  } catch {
    // Storage refused (private mode): the batch is then brought back only on the upload page.
  }
}
