// Worker thread entry (pair-pool.ts): the exact comparison of two models — part-to-part rescoring
// (~20–50 ms of CPU) or part-in-part containment (0.1–0.5 s, more when it falls back to voting) —
// away from the service's event loop, so requests keep being answered while pairs are computed
// (after every ingested model, or by a query that finds a pair not stored yet).
import { containment, type ContainmentModel } from '../../geometry/search/descriptors/containment';
import { descriptorDistance, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import { partToPartExact } from '../../geometry/search/duplicate-rule';
import type { Pose } from '../../geometry/search/descriptors/pose';
import { containmentModelFrom, placeByShells, preparedPartFrom } from '../../geometry/search/search-features';
import { LRUCache } from 'lru-cache';

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
  relation?: 'mirrored' | 'scaled';
  scale?: number;
  /** Part-to-part: the larger share of either surface off the other after alignment (reports; not stored). */
  off?: number;
  forward?: number;
  reverse?: number;
  transform: number[];
}

/** Shells compared per model when seeding a containment placement (the largest first, as stored). */
const SEED_SHELLS = 12;
/** A seeded placement covering less of the smaller model than this falls back to point-pair-feature voting. */
const SEED_COVERAGE = 0.7;

/**
 * Decoded analyses with their surface index: decoding and indexing 4,096–8,192 samples costs
 * about as much as a query, and a cluster of duplicates compares the same models over and over.
 * The key carries the model version, which changes whenever its features can have changed.
 */
const decoded = new LRUCache<string, ContainmentModel>({ max: 64 });

function cached(key: string, make: () => ContainmentModel): ContainmentModel {
  let m = decoded.get(key);
  if (!m) decoded.set(key, (m = make()));
  return m;
}

/** The model's outer surface, for part-to-part. */
const partModel = (side: PairSide) => cached(`${side.key}:part`, () => preparedPartFrom(side.prepared, side.global));
/** All of the model's bodies, for part-in-part. */
const model = (side: PairSide) => cached(`${side.key}:all`, () => containmentModelFrom(side.prepared));

/** The comparison of a with b, from these inputs alone (the same numbers whoever asks). */
export default function comparePair(task: PairTask): PairAnswer {
  if (task.kind === 'part-to-part') {
    const pa = partModel(task.a),
      pb = partModel(task.b);
    const r = partToPartExact(
      { ...pa, descriptor: task.a.global },
      { ...pb, descriptor: task.b.global },
      scoreFromDistance(descriptorDistance(task.a.global, task.b.global)),
    );
    return {
      score: r.score,
      transform: r.transform ?? [],
      ...(r.relation ? { relation: r.relation } : {}),
      ...(r.scale !== undefined ? { scale: r.scale } : {}),
      ...(r.off !== undefined ? { off: r.off } : {}),
    };
  }
  const ma = model(task.a),
    mb = model(task.b);
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
