import type { PageData } from '../contract/paging';
import './pager.css';

/** Previous / "Page 2 of 5" / Next under a paged list; nothing when there is one page. */
export function Pager({ pageData, onPage, label = 'Pages' }: { pageData: PageData; onPage: (page: number) => void; label?: string }) {
  if (pageData.lastPage <= 1) return null;
  const page = pageData.currentPage;
  return (
    <nav className="page-nav" aria-label={label}>
      <button type="button" className="button button--small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-current="page">
        Page {page} of {pageData.lastPage}
      </span>
      <button type="button" className="button button--small" disabled={page >= pageData.lastPage} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
