import { lazy, Suspense } from 'react';
import { NavLink, Outlet, ScrollRestoration, useMatch, useNavigation } from 'react-router';
import { UserMenu } from './user-menu';
import { Toaster } from '../ui/toast';
import { CompareSetPill } from '../ui/compare-set-pill';

// Loaded on its own, after the first route: it stays out of the first route's bundle.
const UploadIndicator = lazy(() => import('../features/upload/upload-indicator').then((m) => ({ default: m.UploadIndicator })));

const links = [
  { to: '/folders', label: 'Folders' },
  { to: '/upload', label: 'Upload' },
  { to: '/review', label: 'Duplicates' },
  { to: '/image-search', label: 'Image search' },
  { to: '/credentials', label: 'Credentials' },
];

export function AppShell() {
  const navigation = useNavigation();
  // Upload from a folder's page: files go into that folder unless another target is chosen.
  const browsed = useMatch('/folders/:folderId')?.params.folderId;
  const hrefOf = (to: string) => (to === '/upload' && browsed && /^\d+$/.test(browsed) ? `/upload?into=${browsed}` : to);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <div className="header__inner">
          <NavLink to="/folders" className="brand">
            <span className="brand__mark" aria-hidden="true" />
            Geometric Search Workbench
          </NavLink>
          <nav aria-label="Main" className="nav">
            {links.map((link) => (
              <NavLink key={link.to} to={hrefOf(link.to)} className="nav__link">
                {link.label}
              </NavLink>
            ))}
          </nav>
          <Suspense fallback={null}>
            <UploadIndicator />
          </Suspense>
          <UserMenu />
        </div>
        {navigation.state === 'loading' && <div className="progress" role="progressbar" aria-label="Loading page" />}
      </header>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <CompareSetPill />
      <Toaster />
      {/* New pages open at the top; Back and Forward return to where the reader was. */}
      <ScrollRestoration />
    </div>
  );
}
