// CSV of match results, one column per metadata key, written by the library the service's exports
// use: text cells that a spreadsheet would run as a formula are defused (a leading apostrophe), so an
// export is safe to open.
import { shareLabels } from './kind-titles';
import { stringify, type Options } from 'csv-stringify/browser/esm/sync';
import type { Match, MatchKind } from '../../contract/matches';
import { paths } from '../../ui/paths';
import { stateLabel } from '../../ui/model-state';

export interface CsvContext {
  kind: MatchKind;
  /** Folder paths by id (those known); unknown ones are written as the id. */
  folderPaths: ReadonlyMap<number, string>;
  /** Metadata key names by id, in the order their columns appear. */
  metadataKeys: readonly { id: number; name: string }[];
  /** Absolute address of the app, for a link per row. */
  origin: string;
}

type Cell = string | number | null | undefined;

const options: Options = {
  escape_formulas: true,
  // CRLF as RFC 4180 says; spreadsheets on every platform read it.
  record_delimiter: 'windows',
  // The library quotes only the record delimiter itself; a bare line break in a name must be quoted too.
  quoted_match: /[\r\n]/,
  // A score that is not a number is an empty cell, not "NaN".
  cast: { number: (n) => (Number.isFinite(n) ? String(n) : '') },
};

/** Rows as CSV text, each row ending in CRLF. */
export function toCsv(rows: readonly (readonly Cell[])[]): string {
  return stringify(rows as Cell[][], options);
}

const round = (n: number) => Math.round(n * 100) / 100;

export function matchesCsv(matches: readonly Match[], ctx: CsvContext): string {
  const scoreHeaders =
    ctx.kind === 'part-in-part' ? [`${shareLabels.forward} (%)`, `${shareLabels.reverse} (%)`, 'Quantity'] : ['Score (%)'];
  const header = ['Name', 'File path', 'Folder', 'State', ...scoreHeaders, ...ctx.metadataKeys.map((k) => k.name), 'Model id', 'Link'];
  const rows: Cell[][] = [header];
  for (const match of matches) {
    const m = match.matchedModel;
    const scores =
      'matchPercentage' in match
        ? [round(match.matchPercentage)]
        : [round(match.forwardMatchPercentage), round(match.reverseMatchPercentage), match.copies ?? ''];
    const metadata = ctx.metadataKeys.map((k) => m.metadata.find((p) => p.metadataKeyId === k.id)?.value ?? '');
    rows.push([
      m.name,
      m.filePath,
      ctx.folderPaths.get(m.folderId) ?? String(m.folderId),
      stateLabel(m.state),
      ...scores,
      ...metadata,
      m.id,
      `${ctx.origin.replace(/\/+$/, '')}${paths.model.href(m.id)}`,
    ]);
  }
  return toCsv(rows);
}

/** The metadata keys used by these matches, in key-id order (the table's and the CSV's columns). */
export function metadataColumns(matches: readonly Match[], names: ReadonlyMap<number, string>): { id: number; name: string }[] {
  const ids = new Set<number>();
  for (const match of matches) for (const pair of match.matchedModel.metadata) ids.add(pair.metadataKeyId);
  return [...ids].sort((a, b) => a - b).map((id) => ({ id, name: names.get(id) ?? `Key ${id}` }));
}

export function csvFileName(modelName: string, kind: MatchKind, threshold: number): string {
  const safe = modelName.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'model';
  return `${safe}-${kind}-matches-${threshold}.csv`;
}
