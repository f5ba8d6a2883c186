import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { fetchDecisionExport, useDuplicateReport, useReportGroups, useStartReport } from '../../api/duplicate-review';
import type { DuplicateReport } from '../../contract/duplicate-review';
import { PageHeader } from '../../ui/page-header';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { showToast } from '../../ui/toast';
import { SharedCanvasProvider } from '../../viewer/shared-canvas';
import { useCanEdit } from '../auth/permissions';
import { BulkActionDialog } from './bulk-action-dialog';
import { GroupCard } from './group-card';
import { ReportProgress, scopeWords } from './report-status';
import './review.css';
import { paths } from '../../ui/paths';
import { saveFile } from '../../ui/save-file';
import { Pager } from '../../ui/pager';

function ExportButtons() {
  const [busy, setBusy] = useState<string | null>(null);
  const download = (format: 'csv' | 'json') => {
    setBusy(format);
    fetchDecisionExport(format)
      .then((text) =>
        saveFile(
          `duplicate-decisions-${new Date().toISOString().slice(0, 10)}.${format}`,
          text,
          format === 'csv' ? 'text/csv' : 'application/json',
        ),
      )
      .catch((error: unknown) => showToast(`The export failed: ${errorMessage(error)}`, 'error'))
      .finally(() => setBusy(null));
  };
  return (
    <>
      <button type="button" className="button" disabled={busy !== null} onClick={() => download('csv')}>
        {busy === 'csv' ? 'Exporting…' : 'Export decisions (CSV)'}
      </button>
      <button type="button" className="button" disabled={busy !== null} onClick={() => download('json')}>
        {busy === 'json' ? 'Exporting…' : 'Export decisions (JSON)'}
      </button>
    </>
  );
}

function RunAgain({ report, label = 'Run again' }: { report: DuplicateReport; label?: string }) {
  const start = useStartReport();
  const navigate = useNavigate();
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={start.isPending}
        onClick={() =>
          start.mutate(
            {
              folderIds: report.scope.folders?.map((f) => f.id) ?? [],
              includeSubfolders: report.scope.includeSubfolders,
              threshold: report.threshold,
            },
            { onSuccess: (next) => void navigate(paths.review.href(next.id)) },
          )
        }
      >
        {start.isPending ? 'Starting…' : label}
      </button>
      {start.isError && <span className="form-error">{errorMessage(start.error)}</span>}
    </>
  );
}

function Groups({ report }: { report: DuplicateReport }) {
  const [search, setSearch] = useSearchParams();
  const page = Math.max(1, Number(search.get('page')) || 1);
  const groups = useReportGroups(report.id, page, report.status === 'ready');
  const canEdit = useCanEdit();
  const [acting, setActing] = useState(false);
  if (groups.isPending) return <LoadingState label="Loading the groups…" />;
  if (groups.isError)
    return <ErrorState title="The groups could not be loaded" message={errorMessage(groups.error)} onRetry={() => void groups.refetch()} />;
  const { pageData, decidedDuplicates, actedCount } = groups.data;
  const goTo = (p: number) => {
    const next = new URLSearchParams(search);
    next.set('page', String(p));
    setSearch(next);
    window.scrollTo({ top: 0 });
  };
  return (
    <>
      <div className="review-toolbar">
        <ExportButtons />
        {canEdit && (
          <button
            type="button"
            className="button button--primary"
            disabled={decidedDuplicates.length === 0}
            onClick={() => setActing(true)}
          >
            Act on {decidedDuplicates.length} decided {decidedDuplicates.length === 1 ? 'duplicate' : 'duplicates'}…
          </button>
        )}
        {actedCount > 0 && (
          <span className="muted" data-testid="acted-count">
            {actedCount} already acted on from this report
          </span>
        )}
      </div>
      {pageData.total === 0 ? (
        <EmptyState title="No duplicate groups">
          <p>
            No models in this scope match at {report.threshold}% or more
            {report.modelCount !== null ? ` (${report.modelCount} compared)` : ''}, or every pair was decided not a duplicate.
          </p>
        </EmptyState>
      ) : (
        groups.data.groups.map((g, i) => (
          <GroupCard key={g.key} group={g} index={pageData.startIndex + i} threshold={report.threshold} canEdit={canEdit} />
        ))
      )}
      <Pager pageData={pageData} onPage={goTo} label="Pages of groups" />
      {acting && <BulkActionDialog reportId={report.id} duplicates={decidedDuplicates} onClose={() => setActing(false)} />}
    </>
  );
}

/** /review/:reportId — a report's progress while it runs, then its groups to review. */
export function ReportPage() {
  const reportId = useParams().reportId ?? '';
  const report = useDuplicateReport(reportId);
  const r = report.data;
  // The canvas is set up while the report and its groups load, not after.
  return (
    <SharedCanvasProvider>
      <div className="page review-page">
        <PageHeader
          trail={[{ label: 'Duplicate clean-up', to: paths.reviews.href() }]}
          title={r ? `Duplicates: ${scopeWords(r)}` : 'Duplicates report'}
        >
          {r && (
            <p className="lead">
              At {r.threshold}% or more{r.modelCount !== null ? `, among ${r.modelCount.toLocaleString()} models` : ''}
              {r.groupCount !== null ? `: ${r.groupCount} ${r.groupCount === 1 ? 'group' : 'groups'} to review` : ''}. Started by{' '}
              {r.createdBy.name}.
            </p>
          )}
        </PageHeader>
        {report.isPending ? (
          <LoadingState label="Loading the report…" />
        ) : report.isError ? (
          <ErrorState title="The report could not be loaded" message={errorMessage(report.error)} onRetry={() => void report.refetch()} />
        ) : (
          <>
            <div className="review-toolbar" data-testid="report-status">
              <ReportProgress report={report.data} />
              {(report.data.stale || report.data.status === 'failed') && <RunAgain report={report.data} />}
            </div>
            {report.data.stale && (
              <p className="warning" role="note">
                Models in these folders changed since this report ran (added, removed, moved or processed again). Decisions recorded here
                are kept; run it again to review the current models.
              </p>
            )}
            {report.data.status === 'ready' ? (
              <Groups report={report.data} />
            ) : report.data.status !== 'failed' ? (
              <p className="muted">
                You can leave this page: the report keeps running, and <Link to={paths.reviews.href()}>Duplicate clean-up</Link> lists it.
              </p>
            ) : null}
          </>
        )}
      </div>
    </SharedCanvasProvider>
  );
}
