import { useMemo, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useFolderTree } from '../../api/folders';
import { useKeptViewerUrl, useModels } from '../../api/models';
import { filterBuilder, formatFilter } from '../../contract/filter';
import { upAxisOf, type Model } from '../../contract/models';
import { convertLength, difference, formatLength, formatNumber, formatSize, useDisplayUnit, type DisplayUnit } from '../../ui/lengths';
import { PageHeader } from '../../ui/page-header';
import { safeImageUrl } from '../../ui/safe-url';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { ModelPreviewCard, PreviewGrid } from '../../viewer/model-preview-card';
import { SharedCanvasProvider } from '../../viewer/shared-canvas';
import { stateLabel } from '../../ui/model-state';
import { COMPARE_SET_MAX, removeFromCompareSet, setCompareSet, useCompareSet } from '../../ui/compare-set';
import './compare-set-page.css';
import { paths } from '../../ui/paths';

function SetCard({ model, folderPath, onRemove }: { model: Model; folderPath: string; onRemove: () => void }) {
  const url = useKeptViewerUrl(model, true);
  return (
    <ModelPreviewCard
      testId="compare-set-card"
      url={url}
      label={`3D preview of ${model.name}`}
      up={upAxisOf(model)}
      thumbnailUrl={safeImageUrl(model.thumbnail)}
      title={<Link to={paths.model.href(model.id)}>{model.name}</Link>}
      subtitle={<span title={model.filePath}>{folderPath}</span>}
    >
      <div className="preview-card__meta">
        <button type="button" className="button button--small" onClick={onRemove} aria-label={`Remove ${model.name} from the comparison`}>
          Remove
        </button>
      </div>
    </ModelPreviewCard>
  );
}

interface Row {
  label: string;
  cell: (model: Model) => ReactNode;
  /** A number to compare with the first model's, in the first model's terms. */
  measure?: (model: Model) => number | null | undefined;
}

/** A model's length (area, volume) in millimetres, so that models in other units compare. */
const inMm = (model: Model, value: number, power: 1 | 2 | 3 = 1) => convertLength(value, model.facts?.units, 'mm', power);

function rowsFor(display: DisplayUnit, folderPaths: ReadonlyMap<number, string>): Row[] {
  const facts = (m: Model) => m.facts;
  const extent = (m: Model, axis: number) => {
    const box = m.facts?.boundingBox;
    return box ? inMm(m, (box.max[axis] ?? 0) - (box.min[axis] ?? 0)) : null;
  };
  return [
    { label: 'File type', cell: (m) => `${m.fileType.toUpperCase()}${m.isAssembly ? ' assembly' : ''}` },
    { label: 'Folder', cell: (m) => folderPaths.get(m.folderId) ?? `Folder ${m.folderId}` },
    { label: 'State', cell: (m) => stateLabel(m.state) },
    {
      label: 'Size (bounding box)',
      cell: (m) =>
        m.facts
          ? formatSize(
              m.facts.boundingBox.max.map((v, i) => v - (m.facts!.boundingBox.min[i] ?? 0)),
              m.facts.units,
              display,
            )
          : '—',
    },
    {
      label: 'Length (X)',
      cell: (m) => (extent(m, 0) === null ? '—' : formatLength(extent(m, 0)!, 'mm', display)),
      measure: (m) => extent(m, 0),
    },
    {
      label: 'Width (Y)',
      cell: (m) => (extent(m, 1) === null ? '—' : formatLength(extent(m, 1)!, 'mm', display)),
      measure: (m) => extent(m, 1),
    },
    {
      label: 'Height (Z)',
      cell: (m) => (extent(m, 2) === null ? '—' : formatLength(extent(m, 2)!, 'mm', display)),
      measure: (m) => extent(m, 2),
    },
    {
      label: 'Surface area',
      cell: (m) => (facts(m) ? formatLength(facts(m)!.surfaceArea, facts(m)!.units, display, 2) : '—'),
      measure: (m) => (m.facts ? inMm(m, m.facts.surfaceArea, 2) : null),
    },
    {
      label: 'Volume',
      cell: (m) => (facts(m)?.volume != null ? formatLength(facts(m)!.volume!, facts(m)!.units, display, 3) : '—'),
      measure: (m) => (m.facts?.volume != null ? inMm(m, m.facts.volume, 3) : null),
    },
    { label: 'Triangles', cell: (m) => (m.facts ? formatNumber(m.facts.triangles) : '—'), measure: (m) => m.facts?.triangles },
    { label: 'Shells', cell: (m) => (m.facts ? formatNumber(m.facts.shells) : '—') },
    { label: 'Created', cell: (m) => new Date(m.createdAt).toLocaleDateString() },
  ];
}

/**
 * Up to four models picked anywhere in the app, side by side: 3D previews on one shared canvas
 * and their facts in one table, each measure also as a difference from the first model.
 */
export function CompareSetPage() {
  const [params, setParams] = useSearchParams();
  const picked = useCompareSet();
  const fromLink = params.get('ids');
  const ids = useMemo(
    () => (fromLink === null ? picked.map((p) => p.id) : [...new Set(fromLink.split(',').filter(Boolean))].slice(0, COMPARE_SET_MAX)),
    [fromLink, picked],
  );
  const list = useModels(
    { filter: ids.length > 0 ? formatFilter([filterBuilder.in('id', ids)]) : undefined, perPage: COMPARE_SET_MAX },
    { enabled: ids.length > 0 },
  );
  const folders = useFolderTree();
  const folderPaths = useMemo(() => new Map((folders.data ?? []).map((f) => [f.id, f.path])), [folders.data]);
  const display = useDisplayUnit();
  const models = useMemo(() => {
    const byId = new Map((list.data?.models ?? []).map((m) => [m.id, m]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }, [list.data, ids]);
  const gone = list.data && !list.isPlaceholderData ? ids.length - models.length : 0;

  const remove = (id: string) => {
    removeFromCompareSet(id);
    const rest = ids.filter((i) => i !== id);
    setParams(rest.length > 0 ? { ids: rest.join(',') } : {}, { replace: true, preventScrollReset: true });
  };
  const keep = () => setCompareSet(models.map((m) => ({ id: m.id, name: m.name })));
  const keptHere = picked.length === models.length && models.every((m, i) => picked[i]?.id === m.id);

  let body: ReactNode;
  if (ids.length === 0) {
    body = (
      <EmptyState title="No models to compare yet">
        Use <strong>Add to comparison</strong> on a model’s page, or select models in a folder and choose <strong>Compare selected</strong>.
        Up to {COMPARE_SET_MAX} models can be compared at once.
      </EmptyState>
    );
  } else if (list.isPending) {
    body = <LoadingState label="Loading the models…" />;
  } else if (list.isError) {
    body = <ErrorState title="The models could not be loaded" message={errorMessage(list.error)} onRetry={() => void list.refetch()} />;
  } else {
    const rows = rowsFor(display, folderPaths);
    const [first] = models;
    body = (
      <>
        {gone > 0 && (
          <div className="warning" role="note">
            {gone === 1 ? 'One model of this comparison no longer exists' : `${gone} models of this comparison no longer exist`} (deleted,
            or not visible to you).
          </div>
        )}
        <SharedCanvasProvider>
          <PreviewGrid variant="row">
            {models.map((m) => (
              <SetCard key={m.id} model={m} folderPath={folderPaths.get(m.folderId) ?? ''} onRemove={() => remove(m.id)} />
            ))}
          </PreviewGrid>
        </SharedCanvasProvider>
        <div className="table-wrap">
          <table className="table compare-set-table">
            <caption className="visually-hidden">Facts of the compared models; differences are from {first?.name}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Fact</span>
                </th>
                {models.map((m) => (
                  <th key={m.id} scope="col">
                    {m.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  {models.map((m, i) => (
                    <td key={m.id} data-label={m.name}>
                      {row.cell(m)}
                      {row.measure && i > 0 && first && (
                        <span className="compare-set-table__diff"> ({difference(row.measure(first), row.measure(m))})</span>
                      )}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {models.length >= 2 && first && (
          <nav className="compare-set__pairs" aria-label="Compare two of them in 3D">
            {models.slice(1).map((m) => (
              <Link key={m.id} className="button button--small" to={paths.compare.href(first.id, m.id, { kind: 'part-to-part' })}>
                {first.name} with {m.name} in detail
              </Link>
            ))}
          </nav>
        )}
      </>
    );
  }

  return (
    <div className="page compare-set">
      <PageHeader title="Compare models">
        <p className="muted">
          {models.length > 0 ? `${models.length} of at most ${COMPARE_SET_MAX} models` : `At most ${COMPARE_SET_MAX} models`}; differences
          are from the first.
          {fromLink === null || keptHere ? null : (
            <>
              {' '}
              This link’s models; <Link to={paths.compareSet.href(picked.map((p) => p.id))}>your comparison</Link> has {picked.length}.{' '}
              <button type="button" className="button button--small" onClick={keep}>
                Make these my comparison
              </button>
            </>
          )}
        </p>
      </PageHeader>
      {body}
    </div>
  );
}
