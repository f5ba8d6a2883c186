import type { ColumnType, Kysely, Transaction } from 'kysely';
import type { Pose } from '../../geometry/search/descriptors/pose';
import type { Database } from '../store/schema';

/** Tables of migration 0003-search (kept here, beside the only code that uses them). */
export type SearchTables = {
  search_features: {
    model_id: string;
    tenant_id: number;
    version: number;
    /** real[]: the source of truth; `global_vec`/`geo_vec` (pgvector) are trigger-filled copies where available. */
    global_desc: number[];
    geo_desc: number[];
    /** Surface area (mm²). */
    area: number;
    shells: number;
    /** search-features.ts encodePrepared(): analysis + surface samples for exact rescoring. */
    prepared: Uint8Array;
  };
  search_components: {
    model_id: string;
    idx: number;
    tenant_id: number;
    descriptor: number[];
    area_share: number;
    copies: number;
    /** geometry Pose of the shell: JSON written as a string, read back parsed. */
    pose: ColumnType<Pose, string, string>;
  };
  /** Migration 0005: exact pair results, both directions (pairs.ts). */
  search_pairs: {
    tenant_id: number;
    model_id: string;
    kind: 'part-to-part' | 'part-in-part';
    version: number;
    other_id: string;
    score: number | null;
    forward: number | null;
    reverse: number | null;
    transform: number[];
    /** Migration 0009: part-to-part 'mirrored' | 'scaled', and the scale factor of a scaled copy. */
    relation: 'mirrored' | 'scaled' | null;
    scale: number | null;
  };
  search_generations: {
    tenant_id: number;
    /** bigint: pg hands it over as a string. */
    generation: string;
  };
};

export type SearchDatabase = Database & SearchTables;
export type SearchDb = Kysely<SearchDatabase>;

export function searchDb(db: Kysely<Database> | Transaction<Database>): Kysely<SearchDatabase> {
  return db.withTables<SearchTables>();
}
