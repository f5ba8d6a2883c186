import type { DuplicateReport } from '../../contract/duplicate-review';

const phaseWords: Record<DuplicateReport['progress']['phase'], string> = {
  waiting: 'Waiting for a worker',
  reading: 'Reading the models',
  linking: 'Finding close pairs',
  comparing: 'Comparing pairs exactly',
  grouping: 'Grouping',
  done: 'Done',
};

/** "parts, assemblies/rig (with subfolders)" or "Every model". */
export function scopeWords(report: DuplicateReport): string {
  if (!report.scope.folders) return 'Every model';
  const paths = report.scope.folders.map((f) => f.path).join(', ');
  return report.scope.includeSubfolders ? `${paths} (with subfolders)` : paths;
}

/** A report's state in words, with a progress bar while it runs. */
export function ReportProgress({ report, compact = false }: { report: DuplicateReport; compact?: boolean }) {
  if (report.status === 'failed')
    return <span className="review-status review-status--failed">Failed{compact ? '' : `: ${report.error ?? ''}`}</span>;
  if (report.status === 'ready') {
    return (
      <span className="review-status">
        Ready
        {report.stale && (
          <span className="review-badge review-badge--stale" title="Models in its folders changed since it ran">
            Out of date
          </span>
        )}
      </span>
    );
  }
  const { phase, done, total } = report.progress;
  const share = total > 0 ? Math.min(1, done / total) : undefined;
  return (
    <span className="review-status" role="status" aria-live="polite">
      <span>
        {phaseWords[phase]}
        {total > 0 && phase === 'comparing' ? ` (${done.toLocaleString()} of ${total.toLocaleString()} pairs)` : ''}…
      </span>
      <progress className="review-progress" max={1} {...(share !== undefined ? { value: share } : {})} aria-label="Report progress" />
    </span>
  );
}
