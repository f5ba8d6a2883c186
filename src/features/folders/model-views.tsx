import { useState } from 'react';
import { Link } from 'react-router';
import { RelativeTime } from '../../ui/relative-time';
import type { Model } from '../../contract/models';
import { fileTypeLabel, StateBadge } from '../../ui/model-state';
import { safeImageUrl } from '../../ui/safe-url';
import { DataTable } from '../../ui/table';
import { paths } from '../../ui/paths';

/** A model's thumbnail, or a plain placeholder when there is none (yet) or it fails to load. */
export function Thumbnail({ model, className = 'thumb' }: { model: Model; className?: string }) {
  const url = safeImageUrl(model.thumbnail);
  const [failed, setFailed] = useState<string | null>(null);
  if (!url || failed === url) {
    return (
      <div className={`${className} ${className}--placeholder`} aria-hidden="true">
        <span>{fileTypeLabel(model.fileType)}</span>
      </div>
    );
  }
  return <img className={className} src={url} alt="" loading="lazy" decoding="async" onError={() => setFailed(url)} />;
}

/** Models picked for an action on several at once (editors only). */
export interface ModelSelection {
  selected: ReadonlySet<string>;
  toggle: (id: string) => void;
}

function SelectBox({ model, selection }: { model: Model; selection: ModelSelection }) {
  return (
    <input
      type="checkbox"
      className="select-box"
      aria-label={`Select ${model.name}`}
      checked={selection.selected.has(model.id)}
      onChange={() => selection.toggle(model.id)}
    />
  );
}

export function ModelGrid({ models, selection }: { models: readonly Model[]; selection?: ModelSelection }) {
  return (
    <ul className="model-grid" aria-label="Models">
      {models.map((model) => (
        <li key={model.id} data-testid="model-card" className={selection?.selected.has(model.id) ? 'is-selected' : undefined}>
          {selection && <SelectBox model={model} selection={selection} />}
          <Link to={paths.model.href(model.id)} className="model-card">
            <Thumbnail model={model} />
            <span className="model-card__name">{model.name}</span>
            <span className="model-card__meta">
              <span className="model-card__type">{fileTypeLabel(model.fileType)}</span>
              {model.isAssembly && <span className="model-card__type">Assembly</span>}
              <StateBadge state={model.state} />
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function ModelTable({ models, selection }: { models: readonly Model[]; selection?: ModelSelection }) {
  return (
    <DataTable caption="Models" columns={selection ? ['Select', 'Name', 'Type', 'State', 'Created'] : ['Name', 'Type', 'State', 'Created']}>
      {models.map((model) => (
        <tr key={model.id} data-testid="model-row">
          {selection && (
            <td data-label="Select">
              <SelectBox model={model} selection={selection} />
            </td>
          )}
          <td data-label="Name" className="table__name">
            <Link to={paths.model.href(model.id)}>{model.name}</Link>
          </td>
          <td data-label="Type">
            {fileTypeLabel(model.fileType)}
            {model.isAssembly && <span className="muted"> · assembly</span>}
          </td>
          <td data-label="State">
            <StateBadge state={model.state} />
          </td>
          <td data-label="Created">
            <RelativeTime value={model.createdAt} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function ModelGridSkeleton({ count }: { count: number }) {
  return (
    <ul className="model-grid" aria-hidden="true">
      {Array.from({ length: count }, (_, i) => (
        <li key={i}>
          <div className="model-card model-card--skeleton">
            <div className="thumb skeleton" />
            <span className="skeleton skeleton--line" />
            <span className="skeleton skeleton--line skeleton--short" />
          </div>
        </li>
      ))}
    </ul>
  );
}

export function ModelTableSkeleton({ rows }: { rows: number }) {
  return (
    <div className="skeleton-table" aria-hidden="true">
      {Array.from({ length: rows }, (_, i) => (
        <span key={i} className="skeleton skeleton--row" />
      ))}
    </div>
  );
}
