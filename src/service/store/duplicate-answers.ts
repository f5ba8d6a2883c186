// What both duplicate answers (a folder's clusters, the grouped report over a scope) say beyond
// the groups: the mirror images and scaled copies, with their models.
import type { Kysely } from 'kysely';
import type { RelationLink } from '../../contract/matches';
import type { Model } from '../../contract/models';
import type { ModelFiles } from '../files/model-files';
import type { DuplicateClusters } from '../search/duplicates';
import type { Database } from './schema';
import { toModelsByIds } from './model-dto';

const rounded = (score: number) => Math.min(100, Number(score.toFixed(3)));

/** The clusters' and relations' models by id, read once. */
export async function modelsOfDuplicates(
  db: Kysely<Database>,
  tenantId: number,
  found: DuplicateClusters,
  files: ModelFiles,
): Promise<Map<string, Model>> {
  const ids = [...new Set([...found.clusters.flatMap((c) => c.modelIds), ...found.relations.flatMap((r) => [r.a, r.b])])];
  return new Map((await toModelsByIds(db, tenantId, ids, files)).map((m) => [m.id, m]));
}

/** Links with their scores as answers carry them (three decimals, at most 100). */
export function roundedLinks<T extends { matchPercentage: number }>(links: readonly T[]): T[] {
  return links.map((l) => ({ ...l, matchPercentage: rounded(l.matchPercentage) }));
}

/** The relations whose two models are still there, and those models. */
export function relationsAnswer(
  found: DuplicateClusters,
  models: ReadonlyMap<string, Model>,
): { relations: RelationLink[]; relatedModels: Model[] } {
  const relations = roundedLinks(found.relations.filter((r) => models.has(r.a) && models.has(r.b)));
  const ids = [...new Set(relations.flatMap((r) => [r.a, r.b]))];
  return { relations, relatedModels: ids.map((id) => models.get(id)!) };
}
