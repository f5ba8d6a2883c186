import { formatDateTime, formatRelative } from './format';

/** A relative date ("2 hours ago") with the exact local date and time on hover. */
export function RelativeTime({ value, fallback = 'Never' }: { value: string | null; fallback?: string }) {
  if (!value) return <span className="muted">{fallback}</span>;
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {formatRelative(value)}
    </time>
  );
}
