// One object for the upload page: review, send, follow processing, save and resume
// (issue 4). Plain TypeScript: the page wires it to React with useSyncExternalStore.
import { z } from 'zod';
import { systemClock, type Clock, type Random } from './clock';
import { joinFilePath, normalizeDroppedPath } from '../../../contract/file-paths';
import { declaredUnitChoices } from '../../../contract/models';
import { planUpload, type PlanOptions, type PlanResult, type ReviewRow, type SourceFile } from './planner';
import { isSettledState, StatePoller, type ModelStatus, type PollerOptions, type PollerSnapshot } from './poller';
import type { FileKind } from '../../../contract/file-types';
import type { Role } from './roles';
import {
  TERMINAL_SEND_PHASES,
  UploadSender,
  type SendError,
  type SendItemInit,
  type SendItemView,
  type SendPhase,
  type SenderOptions,
  type SenderSnapshot,
} from './sender';
import { ExternalStore } from './store';
import type { Transport } from './transport';

/** What the page shows for a file: its send phase, then the service's state once stored. */
export type FileStatus =
  /** Not sent because of the problems found in review. */
  | 'problem'
  /** Restored batch: drop the file again to send it. */
  | 'needs-file'
  | 'waiting'
  | 'uploading'
  | 'retrying'
  | 'upload-failed'
  | 'cancelled'
  /** Stored; the service is working on it (incomplete-upload, processing or a state this app does not know). */
  | 'processing'
  | 'finished'
  | 'finished-incomplete'
  | 'failed'
  | 'failed-incomplete'
  | 'unsupported'
  /** Stored, then deleted on the service by someone else. */
  | 'gone';

export const FILE_STATUSES: readonly FileStatus[] = [
  'problem',
  'needs-file',
  'waiting',
  'uploading',
  'retrying',
  'upload-failed',
  'cancelled',
  'processing',
  'finished',
  'finished-incomplete',
  'failed',
  'failed-incomplete',
  'unsupported',
  'gone',
];

export interface EngineFileView {
  readonly filePath: string;
  readonly name: string;
  readonly size: number;
  readonly kind: FileKind | null;
  readonly role: Role | null;
  readonly status: FileStatus;
  /** Send phase; null for files with problems. */
  readonly phase: SendPhase | null;
  readonly modelId: string | null;
  /** Bytes sent (the whole size once stored). */
  readonly loaded: number;
  /** The service's state, once stored. */
  readonly serviceState: string | null;
  readonly stateReason: string | null;
  readonly missingParts: readonly string[];
  /** The upload failed (or is being retried) for this reason. */
  readonly error: SendError | null;
  readonly attempts: number;
  readonly retryAt: number | null;
  readonly problems: readonly string[];
  readonly notes: readonly string[];
}

export type EngineStage =
  /** Planned, not started. */
  | 'review'
  | 'sending'
  /** Everything that can be sent is sent, some files must be dropped again. */
  | 'needs-files'
  /** Sent; waiting for the service to finish processing. */
  | 'processing'
  | 'done';

export interface EngineSnapshot {
  readonly stage: EngineStage;
  readonly targetFolder: string;
  readonly files: readonly EngineFileView[];
  readonly summary: Readonly<Record<FileStatus, number>>;
  readonly bytesTotal: number;
  readonly bytesSent: number;
  readonly createRequests: number;
  readonly putRequests: number;
  readonly pollRequests: number;
  readonly paused: boolean;
}

export interface UploadEngineOptions {
  sender?: Partial<SenderOptions>;
  poller?: Partial<PollerOptions>;
  /** Shared by sender and poller unless they set their own. */
  clock?: Clock;
  random?: Random;
  /**
   * Subscribers are told at most this often (ms; the first change at once). Events of the
   * sender and poller are not throttled. 0 = on every change.
   */
  notifyIntervalMs?: number;
}

export interface AttachResult {
  /** Waiting for their bytes, now queued. */
  resumed: string[];
  /** Already stored, queued, or failed/cancelled for good: left alone. */
  alreadyDone: string[];
  /** Same path but a different size or date: not the file that was planned; not sent. */
  changed: string[];
  /** Not part of this batch. */
  unknown: string[];
}

// --- serialised form ----------------------------------------------------------------------

const sendErrorSchema = z.object({ status: z.number(), code: z.string(), message: z.string() });
const roleSchema = z.enum(['part', 'sub-assembly', 'assembly']);
const kindSchema = z.enum(['mesh', 'cad', 'native']);

const rowSchema = z.object({
  index: z.number().int(),
  filePath: z.string(),
  name: z.string(),
  size: z.number(),
  lastModified: z.number(),
  extension: z.string(),
  kind: kindSchema.nullable(),
  role: roleSchema.nullable(),
  references: z.array(z.string()),
  problems: z.array(z.string()),
  notes: z.array(z.string()),
});

const savedFileSchema = z.object({
  filePath: z.string(),
  name: z.string(),
  units: z.enum(declaredUnitChoices).optional(),
  size: z.number(),
  lastModified: z.number(),
  role: roleSchema,
  dependsOn: z.array(z.string()),
  references: z.array(z.string()),
  /** pending = not stored yet (whatever it was doing when saved). */
  phase: z.enum(['pending', 'uploaded', 'failed', 'cancelled']),
  /** Record of the file (stored files), or a record that may need deleting (pending files). */
  modelId: z.string().nullable(),
  serviceState: z.string().nullable(),
  stateReason: z.string().nullable(),
  missingParts: z.array(z.string()),
  error: sendErrorSchema.nullable(),
});

export const engineStateSchema = z.object({
  version: z.literal(1),
  targetFolder: z.string(),
  savedAt: z.number(),
  rows: z.array(rowSchema),
  files: z.array(savedFileSchema),
});

/** What `toJSON()` returns and `UploadEngine.restore` accepts (plain JSON; no addresses, no bytes). */
export type EngineState = z.infer<typeof engineStateSchema>;
type SavedFile = z.infer<typeof savedFileSchema>;

// --- engine -------------------------------------------------------------------------------

interface FileMeta {
  row: ReviewRow;
  references: readonly string[];
}

export class UploadEngine {
  readonly targetFolder: string;
  readonly rows: readonly ReviewRow[];
  private readonly sender: UploadSender;
  private readonly poller: StatePoller;
  private readonly meta = new Map<string, FileMeta>();
  private readonly store: ExternalStore<EngineSnapshot, Record<string, unknown>>;
  private readonly clock: Clock | undefined;
  private readonly viewCache = new Map<string, { send: SendItemView | undefined; status: ModelStatus | undefined; view: EngineFileView }>();
  /** Pending files restored with a record that may or may not have got its file. */
  private readonly unverified = new Map<string, string>();
  private started = false;
  private reconciling: Promise<void> | null = null;
  private disposed = false;

  /** Reviews the dropped files and builds an engine for them (nothing is sent before start()). */
  static async create(
    files: readonly SourceFile[],
    plan: PlanOptions,
    transport: Transport,
    options: UploadEngineOptions = {},
  ): Promise<UploadEngine> {
    return UploadEngine.fromPlan(await planUpload(files, plan), files, transport, options);
  }

  /** An engine for a plan made with planUpload(files, ...). */
  static fromPlan(result: PlanResult, files: readonly SourceFile[], transport: Transport, options: UploadEngineOptions = {}): UploadEngine {
    const items: SendItemInit[] = result.plan.map((p) => ({
      filePath: p.filePath,
      name: p.name,
      ...(p.units ? { units: p.units } : {}),
      size: p.size,
      lastModified: p.lastModified,
      role: p.role,
      dependsOn: p.dependsOn,
      blob: files[p.index]?.blob ?? null,
    }));
    return new UploadEngine(result.targetFolder, result.rows, items, [], transport, options);
  }

  /** Rebuilds an engine from `toJSON()` output. Throws when the saved state is not one. */
  static restore(json: unknown, transport: Transport, options: UploadEngineOptions = {}): UploadEngine {
    const state = engineStateSchema.parse(json);
    const items: SendItemInit[] = state.files.map((f) => ({
      filePath: f.filePath,
      name: f.name,
      ...(f.units ? { units: f.units } : {}),
      size: f.size,
      lastModified: f.lastModified,
      role: f.role,
      dependsOn: f.dependsOn,
      blob: null,
      phase: f.phase === 'pending' ? 'needs-file' : f.phase,
      modelId: f.phase === 'pending' ? null : f.modelId,
      staleModelId: f.phase === 'pending' ? f.modelId : null,
      error: f.error,
    }));
    return new UploadEngine(state.targetFolder, state.rows, items, state.files, transport, options);
  }

  private constructor(
    targetFolder: string,
    rows: readonly ReviewRow[],
    items: SendItemInit[],
    saved: readonly SavedFile[],
    private readonly transport: Transport,
    options: UploadEngineOptions,
  ) {
    this.targetFolder = targetFolder;
    this.rows = rows;
    this.clock = options.clock;
    const shared = { ...(options.clock ? { clock: options.clock } : {}) };
    this.sender = new UploadSender(transport, items, {
      ...shared,
      ...(options.random ? { random: options.random } : {}),
      ...options.sender,
    });
    this.poller = new StatePoller(transport, { ...shared, ...options.poller });
    for (const row of rows) this.meta.set(row.filePath.toLowerCase(), { row, references: row.references });

    // Restored files: stored ones are followed from their last known state; pending ones with a
    // record are checked on start (their PUT may have finished before the page went away).
    const stored = saved.filter((f) => f.phase === 'uploaded' && f.modelId);
    this.poller.track(
      stored.map((f) => ({
        id: f.modelId!,
        filePath: f.filePath,
        role: f.role,
        references: f.references,
        state: f.serviceState,
        missingParts: f.missingParts,
      })),
    );
    for (const f of saved) if (f.phase === 'pending' && f.modelId) this.unverified.set(f.filePath.toLowerCase(), f.modelId);

    this.sender.on('uploaded', ({ filePath, modelId }) => {
      const item = this.meta.get(filePath.toLowerCase());
      this.poller.track([{ id: modelId, filePath, role: item?.row.role ?? 'part', references: item?.references ?? [] }]);
    });
    this.store = new ExternalStore(() => this.buildSnapshot(), {
      clock: options.clock ?? systemClock,
      ms: options.notifyIntervalMs ?? 100,
    });
    const changed = () => {
      this.poller.setExpectingMore(this.started && !this.sender.idle);
      this.store.changed();
    };
    this.sender.subscribe(changed);
    this.poller.subscribe(() => this.store.changed());
  }

  readonly subscribe = (listener: () => void) => this.store.subscribe(listener);
  readonly getSnapshot = () => this.store.getSnapshot();

  /** Starts sending (and following what was already sent). */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    this.poller.setExpectingMore(true);
    this.poller.start();
    this.reconciling = this.reconcile().finally(() => {
      this.reconciling = null;
      if (!this.disposed) this.sender.start();
      this.poller.setExpectingMore(!this.sender.idle);
      this.store.changed();
    });
    this.store.changed();
  }

  /** Cancels one file (stops its upload, deletes its record). False when it is already done. */
  cancel(filePath: string): boolean {
    return this.sender.cancel(filePath);
  }

  cancelAll(): void {
    this.sender.cancelAll();
  }

  /**
   * Follows a stored model again from "processing" (after the page asked the service to
   * reprocess it). False when the model is not one of this batch's stored files.
   */
  followAgain(modelId: string): boolean {
    const item = this.sender.getSnapshot().items.find((i) => i.modelId === modelId && i.phase === 'uploaded');
    if (!item) return false;
    const meta = this.meta.get(item.filePath.toLowerCase());
    this.poller.untrack(modelId);
    this.poller.track([
      { id: modelId, filePath: item.filePath, role: meta?.row.role ?? item.role, references: meta?.references ?? [], state: 'processing' },
    ]);
    this.poller.start();
    return true;
  }

  /** Stops state polling (tab hidden). Uploads go on. */
  pause(): void {
    this.poller.pause();
  }

  resume(): void {
    this.poller.resume();
  }

  /**
   * Gives a restored batch its files back. Matched by filePath + size + lastModified; only the
   * files not yet stored are sent.
   */
  attachFiles(files: readonly SourceFile[]): AttachResult {
    const result: AttachResult = { resumed: [], alreadyDone: [], changed: [], unknown: [] };
    const items = new Map(this.sender.getSnapshot().items.map((i) => [i.filePath.toLowerCase(), i]));
    for (const file of files) {
      const filePath = joinFilePath(this.targetFolder, normalizeDroppedPath(file.path));
      const item = items.get(filePath.toLowerCase());
      if (!item) {
        result.unknown.push(filePath);
        continue;
      }
      if (item.size !== file.size || item.lastModified !== file.lastModified) {
        result.changed.push(item.filePath);
        continue;
      }
      if (item.phase !== 'needs-file') {
        result.alreadyDone.push(item.filePath);
        continue;
      }
      if (file.blob && this.sender.attach(item.filePath, file.blob)) result.resumed.push(item.filePath);
      else result.unknown.push(item.filePath);
    }
    return result;
  }

  /** Resolves once everything that can be sent is sent and every stored model has settled. */
  whenSettled(): Promise<EngineSnapshot> {
    return new Promise((resolve) => {
      const check = () => {
        const snap = this.getSnapshot();
        if (snap.stage === 'done' || snap.stage === 'needs-files') {
          unsubscribe();
          resolve(snap);
        }
      };
      const unsubscribe = this.subscribe(check);
      check();
    });
  }

  /** Serialisable state for IndexedDB: the plan, model ids and states; never addresses or bytes. */
  toJSON(): EngineState {
    const send = this.sender.getSnapshot();
    const models = this.poller.getSnapshot().models;
    const files: SavedFile[] = send.items.map((item) => {
      const status = item.modelId ? models.get(item.modelId) : undefined;
      const phase: SavedFile['phase'] = TERMINAL_SEND_PHASES.has(item.phase)
        ? (item.phase as 'uploaded' | 'failed' | 'cancelled')
        : 'pending';
      const recordToCheck =
        phase === 'pending' ? (item.modelId ?? item.staleModelId ?? this.unverified.get(item.filePath.toLowerCase()) ?? null) : null;
      return {
        filePath: item.filePath,
        name: item.name,
        ...(item.units ? { units: item.units } : {}),
        size: item.size,
        lastModified: item.lastModified,
        role: item.role,
        dependsOn: [...item.dependsOn],
        references: [...(this.meta.get(item.filePath.toLowerCase())?.references ?? [])],
        phase,
        modelId: phase === 'uploaded' ? item.modelId : recordToCheck,
        serviceState: status?.state ?? null,
        stateReason: status?.stateReason ?? null,
        missingParts: [...(status?.missingParts ?? [])],
        error: item.error,
      };
    });
    return {
      version: 1,
      targetFolder: this.targetFolder,
      savedAt: (this.clock ?? { now: () => Date.now() }).now(),
      rows: this.rows.map((r) => ({ ...r, references: [...r.references], problems: [...r.problems], notes: [...r.notes] })),
      files,
    };
  }

  /** Stops timers and uploads without deleting anything (save first with toJSON()). */
  dispose(): void {
    this.disposed = true;
    this.sender.dispose();
    this.poller.stop();
    this.store.dispose();
  }

  /** Request counters, for tests and benchmarks. */
  getStats() {
    return { sender: this.sender.getStats(), poller: this.poller.getStats() };
  }

  // --- internals ----------------------------------------------------------------------------

  /** Restored pending files whose record exists: stored already → follow; else replace it. */
  private async reconcile(): Promise<void> {
    const entries = [...this.unverified.entries()];
    for (let i = 0; i < entries.length; i += 100) {
      const chunk = entries.slice(i, i + 100);
      let found: Map<string, string>;
      try {
        const models = await this.transport.listModelsById(chunk.map(([, id]) => id));
        found = new Map(models.map((m) => [String(m.id), m.state]));
      } catch {
        continue; // Unknown: the sender deletes and re-creates them, which is always safe.
      }
      for (const [key, id] of chunk) {
        const item = this.sender.getSnapshot().items.find((x) => x.filePath.toLowerCase() === key);
        if (!item) continue;
        const state = found.get(id);
        if (state === undefined) this.sender.forgetStale(item.filePath);
        else if (state !== 'incomplete-upload') this.sender.markUploaded(item.filePath, id);
        this.unverified.delete(key);
      }
    }
  }

  private stage(send: SenderSnapshot, poll: PollerSnapshot): EngineStage {
    if (!this.started) return 'review';
    if (this.reconciling || !send.idle) return 'sending';
    if (!poll.settled) return 'processing';
    return send.items.some((i) => i.phase === 'needs-file') ? 'needs-files' : 'done';
  }

  private buildSnapshot(): EngineSnapshot {
    const send = this.sender.getSnapshot();
    const poll = this.poller.getSnapshot();
    const byPath = new Map(send.items.map((i) => [i.filePath.toLowerCase(), i]));
    const summary = Object.fromEntries(FILE_STATUSES.map((s) => [s, 0])) as Record<FileStatus, number>;
    let bytesTotal = 0;
    let bytesSent = 0;
    const files = this.rows.map((row) => {
      const key = row.filePath.toLowerCase();
      // Duplicates share a path with the file that is sent; they are shown with their problems.
      const item = row.problems.length === 0 ? byPath.get(key) : undefined;
      const status = item?.modelId ? poll.models.get(item.modelId) : undefined;
      const cacheKey = `${row.index}`;
      const cached = this.viewCache.get(cacheKey);
      let view: EngineFileView;
      if (cached && cached.send === item && cached.status === status) view = cached.view;
      else {
        view = this.fileView(row, item, status);
        this.viewCache.set(cacheKey, { send: item, status, view });
      }
      summary[view.status]++;
      if (item) {
        bytesTotal += item.size;
        bytesSent += view.loaded;
      }
      return view;
    });
    const senderStats = send.stats;
    return {
      stage: this.stage(send, poll),
      targetFolder: this.targetFolder,
      files,
      summary,
      bytesTotal,
      bytesSent,
      createRequests: senderStats.createRequests,
      putRequests: senderStats.putRequests,
      pollRequests: poll.stats.requests,
      paused: poll.paused,
    };
  }

  private fileView(row: ReviewRow, item: SendItemView | undefined, status: ModelStatus | undefined): EngineFileView {
    let fileStatus: FileStatus;
    if (!item) fileStatus = row.problems.length > 0 ? 'problem' : 'needs-file';
    else {
      switch (item.phase) {
        case 'needs-file':
          fileStatus = 'needs-file';
          break;
        case 'queued':
        case 'creating':
        case 'ready':
          fileStatus = 'waiting';
          break;
        case 'uploading':
          fileStatus = 'uploading';
          break;
        case 'retry-wait':
          fileStatus = 'retrying';
          break;
        case 'failed':
          fileStatus = 'upload-failed';
          break;
        case 'cancelled':
          fileStatus = 'cancelled';
          break;
        case 'uploaded':
          if (status?.gone) fileStatus = 'gone';
          else if (status && isSettledState(status.state)) fileStatus = status.state as FileStatus;
          else fileStatus = 'processing';
          break;
      }
    }
    return Object.freeze({
      filePath: row.filePath,
      name: row.name,
      size: row.size,
      kind: row.kind,
      role: row.role,
      status: fileStatus,
      phase: item?.phase ?? null,
      modelId: item?.modelId ?? null,
      loaded: item?.loaded ?? 0,
      serviceState: status?.state ?? null,
      stateReason: status?.stateReason ?? null,
      missingParts: status?.missingParts ?? [],
      error: item?.error ?? null,
      attempts: item?.attempts ?? 0,
      retryAt: item?.retryAt ?? null,
      problems: row.problems,
      notes: row.notes,
    });
  }
}
