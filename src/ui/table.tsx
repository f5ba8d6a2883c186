import type { ReactNode } from 'react';

/**
 * The app's table: scrolls sideways in its wrapper on narrow screens, a caption for screen readers
 * and one row of column headings; `null` is the actions column (named for screen readers only).
 * The rows are the caller's.
 */
export function DataTable({
  caption,
  columns,
  className,
  wrapClassName,
  children,
}: {
  caption: ReactNode;
  columns: readonly (string | null)[];
  className?: string;
  wrapClassName?: string;
  children: ReactNode;
}) {
  return (
    <div className={wrapClassName ? `table-wrap ${wrapClassName}` : 'table-wrap'}>
      <table className={className ? `table ${className}` : 'table'}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={column ?? `actions-${i}`} scope="col">
                {column ?? <span className="visually-hidden">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A row's last cell: one quiet danger button (delete, remove), named for screen readers. */
export function RowActionCell({
  label,
  onClick,
  disabled,
  children,
}: {
  label: string;
  onClick: () => void;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <td className="table__actions">
      <button type="button" className="button button--small button--danger-quiet" aria-label={label} onClick={onClick} disabled={disabled}>
        {children}
      </button>
    </td>
  );
}
