import type { Match, MatchKind } from '../../contract/matches';
import { paths } from '../../ui/paths';

/** The compare view of a query model and one of its matches, with the match's placement in the URL. */
export function compareHref(queryId: string, kind: MatchKind, match: Match): string {
  const params = new URLSearchParams({ kind });
  if (match.transform) params.set('transform', match.transform.map((n) => Number(n.toPrecision(9))).join(','));
  return paths.compare.href(queryId, match.matchedModel.id, params);
}
