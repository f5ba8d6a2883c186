// After an upgrade that changes how descriptors are computed, models ingested before it hold
// search data today's queries cannot compare with; they are reprocessed once, in the background.
import { sql, type Kysely } from 'kysely';
import { SEARCH_FEATURES_VERSION } from '../../geometry/search/search-features';
import { modelsWithStaleViews } from '../images/model-views-store';
import { idleIdsSql, idleVersions } from '../store/models';
import type { Database } from '../store/schema';

/** Settled models whose search features or image views come from an older recipe (at most `limit` of each), with their versions. */
export async function modelsWithOutdatedDescriptors(db: Kysely<Database>, limit = 1000): Promise<{ id: string; version: number }[]> {
  const { rows } = await sql<{ id: string }>`
    select f.model_id as id from search_features f
    where f.version <> ${SEARCH_FEATURES_VERSION} and f.model_id in (${idleIdsSql()})
    limit ${limit}`.execute(db);
  const ids = [...new Set([...rows.map((r) => r.id), ...(await modelsWithStaleViews(db, limit))])];
  return idleVersions(db, ids);
}
