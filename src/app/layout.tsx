import { lazy, Suspense, useId, useState } from 'react';
import { NavLink, Outlet, ScrollRestoration, useLocation, useMatch, useNavigation } from 'react-router';
import { UserMenu } from './user-menu';
import { Toaster } from '../ui/toast';
import { CompareSetPill } from '../ui/compare-set-pill';
import { paths } from '../ui/paths';

// Loaded on its own, after the first route: it stays out of the first route's bundle.
const UploadIndicator = lazy(() => import('../features/upload/upload-indicator').then((m) => ({ default: m.UploadIndicator })));

const links = [
  { to: paths.folders.href(), label: 'Folders' },
  { to: paths.upload.href(), label: 'Upload' },
  { to: paths.reviews.href(), label: 'Duplicates' },
  { to: paths.imageSearch.href(), label: 'Image search' },
  { to: paths.sketchSearch.href(), label: 'Search by sketch' },
  { to: paths.credentials.href(), label: 'Credentials' },
];

export function AppShell() {
  const navigation = useNavigation();
  // Upload from a folder's page: files go into that folder unless another target is chosen.
  const browsed = useMatch(paths.folder.pattern)?.params.folderId;
  const hrefOf = (to: string) => (to === paths.upload.href() && browsed && /^\d+$/.test(browsed) ? paths.upload.href(Number(browsed)) : to);
  // On a phone the links fold into a menu; it closes when a page opens.
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const [menuPage, setMenuPage] = useState(location.key);
  if (menuPage !== location.key) {
    setMenuPage(location.key);
    setMenuOpen(false);
  }
  const navId = useId();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="header">
        <div className="header__inner">
          <NavLink to={paths.folders.href()} className="brand">
            <span className="brand__mark" aria-hidden="true" />
            Geometric Search Workbench
          </NavLink>
          <button
            type="button"
            className="nav-toggle button button--small"
            aria-expanded={menuOpen}
            aria-controls={navId}
            onClick={() => setMenuOpen((open) => !open)}
          >
            Menu
          </button>
          <nav
            id={navId}
            aria-label="Main"
            className={`nav${menuOpen ? ' nav--open' : ''}`}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setMenuOpen(false);
            }}
          >
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
