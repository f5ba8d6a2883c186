// The tenants' model view descriptors in memory (weighted, ready to scan): image search compares
// a query with every view of every candidate model, which must not read megabytes from the
// database per search. Entries are keyed by model and the model version they were computed
// from, so a reprocessed or re-uploaded model is read again; deleted models drop out when the
// cache is pruned against a full candidate list.
import { sql, type Expression, type SqlBool } from 'kysely';
import { VIEW_METHOD } from '../../geometry/views/shape-features';
import { closestView, weighted } from '../../geometry/views/view-index';
import { bytesToFloats, type ImageDb } from './image-store';

/** Model states whose views are searched (the interface: models that have completed ingestion). */
export const IMAGE_SEARCH_STATES = ['finished', 'finished-incomplete'] as const;

interface Entry {
  version: number;
  count: number;
  dim: number;
  data: Float32Array;
}

export interface ScoredModel {
  modelId: string;
  /** Sum over the query images of the closest view's distance. */
  distance: number;
}

export class ModelViewCache {
  private readonly entries = new Map<string, Entry>();
  private searches = 0;

  /** Distances of every candidate model of `tenantId` (passing `filter`) to the query descriptors. */
  async search(db: ImageDb, tenantId: number, queries: Float32Array[], filter: Expression<SqlBool> | undefined): Promise<ScoredModel[]> {
    let q = db
      .selectFrom('models')
      .innerJoin('model_views', 'model_views.model_id', 'models.id')
      .select(['models.id as id', 'model_views.version as version'])
      .where('models.tenant_id', '=', tenantId)
      .where('models.state', 'in', [...IMAGE_SEARCH_STATES])
      .where('model_views.method', '=', VIEW_METHOD)
      .where(sql<SqlBool>`model_views.version = models.version`);
    if (filter) q = q.where(filter);
    const candidates = await q.execute();
    // Now and then drop models deleted since they were loaded (best effort; a failure only keeps memory).
    if (++this.searches % 200 === 0) this.prune(db).catch(() => {});
    await this.load(db, candidates.filter((c) => this.entries.get(c.id)?.version !== c.version).map((c) => c.id));
    const wq = queries.map(weighted);
    const out: ScoredModel[] = [];
    for (const c of candidates) {
      const e = this.entries.get(c.id);
      if (!e) continue;
      let distance = 0;
      for (const w of wq) distance += closestView(w, e.data, 0, e.count, e.dim);
      out.push({ modelId: c.id, distance });
    }
    return out;
  }

  private async load(db: ImageDb, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db
        .selectFrom('model_views')
        .select(['model_id', 'version', 'view_count', 'dim', 'data'])
        .where('model_id', 'in', ids.slice(i, i + 500))
        .where('method', '=', VIEW_METHOD)
        .execute();
      for (const r of rows) this.entries.set(r.model_id, { version: r.version, count: r.view_count, dim: r.dim, data: weighted(bytesToFloats(r.data)) });
    }
  }

  /** Forgets models that no longer exist (called now and then; cheap). */
  async prune(db: ImageDb): Promise<void> {
    const ids = [...this.entries.keys()];
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      const alive = new Set((await db.selectFrom('model_views').select('model_id').where('model_id', 'in', chunk).execute()).map((r) => r.model_id));
      for (const id of chunk) if (!alive.has(id)) this.entries.delete(id);
    }
  }
}
