import { useStateReport } from '../api/models';
import { isSettled } from '../contract/models';
import { stateInfo } from './model-state';

/**
 * "12 ready · 2 processing · 1 failed" for a folder with its subfolders (or every model), from
 * the state report; updates itself while some are still being worked on.
 */
export function StateSummary({ folderId }: { folderId: number | null }) {
  const report = useStateReport(folderId);
  const entries = Object.entries(report.data?.states ?? {}).filter(([, n]) => n > 0);
  if (!report.data || entries.length === 0) return null;
  // Working states first (what is still moving), then the settled ones, each by count.
  entries.sort(([a, x], [b, y]) => Number(isSettled(a)) - Number(isSettled(b)) || y - x);
  const total = entries.reduce((n, [, c]) => n + c, 0);
  return (
    <p className="state-summary muted" aria-live="polite">
      <span>
        {total.toLocaleString('en-US')} {total === 1 ? 'model' : 'models'}
        {folderId === null ? '' : ' here and in subfolders'}:
      </span>{' '}
      {entries.map(([state, n], i) => (
        <span key={state} className={`state-summary__item state-summary__item--${stateInfo(state).tone}`}>
          {i > 0 && ' · '}
          {n.toLocaleString('en-US')} {stateInfo(state).label.toLowerCase()}
        </span>
      ))}
    </p>
  );
}
