import type { MatchKind } from '../../contract/matches';

export const kindTitles: Record<MatchKind, string> = {
  'part-in-part': 'Part-in-part',
  'part-to-part': 'Part-to-part',
  'geo-related': 'Geo-related',
};
