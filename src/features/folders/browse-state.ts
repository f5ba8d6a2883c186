// The folder page's view (search, filters, order, page, layout) <-> its query string, so that a
// link reproduces exactly what was on screen; and the model-list request that view asks for.
import type { ModelListParams } from '../../api/models';
import { NATIVE_CAD_EXTENSIONS, READABLE_FORMATS } from '../../contract/file-types';
import { filterBuilder, formatFilter, type FilterClause, type ModelFilterField } from '../../contract/filter';
import { folderAndBelowClause, modelCountsWithSubfolders, type Folder } from '../../contract/folders';
import { modelStates } from '../../contract/models';
import { formatOrder, type ListOrderField } from '../../contract/order';

export type ViewMode = 'grid' | 'table';

export interface FileTypeGroup {
  id: string;
  label: string;
  /** `fileType` values of the group (lower-case extensions). */
  types: readonly string[];
}

/** File types as a designer thinks of them; one choice may cover several extensions. */
export const fileTypeGroups: readonly FileTypeGroup[] = [
  { id: 'step', label: 'STEP', types: READABLE_FORMATS.step.extensions },
  { id: 'iges', label: 'IGES', types: READABLE_FORMATS.iges.extensions },
  { id: 'brep', label: 'BREP', types: READABLE_FORMATS.brep.extensions },
  { id: 'stl', label: 'STL', types: READABLE_FORMATS.stl.extensions },
  { id: 'obj', label: 'OBJ', types: READABLE_FORMATS.obj.extensions },
  { id: 'ply', label: 'PLY', types: READABLE_FORMATS.ply.extensions },
  { id: 'off', label: 'OFF', types: READABLE_FORMATS.off.extensions },
  { id: 'gltf', label: 'glTF / GLB', types: [...READABLE_FORMATS.gltf.extensions, ...READABLE_FORMATS.glb.extensions] },
  { id: '3mf', label: '3MF', types: READABLE_FORMATS['3mf'].extensions },
  { id: 'native', label: 'Native CAD', types: NATIVE_CAD_EXTENSIONS },
];

export interface OrderChoice {
  id: string;
  label: string;
  field: ListOrderField;
  direction: 'asc' | 'desc';
}

export const orderChoices: readonly OrderChoice[] = [
  { id: 'name', label: 'Name (A–Z)', field: 'name', direction: 'asc' },
  { id: '-name', label: 'Name (Z–A)', field: 'name', direction: 'desc' },
  { id: '-createdAt', label: 'Newest first', field: 'createdAt', direction: 'desc' },
  { id: 'createdAt', label: 'Oldest first', field: 'createdAt', direction: 'asc' },
  { id: 'state', label: 'State', field: 'state', direction: 'asc' },
];

export const perPageChoices = [24, 48, 96] as const;

export interface BrowseState {
  search: string;
  /** Raw model states (contract/models.ts `modelStates`). */
  states: string[];
  /** Ids of `fileTypeGroups`. */
  types: string[];
  /** Id of an `orderChoices` entry. */
  order: string;
  page: number;
  perPage: number;
  view: ViewMode;
  /**
   * A folder's view lists the models of its subfolders too; null until the designer chooses, when
   * a folder with no models of its own shows those below it (withSubfolderDefault).
   */
  subfolders: boolean | null;
}

export const defaultBrowseState: BrowseState = {
  search: '',
  states: [],
  types: [],
  order: 'name',
  page: 1,
  perPage: perPageChoices[0],
  view: 'grid',
  subfolders: null,
};

const knownStates = new Set<string>(modelStates);
const knownTypes = new Set(fileTypeGroups.map((g) => g.id));
const knownOrders = new Set(orderChoices.map((o) => o.id));

/** Comma-separated list, known values only, each once, in a stable order. */
function readList(value: string | null, allowed: ReadonlySet<string>, order: readonly string[]): string[] {
  if (!value) return [];
  const picked = new Set(
    value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => allowed.has(v)),
  );
  return order.filter((v) => picked.has(v));
}

function readPositiveInt(value: string | null): number | null {
  if (value === null || !/^\d{1,6}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 ? n : null;
}

/** Reads a view from the query string. Anything unknown or malformed falls back to the default. */
export function parseBrowseState(params: URLSearchParams): BrowseState {
  const perPage = readPositiveInt(params.get('perPage'));
  const order = params.get('order');
  return {
    search: (params.get('search') ?? '').trim().slice(0, 200),
    states: readList(params.get('state'), knownStates, modelStates),
    types: readList(
      params.get('type'),
      knownTypes,
      fileTypeGroups.map((g) => g.id),
    ),
    order: order && knownOrders.has(order) ? order : defaultBrowseState.order,
    page: readPositiveInt(params.get('page')) ?? 1,
    perPage: perPage && (perPageChoices as readonly number[]).includes(perPage) ? perPage : defaultBrowseState.perPage,
    view: params.get('view') === 'table' ? 'table' : 'grid',
    subfolders: params.get('subfolders') === '1' ? true : params.get('subfolders') === '0' ? false : null,
  };
}

/** Writes a view into a query string; defaults are left out so plain links stay plain. */
export function formatBrowseState(state: BrowseState): URLSearchParams {
  const params = new URLSearchParams();
  const search = state.search.trim();
  if (search) params.set('search', search);
  if (state.states.length) params.set('state', state.states.join(','));
  if (state.types.length) params.set('type', state.types.join(','));
  if (state.order !== defaultBrowseState.order) params.set('order', state.order);
  if (state.page > 1) params.set('page', String(state.page));
  if (state.perPage !== defaultBrowseState.perPage) params.set('perPage', String(state.perPage));
  if (state.subfolders !== null) params.set('subfolders', state.subfolders ? '1' : '0');
  if (state.view !== defaultBrowseState.view) params.set('view', state.view);
  return params;
}

/**
 * The view with the subfolder choice made: the designer's, or else "include them" exactly when the
 * folder has no models of its own but its subfolders have some (a top-level project folder).
 * Undecided (null) while the folder tree that says so is still loading.
 */
export function withSubfolderDefault(state: BrowseState, folderId: number | null, folders: readonly Folder[] | undefined): BrowseState {
  if (state.subfolders !== null) return state;
  if (folderId === null) return { ...state, subfolders: false };
  if (!folders) return state;
  const own = folders.find((f) => f.id === folderId)?.modelCount ?? 0;
  const total = modelCountsWithSubfolders(folders).get(folderId) ?? 0;
  return { ...state, subfolders: own === 0 && total > 0 };
}

/**
 * A change to what is shown (search, filters, order, page size) goes back to page 1: the old
 * page number would point into a different result set.
 */
export function updateBrowseState(state: BrowseState, change: Partial<BrowseState>): BrowseState {
  const resetsPage = (['search', 'states', 'types', 'order', 'perPage', 'subfolders'] as const).some((k) => k in change);
  return { ...state, ...(resetsPage ? { page: 1 } : {}), ...change };
}

/**
 * The model-list filter of a view: `folderId(eq(N)),state(in(...)),fileType(in(...))`; with
 * subfolders, `folderId(in(...))` over the folder and those below it in `folders`.
 */
export function browseFilter(
  folderId: number | null,
  state: Pick<BrowseState, 'states' | 'types' | 'subfolders'>,
  folders: readonly Folder[] = [],
): string | undefined {
  const clauses: FilterClause<ModelFilterField>[] = [];
  if (folderId !== null) clauses.push(state.subfolders ? folderAndBelowClause(folders, folderId) : filterBuilder.eq('folderId', folderId));
  if (state.states.length) clauses.push(filterBuilder.in('state', state.states));
  const types = fileTypeGroups.filter((g) => state.types.includes(g.id)).flatMap((g) => g.types);
  if (types.length) clauses.push(filterBuilder.in('fileType', types));
  return clauses.length ? formatFilter(clauses) : undefined;
}

export function browseOrder(orderId: string): string {
  const choice = orderChoices.find((o) => o.id === orderId) ?? orderChoices[0]!;
  return formatOrder([{ field: choice.field, direction: choice.direction }]);
}

/** The one model-list request a view makes (used by the page and by the route's loader). */
export function browseListParams(folderId: number | null, state: BrowseState, folders: readonly Folder[] = []): ModelListParams {
  return {
    page: state.page,
    perPage: state.perPage,
    search: state.search || undefined,
    filter: browseFilter(folderId, state, folders),
    order: browseOrder(state.order),
  };
}
