import { useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useFolder, useFolderTree } from '../../api/folders';
import { fetchAllMatches, isNotReady, useMatchCounts, useMatches } from '../../api/matches';
import { useMetadataKeys } from '../../api/metadata-keys';
import { useModel } from '../../api/models';
import { isMatchKind, matchKinds, type MatchKind } from '../../contract/matches';
import { isSettled, searchableStates, type Model } from '../../contract/models';
import type { MatchOrderField } from '../../contract/order';
import { ErrorState, LoadingState, RecordPageState } from '../../ui/states';
import { PreviewGrid } from '../../viewer/model-preview-card';
import { SharedCanvasProvider } from '../../viewer/shared-canvas';
import { MatchCard, QueryModelCard } from './match-card';
import { MatchTable } from './match-table';
import { csvFileName, matchesCsv, metadataColumns } from './matches-csv';
import { formatMatchState, matchListParams, parseMatchState, searchForKind, type MatchPageState } from './match-state';
import { directionTitles, kindTitles } from './kind-titles';
import { stateLabel } from '../../ui/model-state';
import { ThresholdSlider } from '../../ui/threshold-slider';
import './matches.css';
import { PageHeader } from '../../ui/page-header';
import { FolderOptions } from '../../ui/folder-options';
import { paths } from '../../ui/paths';
import { saveFile } from '../../ui/save-file';
import { ScoreLegend } from '../../ui/score-legend';
import { Pager } from '../../ui/pager';

const kindHints: Record<MatchKind, string> = {
  'part-in-part':
    'Assemblies that use this model and parts in it. With both listed, the threshold applies to the larger share; each list applies it to its own.',
  'part-to-part':
    'Models with the same shape, whatever their position, rotation, units or file format. Mirror images and scaled copies are marked and score below 98.',
  'geo-related': 'Models of similar overall dimensions, proportions and topology, regardless of detail.',
};

function KindTabs({
  modelId,
  kind,
  state,
  counts,
}: {
  modelId: string;
  kind: MatchKind;
  state: MatchPageState;
  counts: ReturnType<typeof useMatchCounts>;
}) {
  return (
    <nav className="match-tabs" aria-label="Kind of match">
      {matchKinds.map((k) => {
        const count = counts[k];
        const text = count.data !== undefined ? String(count.data) : count.isError ? '–' : '…';
        return (
          <Link
            key={k}
            to={paths.matches.href(modelId, k, searchForKind(k, state))}
            className={`match-tabs__tab${k === kind ? ' match-tabs__tab--active' : ''}`}
            aria-current={k === kind ? 'page' : undefined}
            data-testid={`tab-${k}`}
          >
            {kindTitles[k]}{' '}
            <span className="match-tabs__count" data-testid={`count-${k}`}>
              {text}
            </span>
          </Link>
        );
      })}
    </nav>
  );
}

function NotReady({ model }: { model: Model }) {
  const working = !isSettled(model.state);
  return (
    <div className={working ? 'state' : 'state state--error'} role="status" aria-live="polite" data-testid="matches-not-ready">
      {working && <span className="spinner" aria-hidden="true" />}
      <div>
        <p className="state__title">
          {working
            ? `This model is not ready for matching yet (${stateLabel(model.state)})`
            : `This model cannot be matched (${stateLabel(model.state)})`}
        </p>
        <p>
          {working
            ? 'Matches appear here as soon as its processing has finished. This page updates by itself.'
            : (model.stateReason ?? 'Its geometry could not be read, so there is nothing to compare it with.')}
        </p>
      </div>
    </div>
  );
}

function MatchResults({ model, kind }: { model: Model; kind: MatchKind }) {
  const [search, setSearch] = useSearchParams();
  const state = useMemo(() => parseMatchState(kind, search), [kind, search]);
  const update = (patch: Partial<MatchPageState>, options: { resetPage?: boolean } = {}) => {
    const next = { ...state, ...patch, ...(options.resetPage ? { page: 1 } : {}) };
    // A new page of results starts at the top; a changed setting keeps the reader where they are.
    setSearch(formatMatchState(kind, next), { replace: true, preventScrollReset: patch.page === undefined });
  };
  const params = matchListParams(kind, state);
  const matches = useMatches(model.id, kind, params);
  const counts = useMatchCounts(model.id, state.thresholds, params.filter);
  const folders = useFolderTree();
  const metadataKeys = useMetadataKeys();
  const [exporting, setExporting] = useState<string | null>(null);

  const folderPaths = useMemo(() => new Map((folders.data ?? []).map((f) => [f.id, f.path])), [folders.data]);
  const keyNames = useMemo(() => new Map((metadataKeys.data ?? []).map((k) => [k.id, k.name])), [metadataKeys.data]);
  const rows = matches.data?.matches ?? [];
  const columns = metadataColumns(rows, keyNames);
  const threshold = state.thresholds[kind];

  const onSort = (field: MatchOrderField) => {
    const same = state.sort === field;
    update(
      { sort: field, sortDirection: same && state.sortDirection === 'desc' ? 'asc' : same ? 'desc' : field === 'name' ? 'asc' : 'desc' },
      { resetPage: true },
    );
  };

  const exportCsv = async () => {
    setExporting('Preparing the CSV…');
    try {
      const all = await fetchAllMatches(model.id, kind, { threshold, filter: params.filter, order: params.order });
      const csv = matchesCsv(all.matches, {
        kind,
        folderPaths,
        metadataKeys: metadataColumns(all.matches, keyNames),
        origin: window.location.origin,
      });
      saveFile(csvFileName(model.name, kind, threshold), csv);
      setExporting(all.matchCount > all.matches.length ? `Exported the first ${all.matches.length} of ${all.matchCount} matches.` : null);
    } catch (error) {
      setExporting(`The export failed: ${errorMessage(error)}`);
    }
  };

  const pageData = matches.data?.pageData;
  const waiting = isNotReady(matches.error);

  return (
    <>
      <KindTabs modelId={model.id} kind={kind} state={state} counts={counts} />
      <div className="match-hint">
        <p className="muted">{kindHints[kind]}</p>
        <ScoreLegend />
      </div>

      <div className="match-toolbar">
        <ThresholdSliderFor
          kind={kind}
          value={threshold}
          onCommit={(value) => update({ thresholds: { ...state.thresholds, [kind]: value } }, { resetPage: true })}
        />
        {kind === 'part-in-part' && (
          <fieldset className="segmented">
            <legend className="visually-hidden">Which models</legend>
            {([null, 'contains', 'contained'] as const).map((d) => (
              <label key={d ?? 'both'} className={`segmented__option${state.direction === d ? ' segmented__option--active' : ''}`}>
                <input
                  type="radio"
                  name="direction"
                  value={d ?? ''}
                  checked={state.direction === d}
                  onChange={() => update({ direction: d, sort: null }, { resetPage: true })}
                />
                {d ? directionTitles[d] : 'Both'}
              </label>
            ))}
          </fieldset>
        )}
        <div className="control">
          <label htmlFor="match-folder">Folder</label>
          <select
            id="match-folder"
            value={state.folderId ?? ''}
            onChange={(e) => update({ folderId: e.target.value ? Number(e.target.value) : null }, { resetPage: true })}
          >
            <option value="">All folders</option>
            <FolderOptions folders={folders.data} />
          </select>
        </div>
        <MetadataFilter
          keys={metadataKeys.data ?? []}
          keyId={state.metadataKeyId}
          value={state.metadataValue}
          onChange={(metadataKeyId, metadataValue) => update({ metadataKeyId, metadataValue }, { resetPage: true })}
        />
        <div className="control">
          <label htmlFor="match-order">Order</label>
          <select
            id="match-order"
            value={state.sort ? `${state.sortDirection === 'desc' ? '-' : ''}${state.sort}` : ''}
            onChange={(e) => {
              const v = e.target.value;
              update(
                v ? { sort: v.replace(/^-/, '') as MatchOrderField, sortDirection: v.startsWith('-') ? 'desc' : 'asc' } : { sort: null },
                { resetPage: true },
              );
            }}
          >
            <option value="">Best score first</option>
            <option value="name">Name (A–Z)</option>
            <option value="-name">Name (Z–A)</option>
            <option value="-createdAt">Newest first</option>
            <option value="createdAt">Oldest first</option>
            {kind === 'part-in-part' ? (
              <>
                <option value="-forwardMatchPercentage">“Contains” score, high first</option>
                <option value="-reverseMatchPercentage">“Contained” score, high first</option>
              </>
            ) : (
              <option value="matchPercentage">Lowest score first</option>
            )}
          </select>
        </div>
        <div className="match-toolbar__end">
          <div className="segmented" role="group" aria-label="Layout">
            <button
              type="button"
              className={`segmented__option${state.view === 'grid' ? ' segmented__option--active' : ''}`}
              aria-pressed={state.view === 'grid'}
              onClick={() => update({ view: 'grid' })}
            >
              Cards
            </button>
            <button
              type="button"
              className={`segmented__option${state.view === 'table' ? ' segmented__option--active' : ''}`}
              aria-pressed={state.view === 'table'}
              onClick={() => update({ view: 'table' })}
            >
              Table
            </button>
          </div>
          <button
            type="button"
            className="button"
            onClick={() => void exportCsv()}
            disabled={!matches.data || matches.data.matchCount === 0 || exporting === 'Preparing the CSV…'}
          >
            Export CSV
          </button>
        </div>
      </div>
      {exporting && exporting !== 'Preparing the CSV…' && (
        <p className="muted" role="status">
          {exporting}
        </p>
      )}

      <div className="match-summary" aria-live="polite">
        {matches.data && (
          <p data-testid="match-count" aria-busy={matches.isPlaceholderData}>
            {matches.isPlaceholderData ? (
              // The previous list stays on screen; its count is not claimed for the new settings.
              <span className="muted">Updating the list for {params.threshold}%…</span>
            ) : (
              <>
                <strong>{matches.data.matchCount}</strong> {matches.data.matchCount === 1 ? 'match' : 'matches'} at {params.threshold}% or
                more
              </>
            )}
          </p>
        )}
      </div>

      {waiting ? (
        <div className="state" role="status">
          <span className="spinner" aria-hidden="true" />
          <div>
            <p className="state__title">Not ready for matching yet</p>
            <p>{errorMessage(matches.error)}</p>
            <p className="muted">This page asks again by itself.</p>
          </div>
        </div>
      ) : matches.isPending ? (
        <LoadingState label="Looking for matches…" />
      ) : matches.isError && !matches.data ? (
        <ErrorState title="Matches could not be loaded" message={errorMessage(matches.error)} onRetry={() => void matches.refetch()} />
      ) : rows.length === 0 ? (
        <div className="state state--empty" data-testid="no-matches">
          <p className="state__title">No matches at {threshold}% or more</p>
          <p>Lower the threshold, or clear the filters, to see more.</p>
        </div>
      ) : state.view === 'table' ? (
        <MatchTable
          queryId={model.id}
          kind={kind}
          matches={rows}
          folderPaths={folderPaths}
          metadataColumns={columns}
          stateLabel={stateLabel}
          direction={state.direction}
          sort={state.sort}
          sortDirection={state.sortDirection}
          onSort={onSort}
        />
      ) : (
        <PreviewGrid>
          {rows.map((match) => (
            <MatchCard
              key={match.matchedModel.id}
              queryId={model.id}
              kind={kind}
              match={match}
              folderPath={folderPaths.get(match.matchedModel.folderId) ?? `Folder ${match.matchedModel.folderId}`}
              direction={state.direction}
              stateLabel={stateLabel(match.matchedModel.state)}
            />
          ))}
        </PreviewGrid>
      )}

      {pageData && <Pager pageData={pageData} onPage={(page) => update({ page })} />}
    </>
  );
}

function ThresholdSliderFor({ kind, value, onCommit }: { kind: MatchKind; value: number; onCommit: (value: number) => void }) {
  // Keyed by kind: each tab has its own slider state.
  return (
    <ThresholdSlider
      key={kind}
      label={`${kindTitles[kind]} threshold`}
      value={value}
      onCommit={onCommit}
      hint="Only matches scoring at least this much are listed."
    />
  );
}

function MetadataFilter({
  keys,
  keyId,
  value,
  onChange,
}: {
  keys: readonly { id: number; name: string }[];
  keyId: number | null;
  value: string;
  onChange: (keyId: number | null, value: string) => void;
}) {
  const [draftKey, setDraftKey] = useState<number | null>(keyId);
  const [draft, setDraft] = useState(value);
  if (keys.length === 0) return null;
  return (
    <form
      className="control metadata-filter"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(draft.trim() ? draftKey : null, draft.trim());
      }}
    >
      <label htmlFor="match-meta-key">Metadata</label>
      <select id="match-meta-key" value={draftKey ?? ''} onChange={(e) => setDraftKey(e.target.value ? Number(e.target.value) : null)}>
        <option value="">Key…</option>
        {keys.map((k) => (
          <option key={k.id} value={k.id}>
            {k.name}
          </option>
        ))}
      </select>
      <input
        aria-label="Metadata value starts with"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        placeholder="Value"
        disabled={draftKey === null}
      />
      <button type="submit" className="button button--small" disabled={draftKey === null}>
        Apply
      </button>
    </form>
  );
}

/** /models/:modelId/matches/:kind — the model's matches of one kind. */
export function MatchesPage() {
  const { modelId = '', kind: kindParam = '' } = useParams();
  const model = useModel(modelId);
  const folder = useFolder(model.data?.folderId ?? null);
  if (!isMatchKind(kindParam)) return null; // the route's loader answers 404 first
  const kind = kindParam;

  if (!model.data) return <RecordPageState query={model} noun="model" />;
  const m = model.data;
  const folderPath = folder.data?.path ?? `Folder ${m.folderId}`;
  const searchable = (searchableStates as readonly string[]).includes(m.state);
  return (
    // The canvas starts (and compiles its shaders) while the matches are still being asked for.
    <SharedCanvasProvider>
      <div className="page matches-page">
        <PageHeader
          trail={[
            { label: 'All folders', to: paths.folders.href() },
            { label: folderPath, to: paths.folder.href(m.folderId) },
            { label: m.name, to: paths.model.href(m.id) },
          ]}
          title={<>Matches of {m.name}</>}
        />
        <div className="matches-layout">
          <aside className="matches-layout__query" aria-label="The model these matches are of">
            <QueryModelCard model={m} folderPath={folderPath} />
          </aside>
          <div className="matches-layout__results">{searchable ? <MatchResults model={m} kind={kind} /> : <NotReady model={m} />}</div>
        </div>
      </div>
    </SharedCanvasProvider>
  );
}
