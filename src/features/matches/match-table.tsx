import { shareLabels } from './kind-titles';
import { relationLabel, quantityLabel } from './match-card';
import { Link } from 'react-router';
import type { Match, MatchKind } from '../../contract/matches';
import type { MatchOrderField } from '../../contract/order';
import { compareHref } from './match-links';
import { safeImageUrl } from '../../ui/safe-url';
import { isSortValidFor, type ContainmentDirection, type SortDirection } from './match-state';
import { ScoreBar } from '../../ui/score-bar';
import { paths } from '../../ui/paths';

interface Column {
  id: string;
  label: string;
  /** Set when the service can order by this column. */
  sort?: MatchOrderField;
}

function SortHeader({
  column,
  sort,
  direction,
  onSort,
}: {
  column: Column;
  sort: MatchOrderField | null;
  direction: SortDirection;
  onSort: (field: MatchOrderField) => void;
}) {
  if (!column.sort) return <th scope="col">{column.label}</th>;
  const active = sort === column.sort;
  return (
    <th scope="col" aria-sort={active ? (direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(column.sort!)}>
        {column.label}
        <span aria-hidden="true">{active ? (direction === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
      </button>
    </th>
  );
}

/** Results as a table: sortable by the columns the service can order by, one column per metadata key. */
export function MatchTable({
  queryId,
  kind,
  matches,
  folderPaths,
  metadataColumns,
  stateLabel,
  direction,
  sort,
  sortDirection,
  onSort,
}: {
  queryId: string;
  kind: MatchKind;
  matches: readonly Match[];
  folderPaths: ReadonlyMap<number, string>;
  metadataColumns: readonly { id: number; name: string }[];
  stateLabel: (state: string) => string;
  direction: ContainmentDirection | null;
  sort: MatchOrderField | null;
  sortDirection: SortDirection;
  onSort: (field: MatchOrderField) => void;
}) {
  const scoreColumns: Column[] =
    kind === 'part-in-part'
      ? [
          { id: 'forward', label: shareLabels.forward, sort: 'forwardMatchPercentage' },
          { id: 'reverse', label: shareLabels.reverse, sort: 'reverseMatchPercentage' },
        ]
      : [{ id: 'score', label: 'Score', sort: 'matchPercentage' }];
  const columns: Column[] = [
    { id: 'thumb', label: 'Preview' },
    { id: 'name', label: 'Name', sort: 'name' },
    { id: 'folder', label: 'Folder' },
    { id: 'state', label: 'State', sort: 'state' },
    ...scoreColumns.filter((c) => !c.sort || isSortValidFor(kind, c.sort)),
    ...metadataColumns.map((k) => ({ id: `meta-${k.id}`, label: k.name })),
    { id: 'created', label: 'Created', sort: 'createdAt' },
    { id: 'actions', label: 'Compare' },
  ];
  return (
    <div className="table-wrap">
      <table className="table match-table">
        <thead>
          <tr>
            {columns.map((c) => (
              <SortHeader key={c.id} column={c} sort={sort} direction={sortDirection} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {matches.map((match) => {
            const m = match.matchedModel;
            const thumb = safeImageUrl(m.thumbnail);
            return (
              <tr key={m.id} data-testid="match-row">
                <td>{thumb ? <img src={thumb} alt="" className="match-table__thumb" loading="lazy" /> : null}</td>
                <td className="table__name">
                  <Link to={paths.model.href(m.id)}>{m.name}</Link>
                  {relationLabel(match) && <span className="badge badge--relation">{relationLabel(match)}</span>}
                  {quantityLabel(match) && <span className="badge">{quantityLabel(match)}</span>}
                </td>
                <td>{folderPaths.get(m.folderId) ?? `Folder ${m.folderId}`}</td>
                <td>{stateLabel(m.state)}</td>
                {'matchPercentage' in match ? (
                  <td>
                    <ScoreBar label="Score" value={match.matchPercentage} emphasis />
                  </td>
                ) : (
                  <>
                    <td>
                      <ScoreBar label="Contains" value={match.forwardMatchPercentage} emphasis={direction === 'contains'} />
                    </td>
                    <td>
                      <ScoreBar label="Contained" value={match.reverseMatchPercentage} emphasis={direction === 'contained'} />
                    </td>
                  </>
                )}
                {metadataColumns.map((k) => (
                  <td key={k.id}>{m.metadata.find((p) => p.metadataKeyId === k.id)?.value ?? ''}</td>
                ))}
                <td>{new Date(m.createdAt).toLocaleDateString()}</td>
                <td>
                  <Link to={compareHref(queryId, kind, match)} aria-label={`Compare with ${match.matchedModel.name}`}>
                    Compare
                  </Link>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
