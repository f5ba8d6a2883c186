// The tenants' model view descriptors in memory (weighted, ready to scan): image search compares
// a query with every view of every candidate model, which must not read megabytes from the
// database per search. Entries are keyed by model and the model version they were computed
// from, so a reprocessed or re-uploaded model is read again; deleted models drop out when the
// cache is pruned against a full candidate list.
import { LRUCache } from 'lru-cache';
import { sql, type Expression, type SqlBool } from 'kysely';
import { searchableVersionsSql } from '../store/searchable-models';
import {
  COARSE_STEP,
  combinedDistances,
  ImageOrder,
  refinedModelDistance,
  RERANK_MODELS,
  SmallestK,
  summedClosestBelow,
  weighted,
} from '../../geometry/search/views/view-index';
import type { ImageDb } from './image-store';
import { readable } from './model-views-store';
import { decodeDescriptors, decodeSignatures, VIEW_SIGNATURE_METHOD } from './view-signature';

interface Entry {
  version: number;
  count: number;
  dim: number;
  /** Weighted descriptors in bytes, `count` × `dim` (view-index.ts quantizeViews). */
  data: Uint8Array;
}

export interface ScoredModel {
  modelId: string;
  /** Sum over the query images of the closest view's distance, plus the polar re-comparison's for the best (view-index.ts). */
  distance: number;
}

/** A query image's descriptor and polar signature. */
export interface ImageQuery {
  descriptor: Float32Array;
  signature: Uint8Array;
}

/** Memory for cached descriptors, all tenants together. */
const TOTAL_BYTES = 640 * 1024 * 1024;
/**
 * One tenant's share: a tenant with more models keeps only its most recently searched ones, so
 * no tenant can push every other tenant's entries out. A quarter holds 22,000 models' descriptors
 * (84 views × 87 bytes), past the 20,000 of the search budgets, for four tenants searching in turn.
 */
const TENANT_BYTES = TOTAL_BYTES / 4;

export class ModelViewCache {
  /** Per tenant, least recently searched tenant dropped first: at most TOTAL_BYTES / TENANT_BYTES shares. */
  private readonly tenants = new LRUCache<number, LRUCache<string, Entry>>({ max: Math.floor(TOTAL_BYTES / TENANT_BYTES) });
  private searches = 0;

  private tenantEntries(tenantId: number): LRUCache<string, Entry> {
    let entries = this.tenants.get(tenantId);
    if (!entries) {
      entries = new LRUCache<string, Entry>({ maxSize: TENANT_BYTES, sizeCalculation: (e) => Math.max(1, e.data.byteLength) });
      this.tenants.set(tenantId, entries);
    }
    return entries;
  }

  /**
   * The `need` models of `tenantId` (passing `filter`) closest to the query images, with their
   * distances (more may come back, some of them not exact: sort and take `need`), and how many
   * models were searched. Models that cannot be among the `need` best are abandoned early.
   */
  async search(
    db: ImageDb,
    tenantId: number,
    queries: ImageQuery[],
    filter: Expression<SqlBool> | undefined,
    need: number,
  ): Promise<{ scored: ScoredModel[]; searched: number }> {
    const { rows: candidates } = await sql<{ id: string; version: number }>`
      select m.id, v.version from (${searchableVersionsSql(tenantId, { filter })}) m
      join model_views v on v.model_id = m.id and v.version = m.version
      where v.method = ${VIEW_SIGNATURE_METHOD}`.execute(db);
    // Now and then drop models deleted since they were loaded (best effort; a failure only keeps memory).
    if (++this.searches % 200 === 0) this.prune(db).catch(() => {});
    const entries = this.tenantEntries(tenantId);
    // What this search read is scanned even where the tenant's share could not keep it all.
    const loaded = await this.load(
      db,
      entries,
      candidates.filter((c) => entries.get(c.id)?.version !== c.version).map((c) => c.id),
    );
    const wq = queries.map((q) => weighted(q.descriptor));
    // Several images: the order they are compared in adapts so that poor models are dropped sooner.
    const images = new ImageOrder(wq);
    // The re-comparison needs the first RERANK_MODELS exact too.
    const top = new SmallestK(Math.max(need, RERANK_MODELS));
    const found: { id: string; entry: Entry }[] = [];
    const stage1: number[] = [];
    let searched = 0;
    for (const c of candidates) {
      const entry = loaded.get(c.id) ?? entries.get(c.id);
      if (!entry) continue;
      searched++;
      const d = summedClosestBelow(images.queries, entry.data, 0, entry.count, entry.dim, top.bound, COARSE_STEP, images.bests);
      if (!Number.isFinite(d)) continue;
      images.record();
      top.offer(d);
      found.push({ id: c.id, entry });
      stage1.push(d);
    }
    // Second stage: the best few compared again on every view and by polar signatures, read from
    // the database only for them (most models never need them).
    const polar = await this.signatures(db, stage1, found);
    const vq = queries.map((q, j) => ({ weighted: wq[j]!, signature: q.signature }));
    const final = combinedDistances(stage1, (i) => {
      const { entry } = found[i]!;
      const sig = polar.get(found[i]!.id);
      return sig ? refinedModelDistance(vq, entry.data, entry.count, entry.dim, sig) : Infinity;
    });
    return { scored: found.map((f, i) => ({ modelId: f.id, distance: final[i]! })), searched };
  }

  /** Polar signatures of the models {@link combinedDistances} compares again (the first RERANK_MODELS by `stage1`). */
  private async signatures(db: ImageDb, stage1: number[], found: { id: string; entry: Entry }[]): Promise<Map<string, Uint8Array>> {
    const ids = [...stage1.keys()]
      .sort((a, b) => stage1[a]! - stage1[b]!)
      .slice(0, RERANK_MODELS)
      .map((i) => found[i]!);
    const out = new Map<string, Uint8Array>();
    if (ids.length === 0) return out;
    const rows = await db
      .selectFrom('model_views')
      .select(['model_id', 'version', 'view_count', 'signatures'])
      .where(
        'model_id',
        'in',
        ids.map((f) => f.id),
      )
      .where('method', '=', VIEW_SIGNATURE_METHOD)
      .execute();
    const byId = new Map(ids.map((f) => [f.id, f.entry]));
    for (const r of rows) {
      // Only signatures of the views the cached descriptors came from (a reprocess may have landed since).
      if (byId.get(r.model_id)?.version !== r.version || !r.signatures) continue;
      const signatures = readable(r.model_id, () => decodeSignatures(r.signatures!, r.view_count));
      if (signatures) out.set(r.model_id, signatures);
    }
    return out;
  }

  private async load(db: ImageDb, entries: LRUCache<string, Entry>, ids: string[]): Promise<Map<string, Entry>> {
    const loaded = new Map<string, Entry>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db
        .selectFrom('model_views')
        .select(['model_id', 'version', 'view_count', 'dim', 'data'])
        .where('model_id', 'in', ids.slice(i, i + 500))
        .where('method', '=', VIEW_SIGNATURE_METHOD)
        .execute();
      for (const r of rows) {
        const data = readable(r.model_id, () => decodeDescriptors(r.data, r.view_count * r.dim));
        if (!data) continue;
        const entry = { version: r.version, count: r.view_count, dim: r.dim, data };
        loaded.set(r.model_id, entry);
        entries.set(r.model_id, entry);
      }
    }
    return loaded;
  }

  /** Forgets models that no longer exist (called now and then; cheap). */
  async prune(db: ImageDb): Promise<void> {
    for (const entries of [...this.tenants.values()]) {
      const ids = [...entries.keys()];
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        const alive = new Set(
          (await db.selectFrom('model_views').select('model_id').where('model_id', 'in', chunk).execute()).map((r) => r.model_id),
        );
        for (const id of chunk) if (!alive.has(id)) entries.delete(id);
      }
    }
  }
}
