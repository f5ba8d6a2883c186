// The background pair step (engine.ts settleExactPairs), queued after ingestion stored a model's
// features. Outside the ingestion job on purpose: a job ends (and the next starts) as soon as the
// model is stored, and the pairs follow one model at a time — their CPU runs on the pair worker
// thread, so neither ingestion nor requests wait for it. Nothing depends on when it finishes: a
// query that needs a pair not stored yet computes the same result itself, so steps still queued
// when the service stops are simply dropped.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { settleExactPairs } from './engine';
import { log } from '../log';

interface Lane {
  chain: Promise<void>;
  stopped: boolean;
}
const lanes = new WeakMap<Kysely<Database>, Lane>();
const laneOf = (db: Kysely<Database>): Lane => {
  let lane = lanes.get(db);
  if (!lane) lanes.set(db, (lane = { chain: Promise.resolve(), stopped: false }));
  return lane;
};

export function settlePairsInBackground(db: Kysely<Database>, modelId: string): void {
  const lane = laneOf(db);
  if (lane.stopped) return;
  lane.chain = lane.chain.then(() =>
    lane.stopped
      ? undefined
      : settleExactPairs(db, modelId).then(
          () => undefined,
          (error: unknown) => {
            if (!lane.stopped) log.warn({ err: error, modelId }, 'search pairs of a model could not be settled');
          },
        ),
  );
}

/** Resolves when every queued pair step has run (tests and benchmarks, like ingestion's idle()). */
export async function backgroundPairsIdle(db: Kysely<Database>): Promise<void> {
  const lane = laneOf(db);
  for (;;) {
    const current = lane.chain;
    await current;
    if (current === lane.chain) return;
  }
}

/** Ingestion stops: steps not started are dropped, the running one is waited for. */
export async function stopBackgroundPairs(db: Kysely<Database>): Promise<void> {
  const lane = laneOf(db);
  lane.stopped = true;
  lanes.delete(db); // a later start on the same database gets a fresh lane
  await lane.chain;
}
