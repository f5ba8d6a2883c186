import { describe, expect, it } from 'vitest';
import { parseFilter, modelFilterFields } from '../../contract/filter';
import {
  browseFilter,
  browseListParams,
  defaultBrowseState,
  formatBrowseState,
  parseBrowseState,
  updateBrowseState,
  withSubfolderDefault,
  type BrowseState,
} from './browse-state';
import type { Folder } from '../../contract/folders';

const parse = (query: string) => parseBrowseState(new URLSearchParams(query));

describe('browse view <-> query string', () => {
  it('reads defaults from an empty query and writes nothing for them', () => {
    expect(parse('')).toEqual(defaultBrowseState);
    expect(formatBrowseState(defaultBrowseState).toString()).toBe('');
  });

  it('round-trips every part of the view', () => {
    const state: BrowseState = {
      search: 'bracket v2',
      states: ['processing', 'failed'],
      types: ['step', 'stl'],
      order: '-createdAt',
      page: 3,
      perPage: 48,
      view: 'table',
      subfolders: true,
    };
    const query = formatBrowseState(state).toString();
    expect(query).toBe(
      'search=bracket+v2&state=processing%2Cfailed&type=step%2Cstl&order=-createdAt&page=3&perPage=48&subfolders=1&view=table',
    );
    expect(parse(query)).toEqual(state);
  });

  it('normalises lists to a stable order and drops unknown or repeated values', () => {
    const state = parse('state=failed,bogus,processing,failed&type=stl,zip,step');
    expect(state.states).toEqual(['processing', 'failed']);
    expect(state.types).toEqual(['step', 'stl']);
    expect(parse(formatBrowseState(state).toString())).toEqual(state);
  });

  it('falls back to defaults for malformed values', () => {
    expect(parse('page=0&perPage=7&order=password&view=cards')).toEqual(defaultBrowseState);
    expect(parse('page=-2').page).toBe(1);
    expect(parse('page=2.5').page).toBe(1);
    expect(parse('search=%20%20').search).toBe('');
  });

  it('goes back to page 1 when what is shown changes, not when only the layout changes', () => {
    const onPage4 = { ...defaultBrowseState, page: 4 };
    expect(updateBrowseState(onPage4, { search: 'x' }).page).toBe(1);
    expect(updateBrowseState(onPage4, { states: ['finished'] }).page).toBe(1);
    expect(updateBrowseState(onPage4, { order: 'name' }).page).toBe(1);
    expect(updateBrowseState(onPage4, { subfolders: true }).page).toBe(1);
    expect(updateBrowseState(onPage4, { view: 'table' }).page).toBe(4);
    expect(updateBrowseState(onPage4, { page: 5 }).page).toBe(5);
  });
});

describe('browse filter', () => {
  it('builds folderId, state and fileType clauses the contract parser reads back', () => {
    const filter = browseFilter(12, { states: ['finished', 'finished-incomplete'], types: ['step', 'stl'], subfolders: false });
    expect(filter).toBe('folderId(eq(12)),state(in(finished,finished-incomplete)),fileType(in(step,stp,p21,stl))');
    const clauses = parseFilter(filter ?? '', { fields: modelFilterFields, allowMetadata: true });
    expect(clauses.map((c) => c.field)).toEqual(['folderId', 'state', 'fileType']);
  });

  it('has no filter at all for all models without filters', () => {
    expect(browseFilter(null, { states: [], types: [], subfolders: false })).toBeUndefined();
    expect(browseFilter(7, { states: [], types: [], subfolders: false })).toBe('folderId(eq(7))');
  });

  it('covers the folders below with subfolders', () => {
    const folder = (id: number, path: string, parentFolderId: number | null) => ({
      id,
      name: path,
      path,
      parentFolderId,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const folders = [folder(7, 'A', null), folder(8, 'A/B', 7), folder(9, 'A/B/C', 8), folder(10, 'AB', null)];
    expect(browseFilter(7, { states: ['failed'], types: [], subfolders: true }, folders)).toBe('folderId(in(7,8,9)),state(in(failed))');
    // Until the folder list is known: the folder alone.
    expect(browseFilter(7, { states: [], types: [], subfolders: true })).toBe('folderId(eq(7))');
  });

  it('turns a view into one list request', () => {
    expect(browseListParams(5, parse('search=gear&order=-name&page=2&state=failed'))).toEqual({
      page: 2,
      perPage: 24,
      search: 'gear',
      filter: 'folderId(eq(5)),state(in(failed))',
      order: '-name',
    });
    expect(browseListParams(null, defaultBrowseState)).toEqual({
      page: 1,
      perPage: 24,
      search: undefined,
      filter: undefined,
      order: 'name',
    });
  });

  it('includes subfolders by default only for a folder whose models are all below it; a choice in the URL wins', () => {
    const folders = [
      { id: 1, name: 'Project', path: 'Project', parentFolderId: null, modelCount: 0 },
      { id: 2, name: 'Parts', path: 'Project/Parts', parentFolderId: 1, modelCount: 4 },
      { id: 3, name: 'Empty', path: 'Empty', parentFolderId: null, modelCount: 0 },
    ] as Folder[];
    const undecided = parseBrowseState(new URLSearchParams(''));
    expect(undecided.subfolders).toBeNull();
    expect(withSubfolderDefault(undecided, 1, folders).subfolders).toBe(true);
    expect(withSubfolderDefault(undecided, 2, folders).subfolders).toBe(false);
    expect(withSubfolderDefault(undecided, 3, folders).subfolders).toBe(false);
    expect(withSubfolderDefault(undecided, 1, undefined).subfolders).toBeNull();
    const off = parseBrowseState(new URLSearchParams('subfolders=0'));
    expect(withSubfolderDefault(off, 1, folders).subfolders).toBe(false);
    expect(formatBrowseState(off).toString()).toBe('subfolders=0');
    expect(formatBrowseState(undecided).toString()).toBe('');
  });
});
