import { useEffect, useId, useState, type FormEvent } from 'react';
import { modelStates } from '../../contract/models';
import type { PageData } from '../../contract/paging';
import { fileTypeGroups, orderChoices, perPageChoices, type BrowseState, type ViewMode } from './browse-state';
import { stateFilterLabels } from '../../ui/model-state';

export const searchDebounceMs = 300;

/** Search box that writes to the URL after a short pause in typing, or at once on Enter. */
export function SearchBox({ value, onCommit }: { value: string; onCommit: (value: string) => void }) {
  const [text, setText] = useState(value);
  const [committed, setCommitted] = useState(value);
  const id = useId();
  // The URL changed from elsewhere (back button, a link, "Clear filters"): show its value.
  if (value !== committed) {
    setCommitted(value);
    if (text.trim() !== value) setText(value);
  }
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onCommit(text.trim()), searchDebounceMs);
    return () => clearTimeout(timer);
  }, [text, value, onCommit]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() !== value) onCommit(text.trim());
  };

  return (
    <form role="search" className="toolbar__search" onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">
        Search models
      </label>
      <input
        id={id}
        type="search"
        value={text}
        placeholder="Search by name or file path"
        maxLength={200}
        autoComplete="off"
        onChange={(event) => setText(event.target.value)}
      />
    </form>
  );
}

function CheckboxMenu({
  label,
  options,
  selected,
  onChange,
}: {
  label: string;
  options: readonly { id: string; label: string }[];
  selected: readonly string[];
  onChange: (ids: string[]) => void;
}) {
  return (
    <details className="filter-menu">
      <summary className="button button--small">
        {label}
        {selected.length > 0 && <span className="filter-menu__count"> ({selected.length})</span>}
      </summary>
      <fieldset className="filter-menu__panel">
        <legend className="visually-hidden">{label}</legend>
        {options.map((option) => (
          <label key={option.id} className="check">
            <input
              type="checkbox"
              checked={selected.includes(option.id)}
              onChange={(event) => {
                const next = event.target.checked ? [...selected, option.id] : selected.filter((s) => s !== option.id);
                // Keep the options' order, so equal selections give equal URLs.
                onChange(options.map((o) => o.id).filter((o) => next.includes(o)));
              }}
            />
            {option.label}
          </label>
        ))}
        {selected.length > 0 && (
          <button type="button" className="button button--small filter-menu__clear" onClick={() => onChange([])}>
            Clear
          </button>
        )}
      </fieldset>
    </details>
  );
}

const stateOptions = modelStates.map((s) => ({ id: s, label: stateFilterLabels[s] ?? s }));

export function BrowseToolbar({
  state,
  onChange,
  onSearch,
  offerSubfolders = false,
}: {
  state: BrowseState;
  onChange: (change: Partial<BrowseState>) => void;
  onSearch: (search: string) => void;
  /** The folder has subfolders: offer to list their models too. */
  offerSubfolders?: boolean;
}) {
  const orderId = useId();
  const setView = (view: ViewMode) => onChange({ view });
  return (
    <div className="toolbar">
      <SearchBox value={state.search} onCommit={onSearch} />
      <CheckboxMenu label="State" options={stateOptions} selected={state.states} onChange={(states) => onChange({ states })} />
      <CheckboxMenu label="Type" options={fileTypeGroups} selected={state.types} onChange={(types) => onChange({ types })} />
      <div className="control">
        <label htmlFor={orderId}>Order</label>
        <select id={orderId} value={state.order} onChange={(event) => onChange({ order: event.target.value })}>
          {orderChoices.map((o) => (
            <option key={o.id} value={o.id}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {offerSubfolders && (
        <label className="check">
          <input type="checkbox" checked={state.subfolders === true} onChange={(event) => onChange({ subfolders: event.target.checked })} />
          Include subfolders
        </label>
      )}
      <div className="segmented" role="group" aria-label="Layout">
        <button type="button" className="segmented__button" aria-pressed={state.view === 'grid'} onClick={() => setView('grid')}>
          Grid
        </button>
        <button type="button" className="segmented__button" aria-pressed={state.view === 'table'} onClick={() => setView('table')}>
          Table
        </button>
      </div>
    </div>
  );
}

export function Pager({
  pageData,
  perPage,
  onPage,
  onPerPage,
}: {
  pageData: PageData;
  perPage: number;
  onPage: (page: number) => void;
  onPerPage: (perPage: number) => void;
}) {
  const perPageId = useId();
  const { currentPage, lastPage, total, startIndex, endIndex } = pageData;
  return (
    <nav className="pager" aria-label="Pages">
      <p className="pager__summary" aria-live="polite">
        {total === 0 ? 'No models' : `${startIndex + 1}–${endIndex} of ${total} ${total === 1 ? 'model' : 'models'}`}
      </p>
      <div className="pager__controls">
        <button type="button" className="button button--small" disabled={currentPage <= 1} onClick={() => onPage(currentPage - 1)}>
          Previous
        </button>
        <span className="pager__page">
          Page {currentPage} of {lastPage}
        </span>
        <button type="button" className="button button--small" disabled={currentPage >= lastPage} onClick={() => onPage(currentPage + 1)}>
          Next
        </button>
        <label htmlFor={perPageId} className="pager__per-page">
          Per page
        </label>
        <select id={perPageId} value={perPage} onChange={(event) => onPerPage(Number(event.target.value))}>
          {perPageChoices.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
    </nav>
  );
}
