// State polling for a whole batch (issue 4, deliverable 3): one request per chunk of 100 ids,
// spaced so the total stays at or below one request a second, backing off while nothing changes.
import { systemClock, type Clock } from './clock';
import { fileNameOf, folderOf } from '../../../contract/file-paths';
import { isSettled } from '../../../contract/models';
import type { Role } from './roles';
import { ExternalStore } from './store';
import { toApiError, type ModelRecord, type Transport } from './transport';

/** The contract's settled states; any other (incomplete-upload, processing, anything new) counts as still working. */
export function isSettledState(state: string | null | undefined): boolean {
  return state != null && isSettled(state);
}

export interface TrackInfo {
  id: string;
  filePath: string;
  role?: Role;
  /** File names an assembly references (from the plan), to know which parts concern it. */
  references?: readonly string[];
  /** Last known state (restore); unknown = still working. */
  state?: string | null;
  /** Last known missing parts (restore). */
  missingParts?: readonly string[];
}

export interface ModelStatus {
  readonly id: string;
  readonly filePath: string;
  readonly role: Role | null;
  /** null until the first answer. */
  readonly state: string | null;
  readonly stateReason: string | null;
  readonly missingParts: readonly string[];
  readonly isAssembly: boolean;
  readonly settled: boolean;
  /** The service no longer lists it (deleted elsewhere). */
  readonly gone: boolean;
  /** A settled assembly kept under watch until then, because a part of it arrived. */
  readonly followUntil: number | null;
}

export interface PollerStats {
  requests: number;
  errors: number;
  lastError: string | null;
  intervalMs: number;
  /** Largest number of ids asked for in one request. */
  maxIdsPerRequest: number;
}

export interface PollerSnapshot {
  models: ReadonlyMap<string, ModelStatus>;
  stats: PollerStats;
  paused: boolean;
  /** Every tracked model settled, nothing followed and no more models expected. */
  settled: boolean;
}

export interface PollerEvents extends Record<string, unknown> {
  change: ModelStatus[];
  settled: PollerSnapshot;
}

export interface PollerOptions {
  baseIntervalMs: number;
  maxIntervalMs: number;
  backoffFactor: number;
  chunkSize: number;
  /**
   * At least this long from one answer to the next request, whatever the number of chunks.
   * Counted from the answer, not the send: a transport that waits (for a token, say) before it
   * really sends would otherwise let two requests leave closer together than this.
   */
  minRequestSpacingMs: number;
  /** How long a settled assembly is watched after a part of it arrived. */
  followWindowMs: number;
  /** Ids missing from this many answers in a row count as gone. */
  goneAfterMisses: number;
  clock: Clock;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = {
  baseIntervalMs: 1000,
  maxIntervalMs: 10_000,
  backoffFactor: 1.5,
  chunkSize: 100,
  minRequestSpacingMs: 1000,
  followWindowMs: 60_000,
  goneAfterMisses: 2,
  clock: systemClock,
};

interface Tracked {
  id: string;
  filePath: string;
  role: Role | null;
  references: readonly string[];
  state: string | null;
  stateReason: string | null;
  missingParts: readonly string[];
  isAssembly: boolean;
  misses: number;
  gone: boolean;
  followUntil: number | null;
  view: ModelStatus | null;
}

export class StatePoller {
  private readonly options: PollerOptions;
  private readonly tracked = new Map<string, Tracked>();
  private readonly store: ExternalStore<PollerSnapshot, PollerEvents>;
  private readonly stats: PollerStats;
  private interval: number;
  private timer: unknown = undefined;
  private inFlight = false;
  private running = false;
  private paused = false;
  private expectingMore = false;
  private lastAnswerAt = -Infinity;
  private round: string[][] = [];
  private roundChanged = false;
  private wasSettled = false;
  private settledWaiters: (() => void)[] = [];

  constructor(
    private readonly transport: Transport,
    options: Partial<PollerOptions> = {},
  ) {
    this.options = { ...DEFAULT_POLLER_OPTIONS, ...options };
    this.interval = this.options.baseIntervalMs;
    this.stats = { requests: 0, errors: 0, lastError: null, intervalMs: this.interval, maxIdsPerRequest: 0 };
    this.store = new ExternalStore(() => this.buildSnapshot());
  }

  readonly subscribe = (listener: () => void) => this.store.subscribe(listener);
  readonly getSnapshot = () => this.store.getSnapshot();

  on<K extends keyof PollerEvents>(type: K, handler: (payload: PollerEvents[K]) => void): () => void {
    return this.store.on(type, handler);
  }

  get requestCount(): number {
    return this.stats.requests;
  }

  getStats(): PollerStats {
    return { ...this.stats };
  }

  /** Adds models to follow (their files were just stored, or restored from storage). */
  track(infos: readonly TrackInfo[]): void {
    const now = this.options.clock.now();
    const added: Tracked[] = [];
    for (const info of infos) {
      if (this.tracked.has(info.id)) continue;
      const t: Tracked = {
        id: info.id,
        filePath: info.filePath,
        role: info.role ?? null,
        references: info.references ?? [],
        state: info.state ?? null,
        stateReason: null,
        missingParts: info.missingParts ?? [],
        isAssembly: info.role === 'assembly' || info.role === 'sub-assembly' || (info.missingParts?.length ?? 0) > 0,
        misses: 0,
        gone: false,
        followUntil: null,
        view: null,
      };
      this.tracked.set(t.id, t);
      added.push(t);
    }
    if (added.length === 0) return;
    // A part that lands may get settled assemblies of it reprocessed.
    for (const t of added) if (!t.isAssembly) this.followAssembliesOf(t, now);
    this.interval = this.options.baseIntervalMs;
    this.store.changed();
    // Just stored: give the service a moment before the first look.
    this.wake(this.options.baseIntervalMs);
  }

  /** Stops following a model (its file was deleted). */
  untrack(id: string): void {
    if (this.tracked.delete(id)) {
      this.round = this.round.map((c) => c.filter((x) => x !== id)).filter((c) => c.length > 0);
      this.store.changed();
      this.checkSettled();
    }
  }

  /** While true the poller does not report "settled" (uploads are still going). */
  setExpectingMore(expecting: boolean): void {
    if (this.expectingMore === expecting) return;
    this.expectingMore = expecting;
    this.store.changed();
    this.checkSettled();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake();
  }

  stop(): void {
    this.running = false;
    this.clearTimer();
  }

  /** The tab is hidden: no requests until resume(). A request already sent still lands. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.clearTimer();
    this.store.changed();
  }

  /** The tab is visible again: poll soon, at the starting interval. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.interval = this.options.baseIntervalMs;
    this.store.changed();
    this.wake(0);
  }

  whenSettled(): Promise<void> {
    if (this.isSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  // --- loop -------------------------------------------------------------------------------

  private pollIds(now: number): string[] {
    const ids: string[] = [];
    for (const t of this.tracked.values()) {
      if (t.gone) continue;
      if (!isSettledState(t.state)) ids.push(t.id);
      else if (t.followUntil !== null && t.followUntil > now) ids.push(t.id);
    }
    return ids;
  }

  private chunkCount(now: number): number {
    return Math.max(1, Math.ceil(this.pollIds(now).length / this.options.chunkSize));
  }

  /**
   * Schedules the next request: `interval / chunks` after the previous answer (so a round of all
   * chunks takes about one interval), never closer than minRequestSpacingMs, and not before
   * `minDelay` from now.
   */
  private wake(minDelay = 0): void {
    if (!this.running || this.paused || this.inFlight || this.timer !== undefined) return;
    const { clock } = this.options;
    const now = clock.now();
    if (this.round.length === 0 && this.pollIds(now).length === 0) {
      this.checkSettled();
      return;
    }
    const spacing = Math.max(this.options.minRequestSpacingMs, this.interval / this.chunkCount(now));
    const delay = Math.max(minDelay, this.lastAnswerAt + spacing - now);
    this.timer = clock.setTimeout(
      () => {
        this.timer = undefined;
        void this.tick();
      },
      Math.max(0, delay),
    );
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (!this.running || this.paused || this.inFlight) return;
    const { clock, chunkSize } = this.options;
    if (this.round.length === 0) {
      const ids = this.pollIds(clock.now());
      if (ids.length === 0) {
        this.checkSettled();
        return;
      }
      for (let i = 0; i < ids.length; i += chunkSize) this.round.push(ids.slice(i, i + chunkSize));
      this.roundChanged = false;
    }
    const ids = this.round.shift()!;
    this.inFlight = true;
    this.stats.requests++;
    this.stats.maxIdsPerRequest = Math.max(this.stats.maxIdsPerRequest, ids.length);
    let changed: Tracked[] = [];
    try {
      const models = await this.transport.listModelsById(ids);
      changed = this.apply(ids, models);
    } catch (raw) {
      this.stats.errors++;
      this.stats.lastError = toApiError(raw).message;
    } finally {
      this.inFlight = false;
      this.lastAnswerAt = clock.now();
    }
    if (changed.length > 0) {
      this.roundChanged = true;
      this.interval = this.options.baseIntervalMs;
    }
    if (this.round.length === 0 && !this.roundChanged) {
      this.interval = Math.min(this.options.maxIntervalMs, this.interval * this.options.backoffFactor);
    }
    this.stats.intervalMs = this.interval;
    this.store.changed();
    if (changed.length > 0)
      this.store.emit(
        'change',
        changed.map((t) => this.view(t)),
      );
    this.checkSettled();
    this.wake();
  }

  private apply(ids: readonly string[], models: readonly ModelRecord[]): Tracked[] {
    const now = this.options.clock.now();
    const byId = new Map(models.map((m) => [String(m.id), m]));
    const changed: Tracked[] = [];
    const landedParts: Tracked[] = [];
    for (const id of ids) {
      const t = this.tracked.get(id);
      if (!t) continue;
      const m = byId.get(id);
      if (!m) {
        t.misses++;
        if (t.misses >= this.options.goneAfterMisses && !t.gone) {
          t.gone = true;
          t.view = null;
          changed.push(t);
        }
        continue;
      }
      t.misses = 0;
      const wasSettled = isSettledState(t.state);
      const before = `${t.state}|${t.stateReason}|${t.missingParts.join('/')}`;
      t.state = m.state;
      t.stateReason = m.stateReason ?? null;
      t.missingParts = m.missingParts ?? [];
      t.isAssembly = t.isAssembly || m.isAssembly === true || t.missingParts.length > 0;
      const settled = isSettledState(t.state);
      if (`${t.state}|${t.stateReason}|${t.missingParts.join('/')}` !== before) {
        t.view = null;
        changed.push(t);
      }
      if (settled && !wasSettled) {
        // Settled again after reprocessing: this follow is over.
        if (t.followUntil !== null) {
          t.followUntil = null;
          t.view = null;
        }
        if (!t.isAssembly) landedParts.push(t);
      }
    }
    for (const part of landedParts) this.followAssembliesOf(part, now);
    return changed;
  }

  /** Watches the settled assemblies that this part may complete, for followWindowMs. */
  private followAssembliesOf(part: Tracked, now: number): void {
    const name = fileNameOf(part.filePath).toLowerCase();
    for (const a of this.tracked.values()) {
      if (a === part || !a.isAssembly || a.gone || !isSettledState(a.state)) continue;
      if (!this.concerns(a, part, name)) continue;
      a.followUntil = now + this.options.followWindowMs;
      a.view = null;
    }
  }

  private concerns(assembly: Tracked, part: Tracked, partName: string): boolean {
    if (assembly.missingParts.length > 0)
      return assembly.missingParts.some((p) => fileNameOf(p.replace(/\\/g, '/')).toLowerCase() === partName);
    if (assembly.state !== 'finished-incomplete' && assembly.state !== 'failed-incomplete') return false;
    if (assembly.references.length > 0) return assembly.references.some((r) => r.toLowerCase() === partName);
    const folder = folderOf(assembly.filePath).toLowerCase();
    const partFolder = folderOf(part.filePath).toLowerCase();
    return partFolder === folder || partFolder.startsWith(`${folder}/`);
  }

  // --- snapshot ---------------------------------------------------------------------------

  private isSettled(): boolean {
    if (this.expectingMore || this.inFlight || this.round.length > 0) return false;
    return this.pollIds(this.options.clock.now()).length === 0;
  }

  private checkSettled(): void {
    const settled = this.isSettled();
    if (settled && !this.wasSettled) {
      this.store.changed();
      this.store.emit('settled', this.getSnapshot());
    }
    this.wasSettled = settled;
    if (settled && this.settledWaiters.length > 0) {
      const waiters = this.settledWaiters;
      this.settledWaiters = [];
      for (const w of waiters) w();
    }
  }

  private view(t: Tracked): ModelStatus {
    t.view ??= Object.freeze({
      id: t.id,
      filePath: t.filePath,
      role: t.role,
      state: t.state,
      stateReason: t.stateReason,
      missingParts: t.missingParts,
      isAssembly: t.isAssembly,
      settled: isSettledState(t.state) || t.gone,
      gone: t.gone,
      followUntil: t.followUntil,
    });
    return t.view;
  }

  private buildSnapshot(): PollerSnapshot {
    const models = new Map<string, ModelStatus>();
    for (const t of this.tracked.values()) models.set(t.id, this.view(t));
    return { models, stats: { ...this.stats }, paused: this.paused, settled: this.isSettled() };
  }
}
