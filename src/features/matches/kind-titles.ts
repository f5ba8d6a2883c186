import type { MatchKind } from '../../contract/matches';

export const kindTitles: Record<MatchKind, string> = {
  'part-in-part': 'Part-in-part',
  'part-to-part': 'Part-to-part',
  'geo-related': 'Geo-related',
};

/** Part-in-part's two shares, named for what they measure (every page, the table and the CSV). */
export const shareLabels = {
  forward: 'This model found in it',
  reverse: 'It found in this model',
} as const;

/** Part-in-part's two lists: the models this one is in, and the models in it. */
export const directionTitles = {
  contains: 'Assemblies that use this model',
  contained: 'Parts in this model',
} as const;
