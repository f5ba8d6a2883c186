// The upload in progress, kept outside React so it goes on while the user browses elsewhere
// in the app. One per page load (module singleton); the header indicator reads its status.
import { reprocessModel } from '../../api/models';
import { attachFile } from '../../api/attach-file';
import { fileNameOf } from '../../contract/file-paths';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../../contract/app-config';
import { UploadEngine, type AttachResult, type EngineSnapshot } from './engine/engine';
import { targetFolderProblem, type SourceFile } from './engine/planner';
import type { DeclaredUnit } from '../../contract/models';
import type { Transport } from './engine/transport';
import { createHttpTransport } from './http-transport';
import { indexedDbBatchStore, throttledSaver, type BatchStore } from './persistence';
import { mergeSourceFiles } from './source-files';
import { joinFilePath, normalizeFolderPath } from '../../contract/file-paths';
import { idleUploadStatus, publishUploadStatus, setSavedBatchFlag, type UploadStatus } from './upload-status';

export type SessionPhase =
  | 'empty'
  /** Reading the dropped files (STEP structure). */
  | 'planning'
  /** Files listed, nothing sent. */
  | 'review'
  /** Sending, following, or finished (see the engine's stage). */
  | 'running';

export interface SessionState {
  readonly phase: SessionPhase;
  readonly engine: UploadEngine | null;
  readonly targetFolder: string;
  /** The unit of the batch's mesh files that do not say theirs (STL, OBJ, PLY, OFF). */
  readonly meshUnits: DeclaredUnit;
  /** The target folder breaks the folder rules (review). */
  readonly folderProblem: string | null;
  /** Something went wrong reading the files or restoring. */
  readonly error: string | null;
  /** What happened to the files dropped on a restored batch. */
  readonly attach: AttachResult | null;
  /** The saved batch could not be written (the upload goes on; a reload loses it). */
  readonly saveFailed: boolean;
  /** Why the last "Start upload" did not start (review); cleared by the next review. */
  readonly startError: string | null;
  /** Started, waiting for the batch before it to be sent (a queued batch). */
  readonly queued: boolean;
  /** Paths of the review that already hold a model on the service. */
  readonly stored: readonly string[];
  /** What happens to files dropped at a stored path: left out, or kept beside under a free name. */
  readonly whenStored: WhenStored;
}

export type WhenStored = 'skip' | 'keep-both';

export interface UploadSessionDeps {
  transport?: Transport;
  store?: BatchStore;
  /** Largest file offered for upload (default: the service's default limit). */
  maxFileBytes?: number;
  /** How often the batch is written to storage while it changes (ms). */
  saveEveryMs?: number;
  /** Engine notification throttle (ms). */
  notifyIntervalMs?: number;
  /** Asks the service to reprocess a model. */
  reprocess?: (id: string) => Promise<unknown>;
  /** Sends a new file to a model that could not be read (the same record takes it). */
  replaceFile?: (model: { id: string; filePath: string; name: string }, file: Blob) => Promise<unknown>;
  /** The window to hook beforeunload/visibilitychange on; null in tests that do not want it. */
  window?: Window | null;
  /** Whether a batch before this one is still being sent or waiting (then this one is queued). */
  mustWait?: () => boolean;
  /** This batch starts sending: the others hand the saved copy and the header's status over. */
  onStart?: (session: UploadSession) => void;
}

const initial: SessionState = {
  phase: 'empty',
  engine: null,
  targetFolder: '',
  meshUnits: 'mm',
  folderProblem: null,
  error: null,
  attach: null,
  saveFailed: false,
  startError: null,
  queued: false,
  stored: [],
  whenStored: 'skip',
};

const DONE_STATUSES = new Set([
  'finished',
  'finished-incomplete',
  'failed',
  'failed-incomplete',
  'unsupported',
  'upload-failed',
  'cancelled',
  'gone',
]);

export function statusOf(snap: EngineSnapshot): UploadStatus {
  const files = snap.files.filter((f) => f.status !== 'problem');
  const filesDone = files.filter((f) => DONE_STATUSES.has(f.status)).length;
  const active = snap.stage === 'sending' || snap.stage === 'processing';
  const attention = snap.stage === 'needs-files';
  // Avoids the word "upload": the nav link "Upload" must stay the only link of that name.
  const sent = files.length - snap.summary.waiting - snap.summary.uploading - snap.summary.retrying - snap.summary['needs-file'];
  // Short: it shares the header with the brand, the nav and the user menu.
  const label =
    snap.stage === 'sending'
      ? `Sending ${sent} of ${files.length}`
      : snap.stage === 'processing'
        ? `Processing ${snap.summary.processing} of ${files.length}`
        : attention
          ? `${snap.summary['needs-file']} files to add again`
          : '';
  const filesRecorded = files.filter((f) => f.modelId !== null).length;
  return {
    active,
    attention,
    filesTotal: files.length,
    filesDone,
    filesRecorded,
    bytesTotal: snap.bytesTotal,
    bytesSent: snap.bytesSent,
    label,
  };
}

export class UploadSession {
  private state: SessionState = initial;
  private readonly listeners = new Set<() => void>();
  private files: SourceFile[] = [];
  /** The files of the review as planned: `files` without the skipped ones (review indexes point here). */
  private planned: SourceFile[] = [];
  private planToken = 0;
  /**
   * "Start upload" was asked for while the review was being re-read (e.g. the target folder
   * field, blurred by that very click, replanned): the upload starts when the new review lands.
   */
  private startWanted = false;
  private unhook: (() => void) | null = null;
  private restoring: Promise<void> | null = null;
  private saver: ReturnType<typeof throttledSaver> | null = null;
  private transportInstance: Transport | null = null;
  private storeInstance: BatchStore | null = null;
  private maxFileBytes: number;
  /** Whether this batch writes the saved copy and the header's status (a batch queued after it took them over). */
  private owner = true;

  constructor(private readonly deps: UploadSessionDeps = {}) {
    this.maxFileBytes = deps.maxFileBytes ?? DEFAULT_UPLOAD_MAX_BYTES;
  }

  /**
   * The service's upload limit (runtime config `uploadMaxBytes`), so that larger files are
   * flagged in the review instead of being refused by the service after the upload. Applies
   * to the next review.
   */
  setMaxFileBytes(bytes: number): void {
    if (Number.isFinite(bytes) && bytes > 0) this.maxFileBytes = bytes;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getState = (): SessionState => this.state;

  private get transport(): Transport {
    this.transportInstance ??= this.deps.transport ?? createHttpTransport();
    return this.transportInstance;
  }

  private get store(): BatchStore {
    this.storeInstance ??= this.deps.store ?? indexedDbBatchStore();
    return this.storeInstance;
  }

  private get win(): Window | null {
    return this.deps.window === undefined ? (typeof window === 'undefined' ? null : window) : this.deps.window;
  }

  private set(patch: Partial<SessionState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.listeners]) listener();
  }

  /** Files dropped or picked. Starts (or extends) a review, or gives a restored batch its files back. */
  async addFiles(files: readonly SourceFile[]): Promise<void> {
    if (files.length === 0 || this.state.queued) return;
    const { phase, engine } = this.state;
    if (phase === 'running' && engine) {
      const stage = engine.getSnapshot().stage;
      if (stage === 'needs-files' || stage === 'sending' || stage === 'processing') {
        this.set({ attach: engine.attachFiles(files) });
        this.saver?.request();
        return;
      }
      // A finished batch: a new drop starts a new one.
      await this.clear();
    }
    this.files = mergeSourceFiles(this.files, files);
    await this.plan();
  }

  /** Changes the target folder of the review. */
  async setTargetFolder(folder: string): Promise<void> {
    if (this.state.phase === 'running' || this.state.queued) return;
    this.state = { ...this.state, targetFolder: folder };
    if (this.files.length === 0) {
      this.set({});
      return;
    }
    await this.plan();
  }

  /** Changes the unit of the review's mesh files that do not say theirs. */
  async setMeshUnits(units: DeclaredUnit): Promise<void> {
    if (units !== this.state.meshUnits) await this.changeReview({ meshUnits: units });
  }

  /** Skips the files dropped at stored paths, or keeps them beside under a free name. */
  async setWhenStored(choice: WhenStored): Promise<void> {
    if (choice !== this.state.whenStored) await this.changeReview({ whenStored: choice });
  }

  /** A choice of the review changed: the files are planned again with it. */
  private async changeReview(patch: Partial<Pick<SessionState, 'meshUnits' | 'whenStored'>>): Promise<void> {
    if (this.state.phase === 'running' || this.state.queued) return;
    this.state = { ...this.state, ...patch };
    if (this.files.length === 0) {
      this.set({});
      return;
    }
    await this.plan();
  }

  /** The folder being browsed, as the target when none has been chosen yet. */
  async offerTargetFolder(folder: string): Promise<void> {
    if (this.state.phase === 'running' || this.state.targetFolder !== '') return;
    await this.setTargetFolder(folder);
  }

  /** Drops the files with problems from the review. */
  async removeProblemFiles(): Promise<void> {
    const engine = this.state.engine;
    if (this.state.phase !== 'review' || this.state.queued || !engine) return;
    const drop = new Set(engine.rows.filter((r) => r.problems.length > 0).map((r) => this.planned[r.index]));
    this.files = this.files.filter((f) => !drop.has(f));
    await this.plan();
  }

  /** Removes one file from the review. */
  async removeFile(index: number): Promise<void> {
    if (this.state.phase !== 'review' || this.state.queued) return;
    const file = this.planned[index];
    this.files = this.files.filter((f) => f !== file);
    await this.plan();
  }

  /** Drops the review without sending anything. */
  cancelReview(): void {
    if (this.state.phase === 'running') return;
    this.unqueue();
    this.planToken++;
    this.startWanted = false;
    this.state.engine?.dispose();
    this.files = [];
    this.planned = [];
    this.set({ ...initial, targetFolder: this.state.targetFolder, meshUnits: this.state.meshUnits, whenStored: this.state.whenStored });
  }

  /**
   * Sends the reviewed files. Never a silent no-op: while the review is being re-read it starts
   * once the new review is ready; when it cannot start, `startError` says why. Queued behind a
   * batch that is still being sent, it waits for it (`queued`).
   */
  start(): void {
    const { phase, engine } = this.state;
    if (phase === 'running' || this.state.queued) return;
    if (phase === 'planning') {
      this.startWanted = true;
      return;
    }
    this.startWanted = false;
    const problem = this.startProblem();
    if (problem || !engine) {
      this.set({ startError: problem ?? 'There is nothing to send.' });
      return;
    }
    if (this.deps.mustWait?.()) {
      this.set({ queued: true, startError: null });
      return;
    }
    this.send();
  }

  /** A queued batch whose turn has come is sent. */
  startQueued(): void {
    if (this.state.queued) this.send();
  }

  private send(): void {
    const engine = this.state.engine;
    if (!engine || this.state.phase !== 'review') return;
    this.deps.onStart?.(this);
    this.owner = true;
    this.files = [];
    this.planned = [];
    this.run(engine);
    this.set({ phase: 'running', queued: false, attach: null, startError: null });
    this.saver?.request();
  }

  /** Whether files of this batch are still being sent (a batch queued behind it waits). */
  isSending(): boolean {
    return this.state.phase === 'running' && this.state.engine?.getSnapshot().stage === 'sending';
  }

  /** Back to the review: the queued batch does not start. */
  unqueue(): void {
    if (this.state.queued) this.set({ queued: false });
  }

  /**
   * A batch queued behind this one starts: this one stops writing the saved copy and the header's
   * status, and goes on following its files on the page only.
   */
  handOver(): void {
    if (!this.owner) return;
    this.owner = false;
    this.unhook?.();
    this.unhook = null;
    void this.saver?.cancel();
    this.saver = null;
  }

  /** Why the review cannot be sent as it is, or null. */
  private startProblem(): string | null {
    const { engine, folderProblem } = this.state;
    if (!engine) return 'There is nothing to send.';
    if (folderProblem) return folderProblem;
    const files = engine.getSnapshot().files;
    const problems = files.filter((f) => f.status === 'problem').length;
    if (problems > 0) return `Remove the ${problems === 1 ? 'file' : `${problems} files`} with problems first, or cancel.`;
    if (files.length === 0) {
      return this.state.stored.length > 0
        ? 'Every file is already on the service. Choose “Keep both” to send them beside the stored ones.'
        : 'There is nothing to send.';
    }
    return null;
  }

  cancel(filePath: string): void {
    this.state.engine?.cancel(filePath);
  }

  cancelAll(): void {
    this.state.engine?.cancelAll();
  }

  /** Asks the service to process a failed model again and follows it. */
  /** A new file for a model that could not be read (a truncated STEP): sent to the same record, which is processed again. */
  async replaceFile(modelId: string, filePath: string, file: Blob): Promise<void> {
    const model = { id: modelId, filePath, name: fileNameOf(filePath) };
    await (this.deps.replaceFile ?? ((m, f) => attachFile(m, f, { replaceFailed: true })))(model, file);
    this.state.engine?.followAgain(modelId);
    this.saver?.request();
  }

  async reprocess(modelId: string): Promise<void> {
    await (this.deps.reprocess ?? reprocessModel)(modelId);
    this.state.engine?.followAgain(modelId);
    this.saver?.request();
  }

  /** Forgets the batch (it stays on the service) and its saved copy, unless a later batch took that over. */
  async clear(): Promise<void> {
    this.planToken++;
    this.startWanted = false;
    this.unqueue();
    this.unhook?.();
    this.unhook = null;
    await this.saver?.cancel();
    this.saver = null;
    this.state.engine?.dispose();
    this.files = [];
    this.planned = [];
    const owner = this.owner;
    this.owner = true;
    this.set({ ...initial });
    if (!owner) return;
    setSavedBatchFlag(false);
    publishUploadStatus(idleUploadStatus);
    await this.store.clear().catch(() => undefined);
  }

  /** Brings back the batch saved before a reload, if any (once). */
  restore(): Promise<void> {
    this.restoring ??= this.restoreOnce();
    return this.restoring;
  }

  private async restoreOnce(): Promise<void> {
    if (this.state.phase !== 'empty') return;
    let saved: unknown;
    try {
      saved = await this.store.load();
    } catch {
      return;
    }
    if (saved === null || saved === undefined || this.state.phase !== 'empty') {
      if (saved === null) setSavedBatchFlag(false);
      return;
    }
    let engine: UploadEngine;
    try {
      engine = UploadEngine.restore(saved, this.transport, this.engineOptions());
    } catch {
      setSavedBatchFlag(false);
      await this.store.clear().catch(() => undefined);
      this.set({ error: 'The upload saved before the page was reloaded could not be read, so it was forgotten.' });
      return;
    }
    this.run(engine);
    this.set({ phase: 'running', engine, targetFolder: engine.targetFolder, attach: null, folderProblem: null });
  }

  private engineOptions() {
    return this.deps.notifyIntervalMs === undefined ? {} : { notifyIntervalMs: this.deps.notifyIntervalMs };
  }

  private async plan(): Promise<void> {
    const token = ++this.planToken;
    const previous = this.state.engine;
    this.set({ phase: 'planning', error: null, startError: null });
    try {
      const files = this.files;
      const storedPaths = await this.storedPathsOf(files);
      if (token !== this.planToken) return;
      const skip = this.state.whenStored === 'skip';
      const planned = skip ? files.filter((f) => !storedPaths.has(this.targetPathOf(f))) : files;
      const engine = await UploadEngine.create(
        planned,
        {
          targetFolder: this.state.targetFolder,
          maxFileBytes: this.maxFileBytes,
          meshUnits: this.state.meshUnits,
          ...(skip ? {} : { keepBesideStored: storedPaths }),
        },
        this.transport,
        this.engineOptions(),
      );
      if (token !== this.planToken) {
        engine.dispose();
        return;
      }
      previous?.dispose();
      this.planned = planned;
      const any = files.length > 0;
      if (!any) engine.dispose();
      this.set({
        phase: any ? 'review' : 'empty',
        engine: any ? engine : null,
        folderProblem: targetFolderProblem(
          engine.targetFolder,
          files.map((f) => f.path),
        ),
        stored: files.map((f) => joinFilePath(this.state.targetFolder, f.path)).filter((p) => storedPaths.has(p.toLowerCase())),
      });
      if (this.startWanted) this.start();
    } catch (error) {
      if (token !== this.planToken) return;
      // The error shown says why the wanted start did not happen.
      this.startWanted = false;
      this.set({
        phase: this.files.length > 0 && previous ? 'review' : 'empty',
        error: error instanceof Error ? error.message : 'The files could not be read.',
      });
    }
  }

  private targetPathOf(file: SourceFile): string {
    return joinFilePath(this.state.targetFolder, file.path).toLowerCase();
  }

  /**
   * The review's paths that already hold a model. When the service cannot say, none: it then
   * refuses those files one by one when they are sent, which the rows show.
   */
  private async storedPathsOf(files: readonly SourceFile[]): Promise<Set<string>> {
    if (
      files.length === 0 ||
      targetFolderProblem(
        normalizeFolderPath(this.state.targetFolder),
        files.map((f) => f.path),
      )
    )
      return new Set();
    try {
      return await this.transport.storedPaths(files.map((f) => joinFilePath(this.state.targetFolder, f.path)));
    } catch {
      return new Set();
    }
  }

  /** Starts the engine and keeps the saved copy, the header status and the page hooks up to date. */
  private run(engine: UploadEngine): void {
    this.unhook?.();
    const saver = throttledSaver(this.store, () => engine.toJSON(), this.deps.saveEveryMs ?? 1000);
    this.saver = saver;
    setSavedBatchFlag(true);
    const win = this.win;
    let warnOnLeave = false;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      void saver.flush();
      if (!warnOnLeave) return;
      event.preventDefault();
      event.returnValue = '';
    };
    const onVisibility = () => {
      if (!win) return;
      if (win.document.visibilityState === 'hidden') {
        engine.pause();
        void saver.flush();
      } else engine.resume();
    };
    let stage = engine.getSnapshot().stage;
    const onChange = () => {
      const snap = engine.getSnapshot();
      // A batch queued behind this one listens for the end of sending.
      if (snap.stage !== stage) {
        stage = snap.stage;
        this.set({});
      }
      warnOnLeave = snap.stage === 'sending';
      publishUploadStatus(statusOf(snap));
      saver.request();
    };
    const unsubscribe = engine.subscribe(onChange);
    win?.addEventListener('beforeunload', onBeforeUnload);
    win?.document.addEventListener('visibilitychange', onVisibility);
    this.unhook = () => {
      unsubscribe();
      win?.removeEventListener('beforeunload', onBeforeUnload);
      win?.document.removeEventListener('visibilitychange', onVisibility);
    };
    engine.start();
    onChange();
  }
}

/** The app's one upload session. */
export const uploadSession = new UploadSession();
