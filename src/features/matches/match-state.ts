// The matches page's view (thresholds per kind, direction, filters, order, page, layout) <-> its
// query string, so a link reproduces exactly what was on screen; and the request that view asks for.
import type { MatchListParams } from '../../api/matches';
import { filterBuilder, formatFilter, type FilterClause, type ModelFilterField } from '../../contract/filter';
import { defaultMatchThreshold, matchKinds, type MatchKind } from '../../contract/matches';
import { formatOrder, type MatchOrderField } from '../../contract/order';

export type MatchView = 'grid' | 'table';
/** Part-in-part: "contains this model" ranks by the forward score, "is contained in this model" by the reverse one. */
export type { ContainmentDirection } from '../../contract/matches';
import type { ContainmentDirection } from '../../contract/matches';
export type SortDirection = 'asc' | 'desc';

export const defaultThreshold = defaultMatchThreshold;
export const matchesPerPage = 24;

export interface MatchPageState {
  /** Threshold of every kind; the current kind's is `threshold` in the URL, others `threshold-<kind>`. */
  thresholds: Record<MatchKind, number>;
  /** Part-in-part: its assemblies or its parts only; null lists both. */
  direction: ContainmentDirection | null;
  /** Sort field; null = the service's default (best score first). */
  sort: MatchOrderField | null;
  sortDirection: SortDirection;
  folderId: number | null;
  metadataKeyId: number | null;
  metadataValue: string;
  page: number;
  view: MatchView;
}

const sortFields: readonly MatchOrderField[] = [
  'name',
  'createdAt',
  'state',
  'matchPercentage',
  'forwardMatchPercentage',
  'reverseMatchPercentage',
];

export function clampThreshold(value: number): number {
  if (!Number.isFinite(value)) return defaultThreshold;
  return Math.min(100, Math.max(0, Math.round(value)));
}

function readThreshold(raw: string | null): number {
  if (raw === null || raw.trim() === '') return defaultThreshold;
  return clampThreshold(Number(raw));
}

function readPositiveInt(raw: string | null): number | null {
  if (raw === null) return null;
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : null;
}

export function parseMatchState(kind: MatchKind, search: URLSearchParams): MatchPageState {
  const thresholds = Object.fromEntries(
    matchKinds.map((k) => [k, readThreshold(k === kind ? search.get('threshold') : search.get(`threshold-${k}`))]),
  ) as Record<MatchKind, number>;
  const sortRaw = search.get('sort');
  const sort = sortRaw && (sortFields as readonly string[]).includes(sortRaw) ? (sortRaw as MatchOrderField) : null;
  return {
    thresholds,
    direction: search.get('direction') === 'contained' ? 'contained' : search.get('direction') === 'contains' ? 'contains' : null,
    sort,
    sortDirection: search.get('dir') === 'asc' ? 'asc' : 'desc',
    folderId: readPositiveInt(search.get('folder')),
    metadataKeyId: readPositiveInt(search.get('metaKey')),
    metadataValue: search.get('metaValue')?.trim() ?? '',
    page: readPositiveInt(search.get('page')) ?? 1,
    view: search.get('view') === 'table' ? 'table' : 'grid',
  };
}

/** Only what differs from the defaults is written, so plain links stay plain. */
export function formatMatchState(kind: MatchKind, state: MatchPageState): URLSearchParams {
  const out = new URLSearchParams();
  out.set('threshold', String(state.thresholds[kind]));
  for (const k of matchKinds) {
    if (k !== kind && state.thresholds[k] !== defaultThreshold) out.set(`threshold-${k}`, String(state.thresholds[k]));
  }
  if (kind === 'part-in-part' && state.direction) out.set('direction', state.direction);
  if (state.sort) {
    out.set('sort', state.sort);
    out.set('dir', state.sortDirection);
  }
  if (state.folderId !== null) out.set('folder', String(state.folderId));
  if (state.metadataKeyId !== null && state.metadataValue) {
    out.set('metaKey', String(state.metadataKeyId));
    out.set('metaValue', state.metadataValue);
  }
  if (state.page > 1) out.set('page', String(state.page));
  if (state.view === 'table') out.set('view', 'table');
  return out;
}

/** The query string of another kind's tab: its own threshold becomes `threshold`, the page restarts. */
export function searchForKind(to: MatchKind, state: MatchPageState): string {
  const sortKept = state.sort && isSortValidFor(to, state.sort) ? state.sort : null;
  return formatMatchState(to, { ...state, page: 1, sort: sortKept }).toString();
}

export function isSortValidFor(kind: MatchKind, field: MatchOrderField): boolean {
  if (field === 'matchPercentage') return kind !== 'part-in-part';
  if (field === 'forwardMatchPercentage' || field === 'reverseMatchPercentage') return kind === 'part-in-part';
  return true;
}

/** Folder and metadata filters as the contract's filter expression. */
export function matchFilter(state: Pick<MatchPageState, 'folderId' | 'metadataKeyId' | 'metadataValue'>): string | undefined {
  const clauses: FilterClause<ModelFilterField>[] = [];
  if (state.folderId !== null) clauses.push(filterBuilder.eq('folderId', state.folderId));
  if (state.metadataKeyId !== null && state.metadataValue) {
    // `like` with a trailing wildcard: "Bra" finds "Brass"; case-insensitive on the service.
    const pattern = state.metadataValue.replace(/\*/g, '');
    clauses.push(filterBuilder.like(filterBuilder.metadata(state.metadataKeyId), `${pattern}*`) as FilterClause<ModelFilterField>);
  }
  return clauses.length ? formatFilter(clauses) : undefined;
}

/** The order the service is asked for. Part-in-part without a chosen column ranks by the direction's score. */
export function matchOrder(kind: MatchKind, state: Pick<MatchPageState, 'sort' | 'sortDirection' | 'direction'>): string | undefined {
  if (state.sort && isSortValidFor(kind, state.sort)) {
    const primary = { field: state.sort, direction: state.sortDirection };
    return formatOrder([primary]);
  }
  if (kind === 'part-in-part') {
    return formatOrder([
      { field: state.direction === 'contained' ? 'reverseMatchPercentage' : 'forwardMatchPercentage', direction: 'desc' },
    ]);
  }
  return undefined;
}

export function matchListParams(kind: MatchKind, state: MatchPageState, threshold = state.thresholds[kind]): MatchListParams {
  return {
    threshold,
    page: state.page,
    perPage: matchesPerPage,
    filter: matchFilter(state),
    order: matchOrder(kind, state),
    ...(kind === 'part-in-part' && state.direction ? { direction: state.direction } : {}),
  };
}
