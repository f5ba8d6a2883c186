// One worker thread for exact pair comparisons (pair-worker.ts). One, because the ingestion
// pool already uses the cores for geometry; started on first use and ended when idle, so a
// process that never compares pairs (or has finished) holds no thread.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { PairAnswer, PairTask } from './pair-worker';

let pool: Piscina | undefined;

function pairPool(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./pair-worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 10_000,
    // The worker is TypeScript: under `tsx` and under vitest alike it needs tsx's loader.
    execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, '--disable-warning=THREE_CJS_DEPRECATED'],
  });
  return pool;
}

export function comparePairOffThread(task: PairTask): Promise<PairAnswer> {
  return pairPool().run(task) as Promise<PairAnswer>;
}
