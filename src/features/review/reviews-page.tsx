import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useDuplicateReports, useStartReport } from '../../api/duplicate-review';
import { useFolderTree } from '../../api/folders';
import { defaultReportThreshold, minReportThreshold, type DuplicateReport } from '../../contract/duplicate-review';
import { PageHeader } from '../../ui/page-header';
import { ErrorState, LoadingState, EmptyState } from '../../ui/states';
import { DataTable } from '../../ui/table';
import { RelativeTime } from '../../ui/relative-time';
import { ReportProgress, scopeWords } from './report-status';
import { toggled } from './toggled';
import './review.css';
import { paths } from '../../ui/paths';
import { ScoreLegend } from '../../ui/score-legend';

/** Starts a report: folders (with or without subfolders) or everything, and a threshold. */
function NewReportForm({ initialFolderIds }: { initialFolderIds: number[] }) {
  const folders = useFolderTree({ fresh: true });
  const start = useStartReport();
  const navigate = useNavigate();
  const [chosen, setChosen] = useState<Set<number>>(new Set(initialFolderIds));
  const [subfolders, setSubfolders] = useState(true);
  const [threshold, setThreshold] = useState<number>(defaultReportThreshold);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate(
      { folderIds: [...chosen], includeSubfolders: subfolders, threshold },
      { onSuccess: (report) => void navigate(paths.review.href(report.id)) },
    );
  };
  const sorted = [...(folders.data ?? [])].sort((a, b) => a.path.localeCompare(b.path));
  return (
    <form className="card review-new" onSubmit={submit} aria-labelledby="new-report-title">
      <h2 id="new-report-title" className="card__title">
        Find duplicates
      </h2>
      <fieldset className="review-new__folders">
        <legend>Where to look</legend>
        <p className="field__hint">Choose folders, or none to look through every model you can see.</p>
        {folders.isPending || (folders.isFetching && !folders.data?.length) ? (
          <LoadingState label="Loading folders…" />
        ) : folders.isError ? (
          <p className="form-error">{errorMessage(folders.error)}</p>
        ) : sorted.length === 0 ? (
          <p className="muted">No folders yet: the report covers every model.</p>
        ) : (
          <ul className="review-new__folder-list">
            {sorted.map((f) => (
              <li key={f.id}>
                <label className="check">
                  <input
                    type="checkbox"
                    checked={chosen.has(f.id)}
                    onChange={(event) => setChosen(toggled(chosen, f.id, event.target.checked))}
                  />
                  {f.path}
                </label>
              </li>
            ))}
          </ul>
        )}
        <label className="check">
          <input type="checkbox" checked={subfolders} onChange={(event) => setSubfolders(event.target.checked)} />
          Include subfolders
        </label>
      </fieldset>
      <label className="field field--inline">
        <span>Threshold (%)</span>
        <input
          type="number"
          min={minReportThreshold}
          max={100}
          step={0.5}
          value={threshold}
          onChange={(event) =>
            setThreshold(Math.min(100, Math.max(minReportThreshold, Number(event.target.value) || defaultReportThreshold)))
          }
        />
      </label>
      <ScoreLegend />
      {start.isError && (
        <p className="form-error" role="alert">
          {errorMessage(start.error)}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={start.isPending}>
          {start.isPending
            ? 'Starting…'
            : chosen.size
              ? `Find duplicates in ${chosen.size} ${chosen.size === 1 ? 'folder' : 'folders'}`
              : 'Find duplicates everywhere'}
        </button>
      </div>
    </form>
  );
}

function ReportRow({ report }: { report: DuplicateReport }) {
  return (
    <tr data-testid="report-row">
      <td>
        <Link to={paths.review.href(report.id)}>{scopeWords(report)}</Link>
      </td>
      <td>{report.threshold}%</td>
      <td>
        <ReportProgress report={report} compact />
      </td>
      <td>{report.modelCount ?? '—'}</td>
      <td>
        <RelativeTime value={report.createdAt} /> <span className="muted">by {report.createdBy.name}</span>
      </td>
    </tr>
  );
}

/** /review — duplicate reports: start one, and the ones run before (kept, marked stale when their scope changed). */
export function ReviewsPage() {
  const [search] = useSearchParams();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const initialFolderIds = search
    .getAll('folder')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  const list = useDuplicateReports(page);
  return (
    <div className="page review-page">
      <PageHeader title="Duplicate clean-up">
        <p className="lead">
          Find duplicates across folders, review each group, choose the model to keep, record what you decide, then move, tag or delete the
          duplicates.
        </p>
      </PageHeader>
      <NewReportForm initialFolderIds={initialFolderIds} />
      <section className="card" aria-labelledby="reports-title" style={{ marginTop: '1rem' }}>
        <h2 id="reports-title" className="card__title">
          Reports
        </h2>
        {list.isPending ? (
          <LoadingState label="Loading reports…" />
        ) : list.isError ? (
          <ErrorState title="Reports could not be loaded" message={errorMessage(list.error)} onRetry={() => void list.refetch()} />
        ) : list.data.reports.length === 0 ? (
          <EmptyState title="No reports yet">
            <p>Start one above: it runs in the background, and you can leave this page meanwhile.</p>
          </EmptyState>
        ) : (
          <DataTable caption="Duplicate reports, newest first" columns={['Scope', 'Threshold', 'Status', 'Models', 'Started']}>
            {list.data.reports.map((r) => (
              <ReportRow key={r.id} report={r} />
            ))}
          </DataTable>
        )}
      </section>
    </div>
  );
}
