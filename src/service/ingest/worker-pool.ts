import os from 'node:os';
import { Piscina } from 'piscina';
import type { WorkerAnswer, WorkerTask } from './ingest-worker';
import { log } from '../log';
import { threadEntry } from '../thread-entry';

export interface WorkerPoolOptions {
  /** Threads (default: cores, at most 2). */
  size?: number;
  /** V8 heap limit per thread (default 1024 MB). Typed arrays and WebAssembly memory are not counted. */
  maxOldGenerationSizeMb?: number;
  /** Wall-clock limit of one task; the thread is terminated and replaced when it is exceeded. */
  timeoutMs?: number;
  /**
   * Memory the running tasks may add to the process (resident set above its size when the pool
   * became busy), typed arrays and WebAssembly included, which the heap limit does not count.
   * Past it the running tasks' threads are terminated (default 1024 MB).
   */
  memoryLimitMb?: number;
  /** How often the resident set is read while tasks run (default 50 ms). */
  memoryCheckMs?: number;
}

/** Why a task gave no answer: the pool's limits, not the geometry code, stopped it. */
export class WorkerLimitError extends Error {
  constructor(
    readonly limit: 'timeout' | 'memory' | 'crash',
    message: string,
    /** Other tasks ran at the same time, so this one may not be what took the memory. */
    readonly shared = false,
  ) {
    super(message);
    this.name = 'WorkerLimitError';
  }
}

/** The pool was closed (service shutdown) while the task ran: nothing is wrong with the task. */
export class PoolClosedError extends Error {
  constructor() {
    super('The ingestion worker pool was closed.');
    this.name = 'PoolClosedError';
  }
}

export interface WorkerPool {
  readonly size: number;
  /** Runs one task on a worker thread; rejects with {@link WorkerLimitError} when a limit hits. */
  run<T extends WorkerTask>(task: T, options?: { timeoutMs?: number; transfer?: ArrayBuffer[] }): Promise<WorkerAnswer<T>>;
  close(): Promise<void>;
}

export const defaultPoolSize = () => Math.max(1, Math.min(2, os.availableParallelism()));

/**
 * A small pool of worker threads (piscina) for the CPU work of ingestion: each thread has a heap
 * limit, each task a wall-clock limit; a thread that is terminated, runs out of memory or exits is
 * replaced by piscina and the task's promise rejects — the service itself never goes down.
 */
export function createWorkerPool(options: WorkerPoolOptions = {}): WorkerPool {
  const size = options.size ?? defaultPoolSize();
  const heapMb = options.maxOldGenerationSizeMb ?? 1024;
  const defaultTimeout = options.timeoutMs ?? 120_000;
  const memoryLimitMb = options.memoryLimitMb ?? 1024;
  const pool = new Piscina({
    ...threadEntry('ingest-worker', import.meta.url),
    minThreads: size,
    maxThreads: size,
    idleTimeout: 60 * 60 * 1000,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  // A thread that dies between tasks must not become an unhandled 'error' on the pool.
  pool.on('error', (error: unknown) => log.error({ err: error }, 'ingest worker thread failed'));

  // Threads cannot limit their native memory, so the process's resident set is watched while
  // tasks run: a file that slips past the importers' own size checks still cannot take the host.
  const active = new Map<AbortController, { memory: boolean; shared: boolean }>();
  let baseline = 0;
  let watch: NodeJS.Timeout | undefined;
  const checkMemory = () => {
    const added = process.memoryUsage.rss() - baseline;
    if (added <= memoryLimitMb * 1024 * 1024) return;
    const shared = active.size > 1;
    for (const [controller, state] of active) {
      state.memory = true;
      state.shared = shared;
      controller.abort();
    }
  };

  let closed = false;
  return {
    size,
    async run(task, runOptions = {}) {
      if (closed) throw new PoolClosedError();
      const timeoutMs = runOptions.timeoutMs ?? defaultTimeout;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      const state = { memory: false, shared: false };
      if (active.size === 0) {
        baseline = process.memoryUsage.rss();
        watch = setInterval(checkMemory, options.memoryCheckMs ?? 50);
      }
      active.set(controller, state);
      try {
        return (await pool.run(task, {
          signal: controller.signal,
          ...(runOptions.transfer ? { transferList: runOptions.transfer } : {}),
        })) as WorkerAnswer<typeof task>;
      } catch (error) {
        if (closed) throw new PoolClosedError();
        if (state.memory)
          throw new WorkerLimitError('memory', `it needed more than the ${memoryLimitMb} MB of memory one model may use`, state.shared);
        if (controller.signal.aborted) {
          throw new WorkerLimitError('timeout', `it took longer than ${Math.round(timeoutMs / 1000)} s`);
        }
        const code = (error as { code?: string } | undefined)?.code;
        if (code === 'ERR_WORKER_OUT_OF_MEMORY')
          throw new WorkerLimitError('memory', `it needed more than the ${heapMb} MB of memory one model may use`);
        if (error instanceof Error && /exited|terminated|ERR_WORKER/i.test(`${error.message} ${code ?? ''}`)) {
          throw new WorkerLimitError('crash', 'the processing thread stopped unexpectedly');
        }
        throw error;
      } finally {
        clearTimeout(timer);
        active.delete(controller);
        if (active.size === 0) clearInterval(watch);
      }
    },
    async close() {
      closed = true;
      clearInterval(watch);
      await pool.destroy();
    },
  };
}
