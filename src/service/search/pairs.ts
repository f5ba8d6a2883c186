// Exact pair results (part-to-part rescoring, part-in-part containment), stored in both directions
// (migration 0005). A pair's result is a property of the two models' geometry, never of the
// query that asked: it is computed in one canonical direction (the lower model id first) with
// inputs of the pair alone, and the other direction is derived from it. So ingestion settling a
// model and a query that finds a pair not yet stored produce the same numbers, and results never
// depend on timing.
import { sql, type Kysely } from 'kysely';
import { Matrix4 } from 'three';
import { invertRigidMat4 } from '../../geometry/mesh/transform';
import { SEARCH_FEATURES_VERSION } from '../../geometry/search/search-features';
import type { Database } from '../store/schema';
import { comparePairOffThread } from './pair-pool';
import type { PairSide } from './pair-worker';
import { searchDb } from './tables';
import { searchableIdsSql, searchableVersionsSql, stillSearchableAt, type SettlingModel } from '../store/searchable-models';

export type PairKind = 'part-to-part' | 'part-in-part';

/** Bumped when the way a pair is computed changes; stored rows of another version are ignored. */
const PAIR_METHOD_VERSION = 7;
export const PAIR_VERSION = SEARCH_FEATURES_VERSION * 100 + PAIR_METHOD_VERSION;

export interface PairResult {
  /** Part-to-part: the exact score. */
  score?: number;
  /** Part-to-part: the first is the second's mirror image, or a scaled copy of it (by `scale`). */
  relation?: 'mirrored' | 'scaled';
  scale?: number;
  /** Part-in-part: share of the first model's surface found in the second, and the other way round. */
  forward?: number;
  reverse?: number;
  /** Column-major 4×4 placing the first model in the second's frame ([] when none); a mirror or a scale for those relations. */
  transform: number[];
}

/** The same result seen from the other model. */
export function reversePair(kind: PairKind, r: PairResult): PairResult {
  if (kind === 'part-in-part')
    return { forward: r.reverse, reverse: r.forward, transform: r.transform.length === 16 ? invertRigidMat4(r.transform) : [] };
  // Mirrors and scales are not rigid: a general inverse.
  const transform = r.transform.length === 16 ? new Matrix4().fromArray(r.transform).invert().toArray() : [];
  return {
    score: r.score,
    transform,
    ...(r.relation ? { relation: r.relation } : {}),
    ...(r.scale !== undefined ? { scale: 1 / r.scale } : {}),
  };
}

/**
 * Stored results of `modelId` (current version only): against `otherIds`, or with `'all'` every
 * one stored — what other models' queries found with it.
 */
export async function storedPairs(
  db: Kysely<Database>,
  tenantId: number,
  kind: PairKind,
  modelId: string,
  otherIds: readonly string[] | 'all',
): Promise<Map<string, PairResult>> {
  if (otherIds !== 'all' && !otherIds.length) return new Map();
  let q = searchDb(db)
    .selectFrom('search_pairs')
    .select(['other_id', 'score', 'forward', 'reverse', 'transform', 'relation', 'scale'])
    .where('tenant_id', '=', tenantId)
    .where('model_id', '=', modelId)
    .where('kind', '=', kind)
    .where('version', '=', PAIR_VERSION);
  if (otherIds !== 'all') q = q.where('other_id', 'in', [...new Set(otherIds)]);
  return new Map((await q.execute()).map((r) => [r.other_id, fromRow(r)]));
}

/** A stored part-to-part result between two models of a scope: the score, and the relation when the pair is one. */
export interface ScopedScore {
  score: number;
  relation?: 'mirrored' | 'scaled';
  /** With `scaled`: the second model is the first (smaller id) scaled by this factor. */
  scale?: number;
}

/** Stored part-to-part results among a set of models (folder duplicates), keyed `${a}:${b}` with a < b. */
export async function storedScoresAmong(
  db: Kysely<Database>,
  tenantId: number,
  folderIds: readonly number[] | null,
): Promise<Map<string, ScopedScore>> {
  const inScope =
    folderIds === null
      ? sql``
      : sql` and p.model_id in (${searchableIdsSql(tenantId, { folderIds })}) and p.other_id in (${searchableIdsSql(tenantId, { folderIds })})`;
  const { rows } = await sql<{
    model_id: string;
    other_id: string;
    score: number;
    relation: 'mirrored' | 'scaled' | null;
    scale: number | null;
  }>`
    select p.model_id, p.other_id, p.score, p.relation, p.scale from search_pairs p
    where p.tenant_id = ${tenantId} and p.kind = 'part-to-part' and p.version = ${PAIR_VERSION} and p.model_id < p.other_id${inScope}`.execute(
    db,
  );
  return new Map(
    rows.map((r) => [
      `${r.model_id}:${r.other_id}`,
      {
        score: Number(r.score),
        ...(r.relation ? { relation: r.relation } : {}),
        ...(r.scale !== null && r.relation === 'scaled' ? { scale: Number(r.scale) } : {}),
      },
    ]),
  );
}

function fromRow(r: {
  score: number | null;
  forward: number | null;
  reverse: number | null;
  transform: number[];
  relation: 'mirrored' | 'scaled' | null;
  scale: number | null;
}): PairResult {
  const out: PairResult = { transform: (r.transform ?? []).map(Number) };
  if (r.relation) out.relation = r.relation;
  if (r.scale !== null) out.scale = Number(r.scale);
  if (r.score !== null) out.score = Number(r.score);
  if (r.forward !== null) out.forward = Number(r.forward);
  if (r.reverse !== null) out.reverse = Number(r.reverse);
  return out;
}

async function storePair(
  db: Kysely<Database>,
  tenantId: number,
  kind: PairKind,
  a: string,
  b: string,
  ab: PairResult,
  [va, vb]: [number, number],
  settling: SettlingModel | undefined,
) {
  const ba = reversePair(kind, ab);
  const row = (model: string, other: string, r: PairResult) =>
    sql`(${tenantId}::int, ${model}::uuid, ${kind}::text, ${PAIR_VERSION}::int, ${other}::uuid, ${r.score ?? null}::float8, ${r.forward ?? null}::float8, ${r.reverse ?? null}::float8, ${`{${r.transform.join(',')}}`}::float8[], ${r.relation ?? null}::text, ${r.scale ?? null}::float8)`;
  // Stored only while both models are still searchable at the version whose features were read:
  // a model reprocessed or deleted meanwhile gets no result computed from its old geometry.
  await sql`
    insert into search_pairs (tenant_id, model_id, kind, version, other_id, score, forward, reverse, transform, relation, scale)
    select * from (values ${row(a, b, ab)}, ${row(b, a, ba)}) v
    where ${stillSearchableAt(
      tenantId,
      [
        [a, va],
        [b, vb],
      ],
      settling,
    )}
    on conflict (tenant_id, model_id, kind, version, other_id) do nothing`.execute(db);
}

/** Exact pairs computed in this process (benchmarks print how many a phase needed). */
export const pairCounters = { computed: 0 };

/** Pairs being computed in this process (ingestion settling a model and a query asking for the same pair share the work). */
const inFlight = new Map<string, Promise<PairResult | undefined>>();

/**
 * Exact results of `modelId` against each of `otherIds`: stored ones are read, missing ones are
 * computed (canonical direction), stored and returned. A pair whose features are gone (a model
 * deleted or reprocessed meanwhile) is left out.
 */
export async function exactPairs(
  db: Kysely<Database>,
  tenantId: number,
  kind: PairKind,
  modelId: string,
  otherIds: readonly string[],
  settling?: SettlingModel,
): Promise<Map<string, PairResult>> {
  const out = await storedPairs(db, tenantId, kind, modelId, otherIds);
  const missing = [...new Set(otherIds)].filter((id) => id !== modelId && !out.has(id));
  if (!missing.length) return out;
  const inputs = new PairInputs(db, kind, [modelId, ...missing], settling);
  for (const other of missing) {
    const [a, b] = modelId < other ? [modelId, other] : [other, modelId];
    const key = `${tenantId}:${kind}:${a}:${b}`;
    let p = inFlight.get(key);
    if (!p) {
      p = computeAndStore(db, tenantId, kind, a, b, inputs, settling);
      inFlight.set(key, p);
      void p.finally(() => inFlight.delete(key)).catch(() => {});
    }
    const ab = await p;
    if (ab) out.set(other, a === modelId ? ab : reversePair(kind, ab));
  }
  return out;
}

async function computeAndStore(
  db: Kysely<Database>,
  tenantId: number,
  kind: PairKind,
  a: string,
  b: string,
  inputs: PairInputs,
  settling: SettlingModel | undefined,
): Promise<PairResult | undefined> {
  pairCounters.computed++;
  const ab = await inputs.compare(a, b);
  const versions = await inputs.versions(a, b);
  if (ab && versions) await storePair(db, tenantId, kind, a, b, ab, versions, settling);
  return ab;
}

/** Reads what exact comparisons of a few models need (each model once) and hands each pair to the worker. */
class PairInputs {
  private loaded?: Promise<Map<string, PairSide & { version: number }>>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly kind: PairKind,
    private readonly ids: string[],
    private readonly settling: SettlingModel | undefined,
  ) {}

  /** Blob, vector and model version in one read, of searchable models only; shells for part-in-part. */
  private load() {
    return (this.loaded ??= (async () => {
      const ids = [...new Set(this.ids)];
      const { rows } = await sql<{ id: string; version: number; prepared: Uint8Array; global_desc: number[] }>`
        select m.id, m.version, f.prepared, f.global_desc from (${searchableVersionsSql(undefined, { ids, settling: this.settling })}) m join search_features f on f.model_id = m.id`.execute(
        this.db,
      );
      const shells = new Map<string, PairSide['components']>();
      if (this.kind === 'part-in-part') {
        const comps = await searchDb(this.db)
          .selectFrom('search_components')
          .select(['model_id', 'idx', 'descriptor', 'pose'])
          .where('model_id', 'in', ids)
          .orderBy('model_id')
          .orderBy('idx')
          .execute();
        for (const c of comps) {
          let list = shells.get(c.model_id);
          if (!list) shells.set(c.model_id, (list = []));
          list.push({ idx: c.idx, descriptor: Float32Array.from(c.descriptor), pose: c.pose });
        }
      }
      return new Map(
        rows.map((r) => {
          const version = Number(r.version);
          return [
            r.id,
            {
              key: `${r.id}:${version}`,
              version,
              prepared: new Uint8Array(r.prepared),
              global: Float32Array.from(r.global_desc),
              components: shells.get(r.id) ?? [],
            },
          ];
        }),
      );
    })());
  }

  /** Versions the inputs were read at: a result is stored only if neither model changed since. */
  async versions(a: string, b: string): Promise<[number, number] | undefined> {
    const m = await this.load();
    const va = m.get(a)?.version,
      vb = m.get(b)?.version;
    return va === undefined || vb === undefined ? undefined : [va, vb];
  }

  async compare(a: string, b: string): Promise<PairResult | undefined> {
    const m = await this.load();
    const sa = m.get(a),
      sb = m.get(b);
    if (!sa || !sb) return undefined;
    const side = ({ key, prepared, global, components }: PairSide): PairSide => ({ key, prepared, global, components });
    return comparePairOffThread({ kind: this.kind, a: side(sa), b: side(sb) });
  }
}

/**
 * For each of `partIds`, the searchable assemblies its stored part-in-part results place it in:
 * at least `minForward` % of the part found in the assembly (what a part-in-part list shows as contained).
 * Complete because ingestion settles every model's part-in-part pairs (ingest-job.ts).
 */
export async function assembliesContaining(
  db: Kysely<Database>,
  tenantId: number,
  partIds: readonly string[],
  minForward = 90,
): Promise<Map<string, { id: string; name: string; filePath: string }[]>> {
  const out = new Map<string, { id: string; name: string; filePath: string }[]>();
  if (!partIds.length) return out;
  const { rows } = await sql<{ part_id: string; id: string; name: string; file_path: string }>`
    select p.model_id::text as part_id, m.id, m.name, m.file_path
    from search_pairs p join models m on m.id = p.other_id
    where p.tenant_id = ${tenantId} and p.kind = 'part-in-part' and p.version = ${PAIR_VERSION}
      and p.model_id = any(${[...partIds]}::uuid[]) and p.forward >= ${minForward}
      -- An assembly holds more than the part: a model found as much in the part as the part in
      -- it is the same shape again (a duplicate), not an assembly that uses it.
      and coalesce(p.reverse, 0) < ${minForward}
      -- An assembly: a tree of parts, or a mesh of several bodies (an assembly exported as one file).
      and (m.is_assembly or exists (
        select 1 from search_features f where f.model_id = m.id and f.shells > 1))
      and m.id in (${searchableIdsSql(tenantId)})
    order by m.name, m.id`.execute(db);
  for (const r of rows) {
    let list = out.get(r.part_id);
    if (!list) out.set(r.part_id, (list = []));
    list.push({ id: r.id, name: r.name, filePath: r.file_path });
  }
  return out;
}
