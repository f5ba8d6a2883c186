// Entry of the ingestion worker threads (loaded by the pool in worker-pool.ts). Each task is one
// message in, one message out; the pool terminates the thread on timeout, crash or heap limit.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { processModel, scanModelFile, type ProcessInput, type ProcessOutput, type ScanResult } from './process-model';
import { startViewsThread } from './views-pool';

// The thread that renders views beside this one is up before the first model arrives.
startViewsThread();

export type WorkerTask =
  | { kind: 'scan'; fileName: string; bytes: Uint8Array }
  | ({ kind: 'process' } & ProcessInput)
  /** For tests of the pool's limits only: burns CPU, allocates heap or typed arrays, or exits the thread. */
  | { kind: 'misbehave'; how: Misbehaviour };

type Misbehaviour = 'spin' | 'allocate' | 'allocate-native' | 'exit';

export type WorkerAnswer<T extends WorkerTask> = T extends { kind: 'scan' }
  ? ScanResult
  : T extends { kind: 'process' }
    ? ProcessOutput & { cpuMs: number }
    : never;

export default async function runTask(task: WorkerTask): Promise<ScanResult | (ProcessOutput & { cpuMs: number })> {
  switch (task.kind) {
    case 'scan':
      return scanModelFile(task.fileName, task.bytes);
    case 'process': {
      // process.cpuUsage() counts the whole process; the pool runs one task per thread, so this
      // is exact when only one task runs (the benchmark) and an upper bound otherwise.
      const cpu = process.cpuUsage();
      const out = await processModel(task);
      const used = process.cpuUsage(cpu);
      return transferring({ ...out, cpuMs: (used.user + used.system) / 1000 });
    }
    case 'misbehave':
      return misbehave(task.how);
  }
}

function misbehave(how: Misbehaviour): never {
  if (how === 'exit') process.exit(3);
  const hoard: unknown[] = [];
  for (;;) {
    if (how === 'allocate') hoard.push(new Array<number>(1_000_000).fill(Math.random()));
    // Outside the heap limit: only the pool's watch on the resident set stops this.
    if (how === 'allocate-native') hoard.push(new Uint8Array(16 * 1024 * 1024).fill(1));
  }
}

/**
 * Hands the derived files (viewer GLB, thumbnail PNG) to the main thread by moving their memory
 * instead of copying it. Only buffers the views own entirely are moved; piscina unwraps the
 * surrogate, so the caller receives the plain result object.
 */
function transferring<T extends ProcessOutput & { cpuMs: number }>(out: T): T {
  if (out.outcome !== 'geometry') return out;
  const buffers = new Set<ArrayBuffer>();
  for (const bytes of [out.viewerGlb, out.thumbnailPng]) {
    const b = bytes.buffer;
    if (b instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === b.byteLength) buffers.add(b);
  }
  if (buffers.size === 0) return out;
  const wrapped = {
    get [transferableSymbol]() {
      return [...buffers];
    },
    get [valueSymbol]() {
      return out;
    },
  };
  return move(wrapped) as unknown as T;
}
