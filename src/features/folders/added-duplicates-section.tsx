import { useId, useState } from 'react';
import { Link } from 'react-router';
import { useAddedDuplicatesSince } from '../../api/added-duplicates';
import { errorMessage } from '../../api/client';
import { formatDateTime } from '../../ui/format';
import { paths } from '../../ui/paths';
import { ErrorState, LoadingState } from '../../ui/states';
import { DataTable } from '../../ui/table';
import { Pager } from '../../ui/pager';

/** Where the list starts when the address names no time: a week back. */
export function defaultSince(now = Date.now()): string {
  const d = new Date(now - 7 * 24 * 3600_000);
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

/** `YYYY-MM-DD` of a time in the browser's zone, for a date field. */
function localDate(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const score = (value: number) => Math.floor(value * 10) / 10;

/**
 * "Added as duplicates since …": the folder's models (with subfolders) created since a time
 * although the library already held the same part (the duplicate rule), each beside the model it
 * repeats. The upload page links here with the time its batch started.
 */
export function AddedDuplicatesSection({ folderId, since, onSince }: { folderId: number; since: string; onSince: (iso: string) => void }) {
  const [page, setPage] = useState(1);
  const headingId = useId();
  const dateId = useId();
  const added = useAddedDuplicatesSince(folderId, since, page);
  const data = added.data;
  return (
    <section className="card added-duplicates" aria-labelledby={headingId} data-testid="added-duplicates">
      <div className="added-duplicates__header">
        <h2 id={headingId} className="card__title">
          Added as duplicates since {formatDateTime(since)}
        </h2>
        <label htmlFor={dateId} className="added-duplicates__since">
          Since
          <input
            id={dateId}
            type="date"
            value={localDate(since)}
            max={localDate(new Date().toISOString())}
            onChange={(event) => {
              const [y, m, d] = event.target.value.split('-').map(Number);
              if (!y || !m || !d) return;
              setPage(1);
              onSince(new Date(y, m - 1, d).toISOString());
            }}
          />
        </label>
      </div>
      <p className="muted">
        Models put into this folder or its subfolders although the library already held the same part (98 % or more, not a mirror image or a
        scaled copy).
      </p>
      {added.isPending ? (
        <LoadingState label="Checking the models added since then…" />
      ) : added.isError && !data ? (
        <ErrorState title="The list could not be made" message={errorMessage(added.error)} onRetry={() => void added.refetch()} />
      ) : data && data.results.length === 0 ? (
        <p data-testid="added-duplicates-summary">
          None of the {data.checked} {data.checked === 1 ? 'model' : 'models'} added since then repeats one already in the library
          {data.pending > 0 ? ` (${data.pending} still processing)` : ''}.
        </p>
      ) : (
        data && (
          <>
            <p data-testid="added-duplicates-summary">
              {data.pageData.total} of the {data.checked} models added since then {data.pageData.total === 1 ? 'repeats' : 'repeat'} one
              already in the library{data.pending > 0 ? ` (${data.pending} still processing)` : ''}.
            </p>
            <DataTable caption="Models added as duplicates" columns={['Added', 'Already in the library', 'Score', null]}>
              {data.results.map(({ model, duplicates }) => {
                const first = duplicates[0]!;
                return (
                  <tr key={model.id} data-testid="added-duplicate-row">
                    <td data-label="Added">
                      <Link to={paths.model.href(model.id)}>{model.name}</Link>
                      <div className="muted added-duplicates__path">
                        {model.filePath} · {formatDateTime(model.createdAt)}
                      </div>
                    </td>
                    <td data-label="Already in the library">
                      <Link to={paths.model.href(first.matchedModel.id)}>{first.matchedModel.name}</Link>
                      <div className="muted added-duplicates__path">
                        {first.matchedModel.filePath}
                        {duplicates.length > 1 && ` (and ${duplicates.length - 1} more)`}
                      </div>
                    </td>
                    <td data-label="Score">{score(first.matchPercentage)}</td>
                    <td className="table__actions">
                      <Link
                        className="button button--small"
                        to={paths.compare.href(model.id, first.matchedModel.id, { kind: 'part-to-part' })}
                        aria-label={`Compare ${model.name} with ${first.matchedModel.name}`}
                      >
                        Compare
                      </Link>
                    </td>
                  </tr>
                );
              })}
            </DataTable>
            <Pager pageData={data.pageData} onPage={setPage} label="Pages of models added as duplicates" />
          </>
        )
      )}
    </section>
  );
}
