// The send loop (issue 4, deliverable 2): records created just in time in batches of at most
// 100, at most 6 PUTs in flight (3 to the app's own origin), retries with backoff, expired addresses replaced, cancel.
import { MAX_MODELS_PER_REQUEST, type DeclaredUnit } from '../../../contract/models';
import { systemClock, sleep, type Clock, type Random } from './clock';
import type { Role } from './roles';
import { ExternalStore } from './store';
import { isAbortError, isRetryable, retryAfterOf, toApiError, type ApiError, type CreatedModel, type Transport } from './transport';

export type SendPhase =
  /** Restored from storage without its bytes: the file has to be dropped again. */
  | 'needs-file'
  /** Waiting for its model record. */
  | 'queued'
  | 'creating'
  /** Has an upload address; waiting for a free slot (or for its parts to be sent). */
  | 'ready'
  | 'uploading'
  /** Failed for a reason worth another try; waits for its backoff. */
  | 'retry-wait'
  | 'uploaded'
  | 'failed'
  | 'cancelled';

export const TERMINAL_SEND_PHASES: ReadonlySet<SendPhase> = new Set(['uploaded', 'failed', 'cancelled']);

/** A failure as shown against a file. */
export interface SendError {
  status: number;
  code: string;
  message: string;
}

export interface SendItemInit {
  filePath: string;
  name: string;
  /** Declared unit of a mesh file that does not say its own (sent with its record). */
  units?: DeclaredUnit;
  size: number;
  lastModified: number;
  role: Role;
  /** filePaths that should be stored before this file (an assembly's parts). */
  dependsOn?: string[];
  blob?: Blob | null;
  /** Default: 'queued' with a blob, 'needs-file' without. */
  phase?: SendPhase;
  modelId?: string | null;
  /** A record made earlier whose address is gone: deleted before the file is created again. */
  staleModelId?: string | null;
  error?: SendError | null;
}

/** Read-only view of one file, as in the snapshot. */
export interface SendItemView {
  readonly filePath: string;
  readonly name: string;
  readonly units: DeclaredUnit | undefined;
  readonly size: number;
  readonly lastModified: number;
  readonly role: Role;
  readonly dependsOn: readonly string[];
  readonly phase: SendPhase;
  readonly modelId: string | null;
  readonly staleModelId: string | null;
  /** Bytes sent in the current attempt. */
  readonly loaded: number;
  /** PUT attempts on the current address. */
  readonly attempts: number;
  /** Times the record was deleted and created again after a refused (403) upload. */
  readonly recreations: number;
  readonly retryAt: number | null;
  readonly error: SendError | null;
  readonly hasFile: boolean;
}

export interface SenderStats {
  createRequests: number;
  putRequests: number;
  deleteRequests: number;
  inFlight: number;
  maxInFlight: number;
  bytesSent: number;
}

export interface SenderSnapshot {
  items: readonly SendItemView[];
  stats: SenderStats;
  /** Nothing left to do until files are attached or cancelled deletions finish. */
  idle: boolean;
}

export interface SenderEvents extends Record<string, unknown> {
  progress: { filePath: string; loaded: number; total: number };
  created: { filePath: string; modelId: string };
  uploaded: { filePath: string; modelId: string };
  failed: { filePath: string; error: SendError };
  cancelled: { filePath: string };
  idle: SenderSnapshot;
}

export interface SenderOptions {
  /** PUTs in flight at once. */
  concurrency: number;
  /**
   * PUTs in flight at once to addresses on the app's own origin (`appOrigin`). A browser opens 6
   * HTTP/1.1 connections per origin; uploads that hold all of them stall every page of the app.
   */
  appOriginConcurrency: number;
  /** The app's origin (window.location.origin); null where there is none (tests, workers). */
  appOrigin: string | null;
  /** Models per creation request (the service's limit is 100). */
  batchSize: number;
  /** The next batch is created when files in flight + files holding an address drop below this. */
  lowWater: number;
  createMissingFolders: boolean;
  /** Addresses older than this are replaced before their PUT (they are valid 15 minutes). */
  refreshAfterMs: number;
  /** Upload speed assumed before one has been measured, to size the first batch. */
  assumedBytesPerSecond: number;
  /** Window a batch's bytes should fit into at the measured speed. */
  batchWindowMs: number;
  maxPutAttempts: number;
  maxCreateAttempts: number;
  maxDeleteAttempts: number;
  /** Delete + create again after a refused (403) upload, at most this many times per file. */
  maxRecreations: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  clock: Clock;
  random: Random;
}

export const DEFAULT_SENDER_OPTIONS: SenderOptions = {
  concurrency: 6,
  appOriginConcurrency: 3,
  appOrigin: typeof window === 'undefined' ? null : window.location.origin,
  batchSize: MAX_MODELS_PER_REQUEST,
  lowWater: 12,
  createMissingFolders: true,
  refreshAfterMs: 12 * 60_000,
  assumedBytesPerSecond: 2 * 1024 * 1024,
  batchWindowMs: 10 * 60_000,
  maxPutAttempts: 5,
  maxCreateAttempts: 5,
  maxDeleteAttempts: 3,
  maxRecreations: 2,
  backoffBaseMs: 1000,
  backoffCapMs: 30_000,
  clock: systemClock,
  random: Math.random,
};

interface Address {
  url: string;
  headers: Record<string, string>;
  issuedAt: number;
}

interface Entry {
  readonly filePath: string;
  readonly key: string;
  readonly name: string;
  readonly units: DeclaredUnit | undefined;
  readonly size: number;
  readonly lastModified: number;
  readonly role: Role;
  readonly dependsOn: readonly string[];
  blob: Blob | null;
  phase: SendPhase;
  modelId: string | null;
  staleModelId: string | null;
  address: Address | null;
  /** Addresses a PUT was already tried on (a 409 on a repeat means the first one got through). */
  triedUrl: string | null;
  loaded: number;
  attempts: number;
  recreations: number;
  /** Recreated entries go to the front of the queue and are created at once. */
  urgent: boolean;
  retryAt: number | null;
  retryTimer: unknown;
  controller: AbortController | null;
  error: SendError | null;
  version: number;
  view: SendItemView | null;
}

const BLOCKING_DEP_PHASES: ReadonlySet<SendPhase> = new Set(['queued', 'creating', 'ready', 'uploading', 'retry-wait']);

function toSendError(error: ApiError): SendError {
  return { status: error.status, code: error.code, message: error.message };
}

/**
 * Which files of a rejected creation request the service's message names: `models[3]`,
 * `models.3` (indices into the request) or the filePath itself.
 */
export function attributeCreateError(message: string, filePaths: readonly string[]): number[] {
  const named = new Set<number>();
  for (const m of message.matchAll(/models\s*(?:\[\s*(\d+)\s*\]|\.(\d+)\b)/gi)) {
    const i = Number(m[1] ?? m[2]);
    if (i < filePaths.length) named.add(i);
  }
  const lower = message.toLowerCase();
  filePaths.forEach((p, i) => {
    if (lower.includes(p.toLowerCase())) named.add(i);
  });
  return [...named].sort((a, b) => a - b);
}

export class UploadSender {
  private readonly options: SenderOptions;
  private readonly entries: Entry[];
  private readonly byKey = new Map<string, Entry>();
  private readonly store: ExternalStore<SenderSnapshot, SenderEvents>;
  private appOriginInFlight = 0;
  private readonly stats: SenderStats = { createRequests: 0, putRequests: 0, deleteRequests: 0, inFlight: 0, maxInFlight: 0, bytesSent: 0 };
  private readonly pendingDeletes = new Set<Promise<void>>();
  private idleWaiters: (() => void)[] = [];
  private running = false;
  private disposed = false;
  private createInFlight = false;
  private pumping = false;
  private pumpAgain = false;
  /** Creation refused for good (401/403): nothing more is created. */
  private fatal: SendError | null = null;
  // Measured upload speed: bytes finished over time with at least one PUT in flight.
  private busySince: number | null = null;
  private busyMs = 0;
  private measuredBytes = 0;
  private wasIdle = true;

  constructor(
    private readonly transport: Transport,
    items: readonly SendItemInit[],
    options: Partial<SenderOptions> = {},
  ) {
    this.options = { ...DEFAULT_SENDER_OPTIONS, ...options };
    this.entries = items.map((item) => {
      const blob = item.blob ?? null;
      const entry: Entry = {
        filePath: item.filePath,
        key: item.filePath.toLowerCase(),
        name: item.name,
        units: item.units,
        size: item.size,
        lastModified: item.lastModified,
        role: item.role,
        dependsOn: item.dependsOn ?? [],
        blob,
        phase: item.phase ?? (blob ? 'queued' : 'needs-file'),
        modelId: item.modelId ?? null,
        staleModelId: item.staleModelId ?? null,
        address: null,
        triedUrl: null,
        loaded: item.phase === 'uploaded' ? item.size : 0,
        attempts: 0,
        recreations: 0,
        urgent: false,
        retryAt: null,
        retryTimer: undefined,
        controller: null,
        error: item.error ?? null,
        version: 0,
        view: null,
      };
      this.byKey.set(entry.key, entry);
      return entry;
    });
    this.store = new ExternalStore(() => this.buildSnapshot());
  }

  readonly subscribe = (listener: () => void) => this.store.subscribe(listener);
  readonly getSnapshot = () => this.store.getSnapshot();

  on<K extends keyof SenderEvents>(type: K, handler: (payload: SenderEvents[K]) => void): () => void {
    return this.store.on(type, handler);
  }

  /** Starts (or continues) sending. */
  start(): void {
    if (this.disposed) return;
    this.running = true;
    this.pump();
  }

  /** Gives a file waiting for its bytes (restored batch) the bytes to send. */
  attach(filePath: string, blob: Blob): boolean {
    const entry = this.byKey.get(filePath.toLowerCase());
    if (!entry || entry.phase !== 'needs-file') return false;
    entry.blob = blob;
    entry.phase = 'queued';
    this.touch(entry);
    this.pump();
    return true;
  }

  /** Marks a file as stored (found stored on the service after a restore). */
  markUploaded(filePath: string, modelId: string): void {
    const entry = this.byKey.get(filePath.toLowerCase());
    if (!entry || TERMINAL_SEND_PHASES.has(entry.phase)) return;
    entry.phase = 'uploaded';
    entry.modelId = modelId;
    entry.staleModelId = null;
    entry.loaded = entry.size;
    this.touch(entry);
    this.store.emit('uploaded', { filePath: entry.filePath, modelId });
    this.pump();
  }

  /** Forgets a stale record (it is already gone from the service). */
  forgetStale(filePath: string): void {
    const entry = this.byKey.get(filePath.toLowerCase());
    if (!entry) return;
    entry.staleModelId = null;
    this.touch(entry);
  }

  /** Cancels one file: stops its upload and deletes its record. False if it was already done. */
  cancel(filePath: string): boolean {
    const entry = this.byKey.get(filePath.toLowerCase());
    if (!entry || TERMINAL_SEND_PHASES.has(entry.phase)) return false;
    const previous = entry.phase;
    entry.phase = 'cancelled';
    entry.error = null;
    this.clearRetry(entry);
    if (previous === 'uploading') entry.controller?.abort();
    // A record being created is deleted when the creation answers (see createBatch).
    if (previous !== 'creating') {
      if (entry.modelId) this.deleteQuietly(entry.modelId);
      if (entry.staleModelId) this.deleteQuietly(entry.staleModelId);
      entry.staleModelId = null;
    }
    entry.address = null;
    this.touch(entry);
    this.store.emit('cancelled', { filePath: entry.filePath });
    this.pump();
    return true;
  }

  cancelAll(): void {
    for (const entry of this.entries) this.cancel(entry.filePath);
  }

  /** Resolves when there is nothing left to do (see SenderSnapshot.idle). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops everything without deleting anything (the page goes away; state was saved). */
  dispose(): void {
    this.disposed = true;
    this.running = false;
    for (const entry of this.entries) {
      this.clearRetry(entry);
      entry.controller?.abort();
    }
  }

  /** Same as getSnapshot().idle, without building a snapshot. */
  get idle(): boolean {
    return this.isIdle();
  }

  getStats(): SenderStats {
    return { ...this.stats };
  }

  // --- the loop ---------------------------------------------------------------------------

  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.pumpOnce();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
    this.checkIdle();
  }

  private pumpOnce(): void {
    if (!this.running || this.disposed) return;
    const now = this.options.clock.now();

    // Addresses close to expiry are replaced rather than used; together, in one request.
    for (const entry of this.entries) {
      if (entry.phase === 'ready' && entry.address && now - entry.address.issuedAt >= this.options.refreshAfterMs) {
        this.requeueForNewAddress(entry);
      }
    }

    if (!this.createInFlight && !this.fatal) {
      const batch = this.nextBatch();
      if (batch.length > 0) void this.createBatch(batch);
    }

    while (this.stats.inFlight < this.options.concurrency) {
      const appOriginFull = this.appOriginInFlight >= this.options.appOriginConcurrency;
      const entry = this.entries.find((e) => e.phase === 'ready' && this.depsDone(e) && !(appOriginFull && this.onAppOrigin(e)));
      if (!entry) break;
      void this.runPut(entry);
    }
  }

  private onAppOrigin(entry: Entry): boolean {
    const { appOrigin } = this.options;
    if (!appOrigin || !entry.address) return false;
    try {
      return new URL(entry.address.url, appOrigin).origin === appOrigin;
    } catch {
      return false;
    }
  }

  private depsDone(entry: Entry): boolean {
    for (const dep of entry.dependsOn) {
      const d = this.byKey.get(dep.toLowerCase());
      if (d && BLOCKING_DEP_PHASES.has(d.phase)) return false;
    }
    return true;
  }

  private throughput(): number {
    const busy = this.busyMs + (this.busySince === null ? 0 : this.options.clock.now() - this.busySince);
    if (this.measuredBytes === 0 || busy < 1000) return this.options.assumedBytesPerSecond;
    return (this.measuredBytes / busy) * 1000;
  }

  private nextBatch(): Entry[] {
    const queued = (e: Entry) => e.phase === 'queued' && e.blob !== null;
    const urgent = this.entries.filter((e) => queued(e) && e.urgent);
    if (urgent.length > 0) return urgent.slice(0, this.options.batchSize);

    const holding = this.entries.filter(
      (e) => e.phase === 'uploading' || e.phase === 'retry-wait' || (e.phase === 'ready' && this.depsDone(e)),
    ).length;
    if (holding >= this.options.lowWater) return [];

    // Only as many bytes as can be sent well before the addresses expire.
    const budget = (this.throughput() * this.options.batchWindowMs) / 1000;
    let pendingBytes = 0;
    for (const e of this.entries) {
      if (e.phase === 'ready' || e.phase === 'retry-wait') pendingBytes += e.size;
      else if (e.phase === 'uploading') pendingBytes += Math.max(0, e.size - e.loaded);
    }
    const batch: Entry[] = [];
    let bytes = pendingBytes;
    for (const e of this.entries) {
      if (!queued(e)) continue;
      if (batch.length >= this.options.batchSize) break;
      if (batch.length > 0 && bytes + e.size > budget) break;
      batch.push(e);
      bytes += e.size;
    }
    return batch;
  }

  private async createBatch(batch: Entry[]): Promise<void> {
    this.createInFlight = true;
    for (const e of batch) {
      e.phase = 'creating';
      e.urgent = false;
      this.touch(e);
    }
    try {
      // A filePath stays taken until its old record is gone.
      await Promise.all(batch.filter((e) => e.staleModelId).map((e) => this.deleteStale(e)));

      let pending = batch.filter((e) => e.phase === 'creating');
      let attempt = 0;
      while (pending.length > 0 && !this.disposed) {
        let created: CreatedModel[];
        try {
          this.stats.createRequests++;
          created = await this.transport.createModels(
            pending.map((e) => ({ filePath: e.filePath, name: e.name, ...(e.units ? { units: e.units } : {}) })),
            { createMissingFolders: this.options.createMissingFolders },
          );
        } catch (raw) {
          if (this.disposed) return;
          const error = toApiError(raw);
          attempt++;
          if (isRetryable(error) && attempt < this.options.maxCreateAttempts) {
            await sleep(this.options.clock, this.backoff(attempt, retryAfterOf(raw)));
            pending = pending.filter((e) => e.phase === 'creating');
            continue;
          }
          if (error.status === 401 || error.status === 403) {
            // Not allowed to create at all: everything not yet created fails with the reason.
            this.fatal = toSendError(error);
            for (const e of this.entries) {
              if (e.phase === 'creating' || e.phase === 'queued' || e.phase === 'needs-file') this.fail(e, error);
            }
            return;
          }
          const named = attributeCreateError(
            error.message,
            pending.map((e) => e.filePath),
          );
          if (named.length === 0 || named.length === pending.length) {
            for (const e of pending) if (e.phase === 'creating') this.fail(e, error);
            return;
          }
          // Nothing of a rejected batch is written: send it again without the named files.
          for (const i of named) {
            const e = pending[i]!;
            if (e.phase === 'creating') this.fail(e, error);
          }
          pending = pending.filter((e) => e.phase === 'creating');
          attempt = 0;
          continue;
        }
        this.assign(pending, created);
        break;
      }
    } finally {
      this.createInFlight = false;
      this.pump();
    }
  }

  private assign(sent: Entry[], created: CreatedModel[]): void {
    const issuedAt = this.options.clock.now();
    const byPath = new Map<string, CreatedModel>();
    for (const c of created) if (c.model.filePath) byPath.set(c.model.filePath.toLowerCase(), c);
    sent.forEach((e, i) => {
      const atIndex = created[i];
      const match =
        byPath.get(e.key) ?? (atIndex && (!atIndex.model.filePath || atIndex.model.filePath.toLowerCase() === e.key) ? atIndex : undefined);
      if (!match) {
        if (e.phase === 'creating') {
          this.fail(e, { status: 0, code: 'invalid_response', message: 'The service did not return a record for this file.' });
        }
        return;
      }
      if (e.phase !== 'creating') {
        // Cancelled while its record was being made.
        this.deleteQuietly(match.model.id);
        return;
      }
      e.modelId = match.model.id;
      e.address = { url: match.uploadUrl, headers: match.headers, issuedAt };
      e.triedUrl = null;
      e.attempts = 0;
      e.phase = 'ready';
      this.touch(e);
      this.store.emit('created', { filePath: e.filePath, modelId: match.model.id });
    });
  }

  private async deleteStale(entry: Entry): Promise<void> {
    const id = entry.staleModelId;
    if (!id) return;
    try {
      await this.deleteWithRetry(id);
      entry.staleModelId = null;
    } catch (raw) {
      if (entry.phase === 'creating') {
        const error = toApiError(raw);
        this.fail(entry, { ...toSendError(error), message: `The expired upload could not be replaced: ${error.message}` });
      }
    }
  }

  private async deleteWithRetry(id: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.stats.deleteRequests++;
        await this.transport.deleteModel(id);
        return;
      } catch (raw) {
        const error = toApiError(raw);
        if (error.status === 404) return;
        if (!isRetryable(error) || attempt >= this.options.maxDeleteAttempts || this.disposed) throw error;
        await sleep(this.options.clock, this.backoff(attempt, retryAfterOf(raw)));
      }
    }
  }

  private deleteQuietly(id: string): void {
    const p = this.deleteWithRetry(id)
      .catch(() => undefined)
      .finally(() => {
        this.pendingDeletes.delete(p);
        this.checkIdle();
      });
    this.pendingDeletes.add(p);
  }

  private async runPut(entry: Entry): Promise<void> {
    const address = entry.address;
    const blob = entry.blob;
    if (!address || !blob) {
      this.requeueForNewAddress(entry);
      return;
    }
    const { clock } = this.options;
    const controller = new AbortController();
    const repeat = entry.triedUrl === address.url;
    entry.phase = 'uploading';
    entry.attempts++;
    entry.loaded = 0;
    entry.retryAt = null;
    entry.controller = controller;
    entry.triedUrl = address.url;
    this.stats.putRequests++;
    this.stats.inFlight++;
    const appOrigin = this.onAppOrigin(entry);
    if (appOrigin) this.appOriginInFlight++;
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.stats.inFlight);
    if (this.busySince === null) this.busySince = clock.now();
    this.touch(entry);

    let failure: unknown = null;
    let ok = false;
    try {
      await this.transport.put(address.url, address.headers, blob, {
        signal: controller.signal,
        onProgress: (loaded, total) => {
          if (entry.controller !== controller || entry.phase !== 'uploading') return;
          entry.loaded = Math.min(loaded, entry.size);
          this.touch(entry);
          this.store.emit('progress', { filePath: entry.filePath, loaded: entry.loaded, total: total || entry.size });
        },
      });
      ok = true;
    } catch (raw) {
      failure = raw;
    } finally {
      entry.controller = null;
      this.stats.inFlight--;
      if (appOrigin) this.appOriginInFlight--;
      if (this.stats.inFlight === 0 && this.busySince !== null) {
        this.busyMs += clock.now() - this.busySince;
        this.busySince = null;
      }
    }

    if (this.disposed) return;
    if (entry.phase === 'uploading') {
      if (ok) this.succeed(entry);
      else if (!isAbortError(failure)) this.handlePutFailure(entry, toApiError(failure), retryAfterOf(failure), repeat);
      else this.requeueForNewAddress(entry);
    }
    this.pump();
  }

  private succeed(entry: Entry): void {
    entry.phase = 'uploaded';
    entry.loaded = entry.size;
    entry.address = null;
    entry.error = null;
    this.stats.bytesSent += entry.size;
    this.measuredBytes += entry.size;
    this.touch(entry);
    this.store.emit('uploaded', { filePath: entry.filePath, modelId: entry.modelId! });
  }

  private handlePutFailure(entry: Entry, error: ApiError, retryAfterMs: number | undefined, repeat: boolean): void {
    if (error.status === 403) {
      // Expired (or refused) address: delete the record, create it again, send again.
      if (entry.recreations < this.options.maxRecreations) {
        entry.recreations++;
        this.requeueForNewAddress(entry);
      } else {
        this.fail(entry, error);
      }
      return;
    }
    if (error.status === 409 && repeat) {
      // A second PUT to the same address is a 409: the earlier attempt got through.
      this.succeed(entry);
      return;
    }
    if (isRetryable(error) && entry.attempts < this.options.maxPutAttempts) {
      const delay = this.backoff(entry.attempts, retryAfterMs);
      entry.phase = 'retry-wait';
      entry.loaded = 0;
      entry.error = toSendError(error);
      entry.retryAt = this.options.clock.now() + delay;
      entry.retryTimer = this.options.clock.setTimeout(() => {
        entry.retryTimer = undefined;
        if (entry.phase !== 'retry-wait') return;
        entry.phase = 'ready';
        entry.retryAt = null;
        this.touch(entry);
        this.pump();
      }, delay);
      this.touch(entry);
      return;
    }
    this.fail(entry, error);
  }

  /** Back to the front of the queue with its record marked for deletion, to be created again at once. */
  private requeueForNewAddress(entry: Entry): void {
    entry.staleModelId = entry.modelId ?? entry.staleModelId;
    entry.modelId = null;
    entry.address = null;
    entry.triedUrl = null;
    entry.attempts = 0;
    entry.loaded = 0;
    entry.phase = 'queued';
    entry.urgent = true;
    this.touch(entry);
  }

  private fail(entry: Entry, error: ApiError | SendError): void {
    this.clearRetry(entry);
    entry.phase = 'failed';
    entry.address = null;
    entry.error = { status: error.status, code: error.code, message: error.message };
    this.touch(entry);
    this.store.emit('failed', { filePath: entry.filePath, error: entry.error });
    // A record nobody will upload to would sit in the folder as incomplete-upload.
    if (entry.modelId) {
      this.deleteQuietly(entry.modelId);
      entry.modelId = null;
    }
  }

  private clearRetry(entry: Entry): void {
    if (entry.retryTimer !== undefined) this.options.clock.clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    entry.retryAt = null;
  }

  /** Exponential backoff with jitter (half fixed, half random); Retry-After wins when longer. */
  private backoff(attempt: number, retryAfterMs: number | undefined): number {
    const exp = Math.min(this.options.backoffCapMs, this.options.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
    const jittered = exp / 2 + this.options.random() * (exp / 2);
    return Math.max(jittered, retryAfterMs ?? 0);
  }

  // --- snapshot ---------------------------------------------------------------------------

  private touch(entry: Entry): void {
    entry.version++;
    entry.view = null;
    this.store.changed();
  }

  private isIdle(): boolean {
    if (this.createInFlight || this.stats.inFlight > 0 || this.pendingDeletes.size > 0) return false;
    if (!this.running && this.entries.some((e) => e.phase === 'queued')) return false;
    return !this.entries.some(
      (e) =>
        (e.phase === 'queued' && e.blob !== null && !this.fatal) ||
        e.phase === 'creating' ||
        e.phase === 'ready' ||
        e.phase === 'uploading' ||
        e.phase === 'retry-wait',
    );
  }

  private checkIdle(): void {
    const idle = this.isIdle();
    if (idle && !this.wasIdle) {
      this.store.changed();
      this.store.emit('idle', this.getSnapshot());
    }
    this.wasIdle = idle;
    if (idle && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private buildSnapshot(): SenderSnapshot {
    const items = this.entries.map((e) => {
      e.view ??= Object.freeze({
        filePath: e.filePath,
        name: e.name,
        units: e.units,
        size: e.size,
        lastModified: e.lastModified,
        role: e.role,
        dependsOn: e.dependsOn,
        phase: e.phase,
        modelId: e.modelId,
        staleModelId: e.staleModelId,
        loaded: e.loaded,
        attempts: e.attempts,
        recreations: e.recreations,
        retryAt: e.retryAt,
        error: e.error,
        hasFile: e.blob !== null,
      });
      return e.view;
    });
    return { items, stats: { ...this.stats }, idle: this.isIdle() };
  }
}
