// CSV of match results: RFC 4180 quoting, one column per metadata key, and text cells that a
// spreadsheet would run as a formula are defused (a leading apostrophe), so an export is safe to open.
import type { Match, MatchKind } from '../../contract/matches';

export interface CsvContext {
  kind: MatchKind;
  /** Folder paths by id (those known); unknown ones are written as the id. */
  folderPaths: ReadonlyMap<number, string>;
  /** Metadata key names by id, in the order their columns appear. */
  metadataKeys: readonly { id: number; name: string }[];
  /** Absolute address of the app, for a link per row. */
  origin: string;
}

const formulaStart = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = String(value);
  if (typeof value === 'string' && formulaStart.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return cells.map(csvCell).join(',');
}

const round = (n: number) => Math.round(n * 100) / 100;

export function matchesCsv(matches: readonly Match[], ctx: CsvContext): string {
  const scoreHeaders = ctx.kind === 'part-in-part' ? ['Contains this model (%)', 'Is contained in this model (%)'] : ['Score (%)'];
  const header = ['Name', 'File path', 'Folder', 'State', ...scoreHeaders, ...ctx.metadataKeys.map((k) => k.name), 'Model id', 'Link'];
  const lines = [csvRow(header)];
  for (const match of matches) {
    const m = match.matchedModel;
    const scores = 'matchPercentage' in match ? [round(match.matchPercentage)] : [round(match.forwardMatchPercentage), round(match.reverseMatchPercentage)];
    const metadata = ctx.metadataKeys.map((k) => m.metadata.find((p) => p.metadataKeyId === k.id)?.value ?? '');
    lines.push(
      csvRow([
        m.name,
        m.filePath,
        ctx.folderPaths.get(m.folderId) ?? String(m.folderId),
        m.state,
        ...scores,
        ...metadata,
        m.id,
        `${ctx.origin.replace(/\/+$/, '')}/models/${encodeURIComponent(m.id)}`,
      ]),
    );
  }
  // CRLF as RFC 4180 says; spreadsheets on every platform read it.
  return `${lines.join('\r\n')}\r\n`;
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
