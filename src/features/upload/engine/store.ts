import type { Clock } from './clock';

/** Limits how often subscribers are told about changes (first change at once, then at most every `ms`). */
export interface NotifyThrottle {
  clock: Clock;
  ms: number;
}

/**
 * A tiny external store: `subscribe` + `getSnapshot` in the shape `useSyncExternalStore` wants,
 * plus typed events (always synchronous). The snapshot is rebuilt lazily, only after something
 * changed, so `getSnapshot()` returns the same object between changes.
 */
export class ExternalStore<Snapshot, Events extends Record<string, unknown>> {
  private readonly listeners = new Set<() => void>();
  private readonly handlers = new Map<keyof Events, Set<(payload: never) => void>>();
  private snapshot: Snapshot | null = null;
  private lastNotify = -Infinity;
  private timer: unknown = undefined;

  constructor(
    private readonly build: () => Snapshot,
    private readonly throttle?: NotifyThrottle,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): Snapshot => {
    this.snapshot ??= this.build();
    return this.snapshot;
  };

  /** Marks the snapshot stale and tells subscribers (throttled if the store was made so). */
  changed(): void {
    this.snapshot = null;
    const t = this.throttle;
    if (!t || t.ms <= 0) return this.notify();
    if (this.timer !== undefined) return;
    const wait = this.lastNotify + t.ms - t.clock.now();
    if (wait <= 0) return this.notify();
    this.timer = t.clock.setTimeout(() => {
      this.timer = undefined;
      this.notify();
    }, wait);
  }

  /** Drops a pending throttled notification. */
  dispose(): void {
    if (this.timer !== undefined) this.throttle?.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private notify(): void {
    if (this.throttle) this.lastNotify = this.throttle.clock.now();
    for (const listener of [...this.listeners]) listener();
  }

  on<K extends keyof Events>(type: K, handler: (payload: Events[K]) => void): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    set.add(handler as (payload: never) => void);
    return () => {
      set.delete(handler as (payload: never) => void);
    };
  }

  emit<K extends keyof Events>(type: K, payload: Events[K]): void {
    const set = this.handlers.get(type);
    if (!set) return;
    for (const handler of [...set]) (handler as (payload: Events[K]) => void)(payload);
  }
}
