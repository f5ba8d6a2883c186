import { useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useFolder } from '../../api/folders';
import { useFolderDuplicates } from '../../api/matches';
import { useKeptViewerFile } from '../../api/models';
import type { DuplicateCluster, RelationLink } from '../../contract/matches';
import { upAxisOf, type Model } from '../../contract/models';
import { ErrorState, LoadingState } from '../../ui/states';
import { ModelPreviewCard, PreviewGrid } from '../../viewer/model-preview-card';
import { SharedCanvasProvider } from '../../viewer/shared-canvas';
import { safeImageUrl } from '../../ui/safe-url';
import './folders.css';
import { PageHeader } from '../../ui/page-header';
import { ThresholdSlider } from '../../ui/threshold-slider';
import { RelationList } from '../../ui/relation-list';
import { paths } from '../../ui/paths';
import { defaultThresholds } from '../../contract/score-scale';
import { ScoreLegend } from '../../ui/score-legend';
import { AddedDuplicatesSection, defaultSince } from './added-duplicates-section';

export const defaultDuplicateThreshold = defaultThresholds.duplicates;

export function readThreshold(raw: string | null): number {
  const n = Number(raw);
  return raw !== null && raw.trim() !== '' && Number.isFinite(n) ? Math.min(100, Math.max(0, Math.round(n))) : defaultDuplicateThreshold;
}

function DuplicateCard({ model, anchor, score }: { model: Model; anchor: Model; score: number | null }) {
  const [near, setNear] = useState(false);
  const url = useKeptViewerFile(model, near);
  const isAnchor = model.id === anchor.id;
  return (
    <ModelPreviewCard
      testId="duplicate-card"
      url={url}
      label={`3D preview of ${model.name}`}
      up={upAxisOf(model)}
      thumbnailUrl={safeImageUrl(model.thumbnail)}
      onNearViewport={() => setNear(true)}
      title={<Link to={paths.model.href(model.id)}>{model.name}</Link>}
      subtitle={<span title={model.filePath}>{model.filePath}</span>}
    >
      <div className="preview-card__meta">
        {isAnchor ? (
          <span className="muted">First of the group</span>
        ) : (
          <>
            <span>{score !== null ? `${Math.round(score * 10) / 10}% like the first` : 'Linked through another member'}</span>
            <Link
              className="button button--small"
              to={paths.compare.href(anchor.id, model.id, { kind: 'part-to-part' })}
              aria-label={`Compare ${model.name} with ${anchor.name}`}
            >
              Compare
            </Link>
          </>
        )}
      </div>
    </ModelPreviewCard>
  );
}

function ClusterRow({
  cluster,
  index,
  relations,
  models,
}: {
  cluster: DuplicateCluster;
  index: number;
  relations: readonly RelationLink[];
  models: ReadonlyMap<string, Model>;
}) {
  const anchor = cluster.models[0]!;
  const scoreWith = (id: string) => {
    const link = cluster.links.find((l) => (l.a === anchor.id && l.b === id) || (l.b === anchor.id && l.a === id));
    return link ? link.matchPercentage : null;
  };
  return (
    <section className="card" style={{ marginTop: '1rem' }} data-testid="duplicate-cluster" aria-labelledby={`cluster-${index}`}>
      <h2 id={`cluster-${index}`} className="card__title">
        Group {index + 1}: {cluster.models.length} models
      </h2>
      <PreviewGrid variant="row">
        {cluster.models.map((m) => (
          <DuplicateCard key={m.id} model={m} anchor={anchor} score={scoreWith(m.id)} />
        ))}
      </PreviewGrid>
      <RelationList
        links={relations}
        models={models}
        label="Beside this group, not duplicates: mirror images and scaled copies of its members"
      />
    </section>
  );
}

/** /folders/:folderId/duplicates — the folder's models grouped by part-to-part score: a clean-up list. */
export function DuplicatesPage() {
  const folderId = Number(useParams().folderId);
  const [search, setSearch] = useSearchParams();
  const threshold = readThreshold(search.get('threshold'));
  // Duplicates usually sit in different subfolders of a project: included unless turned off.
  const withSubfolders = search.get('subfolders') !== '0';
  const folder = useFolder(Number.isInteger(folderId) ? folderId : null);
  const duplicates = useFolderDuplicates(folderId, threshold, withSubfolders);
  // "Added as duplicates since": the time the address names (the upload page links with its batch's), else a week back.
  const [weekBack] = useState(defaultSince);
  const askedSince = search.get('since');
  const since = askedSince && !Number.isNaN(Date.parse(askedSince)) ? new Date(askedSince).toISOString() : weekBack;
  const setView = (change: { threshold?: number; subfolders?: boolean; since?: string }) => {
    const next = new URLSearchParams(search);
    if (change.since !== undefined) next.set('since', change.since);
    if (change.threshold !== undefined) next.set('threshold', String(change.threshold));
    if (change.subfolders !== undefined) {
      if (change.subfolders) next.delete('subfolders');
      else next.set('subfolders', '0');
    }
    setSearch(next, { replace: true, preventScrollReset: true });
  };

  const data = duplicates.data;
  // Mirror images and scaled copies: beside the group of either model, or on their own.
  const { models, byCluster, loose } = useMemo(() => {
    const models = new Map<string, Model>(
      [...(data?.relatedModels ?? []), ...(data?.clusters.flatMap((c) => c.models) ?? [])].map((m) => [m.id, m]),
    );
    const clusterOf = new Map<string, number>();
    data?.clusters.forEach((c, i) => c.models.forEach((m) => clusterOf.set(m.id, i)));
    const byCluster = new Map<number, RelationLink[]>();
    const loose: RelationLink[] = [];
    for (const link of data?.relations ?? []) {
      const i = clusterOf.get(link.a) ?? clusterOf.get(link.b);
      if (i === undefined) loose.push(link);
      else byCluster.set(i, [...(byCluster.get(i) ?? []), link]);
    }
    return { models, byCluster, loose };
  }, [data]);
  return (
    <SharedCanvasProvider>
      <div className="page duplicates-page">
        <PageHeader
          trail={[
            { label: 'All folders', to: paths.folders.href() },
            { label: folder.data?.path ?? `Folder ${folderId}`, to: paths.folder.href(folderId) },
          ]}
          title={
            <>
              Duplicates in {folder.data?.name ?? 'this folder'}
              {withSubfolders ? ' and its subfolders' : ''}
            </>
          }
        >
          <p className="lead">
            Models whose whole shape matches at or above the threshold, grouped. Open “Compare” to see exactly where two differ. To decide
            which to keep and move, tag or delete the others,{' '}
            <Link to={paths.reviews.href(folderId)}>start a clean-up review of this folder</Link>.
          </p>
        </PageHeader>
        {Number.isInteger(folderId) && (
          <AddedDuplicatesSection folderId={folderId} since={since} onSince={(iso) => setView({ since: iso })} />
        )}
        <div className="duplicates__controls">
          <ThresholdSlider label="Part-to-part threshold" value={threshold} onCommit={(value) => setView({ threshold: value })} />
          <label className="check">
            <input type="checkbox" checked={withSubfolders} onChange={(event) => setView({ subfolders: event.target.checked })} />
            Include subfolders
          </label>
          <ScoreLegend />
        </div>
        {data && (
          <p data-testid="duplicate-summary" aria-live="polite">
            {data.clusters.length === 0
              ? `No duplicates among ${data.modelCount} ready models at ${data.threshold}% or more.`
              : `${data.clusters.length} ${data.clusters.length === 1 ? 'group' : 'groups'} (${data.clusters.reduce((n, c) => n + c.models.length, 0)} models) among ${data.modelCount} ready models at ${data.threshold}% or more.`}
            {duplicates.isPlaceholderData && <span className="muted"> · updating…</span>}
          </p>
        )}
        {duplicates.isPending ? (
          <LoadingState label="Comparing the folder's models…" />
        ) : duplicates.isError && !data ? (
          <ErrorState
            title="Duplicates could not be found"
            message={errorMessage(duplicates.error)}
            onRetry={() => void duplicates.refetch()}
          />
        ) : (
          <>
            {data?.clusters.map((cluster, i) => (
              <ClusterRow
                key={cluster.models.map((m) => m.id).join(',')}
                cluster={cluster}
                index={i}
                relations={byCluster.get(i) ?? []}
                models={models}
              />
            ))}
            {loose.length > 0 && (
              <section className="card" style={{ marginTop: '1rem' }} aria-label="Mirror images and scaled copies">
                <RelationList links={loose} models={models} label="Mirror images and scaled copies (not duplicates)" />
              </section>
            )}
          </>
        )}
      </div>
    </SharedCanvasProvider>
  );
}
