// Worker thread entry (pair-pool.ts): the exact comparison of two models — part-to-part rescoring
// (~36 ms of CPU) or part-in-part containment (0.1–0.5 s, more when it falls back to voting) —
// away from the service's event loop, so requests keep being answered while pairs are computed
// (after every ingested model, or by a query that finds a pair not stored yet).
import { containment, type ContainmentModel } from '../../geometry/descriptors/containment';
import { descriptorDistance } from '../../geometry/descriptors/global-descriptor';
import type { Pose } from '../../geometry/descriptors/pose';
import { partToPartRescore } from '../../geometry/descriptors/rescore';
import { containmentModelFrom, placeByShells } from '../../geometry/search-features';

export interface PairSide {
  /** `${modelId}:${version}`: what the decoded blob is cached under. */
  key: string;
  /** search-features.ts encodePrepared() blob. */
  prepared: Uint8Array;
  /** Part-to-part vector. */
  global: Float32Array;
  /** Stored shells (idx order): descriptor and principal frame. */
  components: { idx: number; descriptor: Float32Array; pose: Pose }[];
}

export interface PairTask {
  kind: 'part-to-part' | 'part-in-part';
  a: PairSide;
  b: PairSide;
}

export interface PairAnswer {
  score?: number;
  forward?: number;
  reverse?: number;
  transform: number[];
}

/** Shells compared per model when seeding a containment placement (the largest first, as stored). */
const SEED_SHELLS = 12;
/** A seeded placement covering less of the smaller model than this falls back to point-pair-feature voting. */
const SEED_COVERAGE = 0.7;

/**
 * Decoded analyses with their surface index: decoding and indexing 4,096 samples costs about as
 * much as a query, and a cluster of duplicates compares the same models over and over. The key
 * carries the model version, which changes whenever its features can have changed.
 */
const decoded = new Map<string, ContainmentModel>();
const DECODED_MAX = 64;

function model(side: PairSide): ContainmentModel {
  let m = decoded.get(side.key);
  if (m) decoded.delete(side.key);
  else m = containmentModelFrom(side.prepared);
  decoded.set(side.key, m);
  while (decoded.size > DECODED_MAX) decoded.delete(decoded.keys().next().value!);
  return m;
}

/** The comparison of a with b, from these inputs alone (the same numbers whoever asks). */
export default function comparePair(task: PairTask): PairAnswer {
  const ma = model(task.a), mb = model(task.b);
  if (task.kind === 'part-to-part') {
    const r = partToPartRescore({ ...ma, descriptor: task.a.global }, { ...mb, descriptor: task.b.global });
    return { score: r.score, transform: r.alignment.transform };
  }
  // The most alike pair of shells of the two models seeds the placement (ties: lower indices).
  let seed: { x: PairSide['components'][number]; y: PairSide['components'][number]; d: number } | undefined;
  for (const x of task.a.components.slice(0, SEED_SHELLS)) {
    for (const y of task.b.components.slice(0, SEED_SHELLS)) {
      const d = descriptorDistance(x.descriptor, y.descriptor);
      if (!seed || d < seed.d) seed = { x, y, d };
    }
  }
  const seeded = seed ? placeByShells(ma, seed.x.pose, mb, seed.y.pose) : undefined;
  const res = seeded && seeded.coverage >= SEED_COVERAGE ? containment(ma, mb, { placement: seeded.transform }) : containment(ma, mb);
  return { forward: res.forward, reverse: res.reverse, transform: res.transform };
}
