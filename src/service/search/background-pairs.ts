// The background pair step (engine.ts settleExactPairs), queued after ingestion stored a model's
// features. Outside the ingestion job on purpose: a job ends (and the next starts) as soon as the
// model is stored, and the pairs follow one model at a time — their CPU runs on the pair worker
// thread, so neither ingestion nor requests wait for it. Nothing depends on when it finishes: a
// query that needs a pair not stored yet computes the same result itself.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { settleExactPairs } from './engine';

let chain: Promise<void> = Promise.resolve();

export function settlePairsInBackground(db: Kysely<Database>, modelId: string): void {
  chain = chain.then(() =>
    settleExactPairs(db, modelId).then(
      () => undefined,
      (error: unknown) => console.warn(`search pairs of model ${modelId}: ${error instanceof Error ? error.message : String(error)}`),
    ),
  );
}

/** Resolves when every queued pair step has run (tests and benchmarks, like ingestion's idle()). */
export async function backgroundPairsIdle(): Promise<void> {
  for (;;) {
    const current = chain;
    await current;
    if (current === chain) return;
  }
}
