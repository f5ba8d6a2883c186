import type { ReactNode } from 'react';
import { Link } from 'react-router';

export interface Crumb {
  label: ReactNode;
  /** Where it links; without one it is the current page. */
  to?: string;
  key?: string | number;
}

/** The trail above a page's heading (styles: `.breadcrumbs` in the app stylesheet). */
export function Breadcrumbs({ trail }: { trail: readonly Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        {trail.map((crumb, i) => (
          <li key={crumb.key ?? i} aria-current={crumb.to === undefined ? 'page' : undefined}>
            {crumb.to === undefined ? crumb.label : <Link to={crumb.to}>{crumb.label}</Link>}
          </li>
        ))}
      </ol>
    </nav>
  );
}
