import type { ReactNode } from 'react';
import { Breadcrumbs, type Crumb } from './breadcrumbs';

/** A page's heading block: where it sits (trail), its title, and what follows the title (a lead). */
export function PageHeader({ trail, title, children }: { trail?: readonly Crumb[]; title: ReactNode; children?: ReactNode }) {
  return (
    <header className="page__header">
      {trail && <Breadcrumbs trail={trail} />}
      <h1>{title}</h1>
      {children}
    </header>
  );
}
