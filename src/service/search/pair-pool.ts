// Worker threads for exact pair comparisons (pair-worker.ts): one, or as many as the process runs
// ingestion jobs (each job waits for its model's pairs, so fewer would queue the jobs behind one
// thread while the ingestion threads idle). Started on first use and ended when idle, so a
// process that never compares pairs (or has finished) holds no thread.
import { Piscina } from 'piscina';
import type { PairAnswer, PairTask } from './pair-worker';
import { threadEntry } from '../thread-entry';

let pool: Piscina | undefined;
let threads = 1;

/** Called by a process that runs ingestion, before the first comparison. */
export function setPairThreads(n: number) {
  threads = Math.max(1, Math.floor(n));
}

function pairPool(): Piscina {
  pool ??= new Piscina({
    ...threadEntry('pair-worker', import.meta.url),
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 10_000,
  });
  return pool;
}

export function comparePairOffThread(task: PairTask): Promise<PairAnswer> {
  return pairPool().run(task) as Promise<PairAnswer>;
}
