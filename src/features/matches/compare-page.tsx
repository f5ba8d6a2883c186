import { useCallback, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { fetchDeviationReport, useMatches } from '../../api/matches';
import { filterBuilder, formatFilter } from '../../contract/filter';
import { defaultMatchThreshold, type MatchKind } from '../../contract/matches';
import { relationLabel } from './match-card';
import { compareHref } from './match-links';
import { errorMessage } from '../../api/client';
import { useModel, useViewerFile } from '../../api/models';
import { searchableStates, upAxisOf, type Model } from '../../contract/models';
import { ErrorState, LoadingState } from '../../ui/states';
import { CompareView } from '../../viewer/compare-view';
import { deviationLegend, scaleMaxFor } from '../../viewer/deviation';
import { UnitSwitch } from '../../ui/unit-switch';
import { convertLength, difference, formatLength, formatNumber, formatSize, useDisplayUnit } from '../../ui/lengths';
import { SharedCanvasProvider } from '../../viewer/shared-canvas';
import { defaultTolerance, distance, formatCompareState, parseCompareState, toleranceMax, type CompareState } from './compare-state';
import { kindTitles, shareLabels } from './kind-titles';
import { stateLabel } from '../../ui/model-state';
import './matches.css';
import { PageHeader } from '../../ui/page-header';
import { paths } from '../../ui/paths';
import { DownloadButton } from '../../ui/download-button';

function diagonalOf(model: Model): number {
  const box = model.facts?.boundingBox;
  if (!box) return 0;
  return Math.hypot(...box.max.map((m, i) => m - (box.min[i] ?? 0)));
}

/** One pair's match record (threshold 0, filtered to the match): its score and any placement. */
function usePairMatch(query: Model, match: Model, kind: MatchKind) {
  return useMatches(query.id, kind, { threshold: 0, perPage: 1, filter: formatFilter([filterBuilder.eq('id', match.id)]) });
}

/**
 * The pair as the match list scores it (asked for this one model at threshold 0, so any pair has
 * an answer): score and relation, Align when the link came without a placement, and the previous
 * and next match of the list at its opening threshold.
 */
function PairBar({
  query,
  match,
  state,
  onAlign,
}: {
  query: Model;
  match: Model;
  state: CompareState;
  onAlign: (transform: number[]) => void;
}) {
  const kind = state.kind ?? 'part-to-part';
  const pair = usePairMatch(query, match, kind);
  const list = useMatches(query.id, kind, { threshold: defaultMatchThreshold, perPage: 100 });
  const found = pair.data?.matches[0];
  const others = list.data?.matches ?? [];
  const at = others.findIndex((m) => m.matchedModel.id === match.id);
  const previous = at > 0 ? others[at - 1] : undefined;
  const next = at >= 0 ? others[at + 1] : undefined;
  const relation = found ? relationLabel(found) : undefined;
  return (
    <div className="pair-bar" data-testid="pair-bar">
      <p className="pair-bar__score" aria-live="polite">
        {pair.isPending ? (
          'Scoring the pair…'
        ) : !found ? (
          `${kindTitles[kind]}: not scored${pair.isError ? ` (${errorMessage(pair.error)})` : ''}`
        ) : 'matchPercentage' in found ? (
          <>
            {kindTitles[kind]} score <strong>{formatNumber(found.matchPercentage)}%</strong>
          </>
        ) : (
          <>
            {shareLabels.forward} <strong>{formatNumber(found.forwardMatchPercentage)}%</strong> · {shareLabels.reverse.toLowerCase()}{' '}
            <strong>{formatNumber(found.reverseMatchPercentage)}%</strong>
          </>
        )}
        {relation && (
          <>
            {' '}
            <span className="badge badge--relation">{relation}</span>
          </>
        )}
      </p>
      {!state.transform && found?.transform && (
        <button type="button" className="button button--small" onClick={() => onAlign(found.transform!)}>
          Align
        </button>
      )}
      {at >= 0 && (
        <nav className="pair-bar__steps" aria-label={`Matches at ${defaultMatchThreshold}% or more`}>
          {previous ? (
            <Link
              className="button button--small"
              to={withView(compareHref(query.id, kind, previous), state)}
              aria-label={`Previous match: ${previous.matchedModel.name}`}
            >
              ← Previous
            </Link>
          ) : (
            <span className="button button--small is-disabled" aria-disabled="true">
              ← Previous
            </span>
          )}
          <span className="muted">
            {at + 1} of {list.data?.matchCount ?? others.length}
          </span>
          {next ? (
            <Link
              className="button button--small"
              to={withView(compareHref(query.id, kind, next), state)}
              aria-label={`Next match: ${next.matchedModel.name}`}
            >
              Next →
            </Link>
          ) : (
            <span className="button button--small is-disabled" aria-disabled="true">
              Next →
            </span>
          )}
        </nav>
      )}
    </div>
  );
}

/** Another pair's link keeping how this one is looked at (layout, X-ray, wireframe). */
function withView(href: string, state: CompareState): string {
  const url = new URL(href, 'http://x');
  if (state.mode === 'overlay') url.searchParams.set('mode', 'overlay');
  if (state.xray) url.searchParams.set('xray', '1');
  if (state.wireframe) url.searchParams.set('wire', '1');
  return `${url.pathname}${url.search}`;
}

function FactsTable({ query, match }: { query: Model; match: Model }) {
  const display = useDisplayUnit();
  const sizes = (m: Model) => {
    const b = m.facts?.boundingBox;
    return b ? b.max.map((max, i) => max - (b.min[i] ?? 0)) : null;
  };
  const inMm = (m: Model, value: number | null | undefined, power: 1 | 2 | 3) =>
    value == null ? null : convertLength(value, m.facts?.units, 'mm', power);
  const rows = (m: Model) => {
    const f = m.facts;
    const size = sizes(m);
    if (!f || !size) return { size: '—', area: '—', volume: '—' };
    return {
      size: formatSize(size, f.units, display),
      area: formatLength(f.surfaceArea, f.units, display, 2),
      volume: f.volume === null ? 'Not closed' : formatLength(f.volume, f.units, display, 3),
    };
  };
  const q = rows(query);
  const m = rows(match);
  const qs = sizes(query);
  const ms = sizes(match);
  const axisDiffs = qs && ms ? qs.map((v, i) => difference(inMm(query, v, 1), inMm(match, ms[i], 1))) : null;
  const sizeDiff = !axisDiffs ? '—' : axisDiffs.every((d) => d === 'Same') ? 'Same' : axisDiffs.join(' × ');
  return (
    <table className="table compare-facts">
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Fact</span>
          </th>
          <th scope="col">{query.name}</th>
          <th scope="col">{match.name}</th>
          <th scope="col">Difference</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">Overall size</th>
          <td data-label={query.name}>{q.size}</td>
          <td data-label={match.name}>{m.size}</td>
          <td data-label="Difference">{sizeDiff}</td>
        </tr>
        <tr>
          <th scope="row">Surface area</th>
          <td data-label={query.name}>{q.area}</td>
          <td data-label={match.name}>{m.area}</td>
          <td data-label="Difference">{difference(inMm(query, query.facts?.surfaceArea, 2), inMm(match, match.facts?.surfaceArea, 2))}</td>
        </tr>
        <tr>
          <th scope="row">Volume</th>
          <td data-label={query.name}>{q.volume}</td>
          <td data-label={match.name}>{m.volume}</td>
          <td data-label="Difference">{difference(inMm(query, query.facts?.volume, 3), inMm(match, match.facts?.volume, 3))}</td>
        </tr>
        <tr>
          <th scope="row">State</th>
          <td data-label={query.name}>{stateLabel(query.state)}</td>
          <td data-label={match.name}>{stateLabel(match.state)}</td>
          <td data-label="Difference">{query.state === match.state ? 'Same' : 'Differs'}</td>
        </tr>
      </tbody>
    </table>
  );
}

function Legend({ tolerance, max, units, withinShare }: { tolerance: number; max: number; units: string; withinShare: number }) {
  const display = useDisplayUnit();
  const length = (value: number) => formatLength(value, units, display);
  const scaleMax = scaleMaxFor(tolerance, max);
  const stops = deviationLegend(tolerance, scaleMax, length);
  const gradient = stops.map((s) => `rgb(${s.color.map((c) => Math.round(c * 255)).join(' ')}) ${(s.at * 100).toFixed(1)}%`).join(', ');
  return (
    <div className="legend" data-testid="deviation-legend">
      <p className="legend__title">Deviation of the query from the match ({display})</p>
      <div className="legend__bar" style={{ background: `linear-gradient(to right, rgb(46 158 84) 0%, ${gradient})` }} aria-hidden="true" />
      <ul className="legend__labels">
        {stops.map((s) => (
          <li key={s.label} style={{ left: `${s.at * 100}%` }}>
            {s.label}
          </li>
        ))}
      </ul>
      <p className="muted">
        {Math.round(withinShare * 1000) / 10}% of the query's surface points lie within the tolerance; largest distance {length(max)}.
      </p>
    </div>
  );
}

/**
 * The pair's deviation report as a PDF (the service measures and draws it): the placement shown,
 * the tolerance in the reader's unit. Without a placement the service uses the pair's own match.
 */
function ReportButton({
  query,
  match,
  transform,
  tolerance,
}: {
  query: Model;
  match: Model;
  transform: number[] | null;
  tolerance: number;
}) {
  const display = useDisplayUnit();
  return (
    <div className="control">
      <DownloadButton
        label="Deviation report (PDF)"
        busyLabel="Making the report…"
        problem="The report could not be made"
        make={async () => ({
          name: `Deviation ${query.name} - ${match.name}.pdf`.replace(/[\\/:*?"<>|]+/g, '-'),
          content: await fetchDeviationReport(query.id, {
            otherId: match.id,
            ...(transform ? { transform } : {}),
            ...(tolerance > 0 ? { tolerance: Number(tolerance.toPrecision(6)) } : {}),
            units: display,
          }),
        })}
      />
    </div>
  );
}

function Comparison({ query, match }: { query: Model; match: Model }) {
  const [search, setSearch] = useSearchParams();
  const state = useMemo(() => parseCompareState(search), [search]);
  const update = (patch: Partial<CompareState>) =>
    setSearch(formatCompareState({ ...state, ...patch }), { replace: true, preventScrollReset: true });
  const queryFile = useViewerFile(query, true);
  const matchFile = useViewerFile(match, true);
  const diagonal = Math.max(diagonalOf(query), diagonalOf(match));
  const tolerance = state.tolerance ?? defaultTolerance(diagonal);
  const units = query.facts?.units ?? match.facts?.units ?? 'unknown';
  const [deviation, setDeviation] = useState<{ max: number; mean: number; withinShare: number; units: string } | null>(null);
  const [points, setPoints] = useState<[number, number, number][]>([]);
  const onMeasure = useCallback((p: [number, number, number][]) => setPoints(p), []);
  const onDeviation = useCallback((d: typeof deviation) => setDeviation(d), []);
  // Urls are kept once known: a re-signed address must not reload the models.
  const [urls, setUrls] = useState<{ query?: string; match?: string }>({});
  if (queryFile.data && !urls.query) setUrls((u) => ({ ...u, query: queryFile.data }));
  if (matchFile.data && !urls.match) setUrls((u) => ({ ...u, match: matchFile.data }));

  // The pair as the list scores it (the same query as the bar above): whether Align is offered.
  const pairPlacement = usePairMatch(query, match, state.kind ?? 'part-to-part').data?.matches[0]?.transform;
  const max = toleranceMax(diagonal);
  const step = Number((max / 200).toPrecision(1));
  const display = useDisplayUnit();

  return (
    <>
      <PairBar query={query} match={match} state={state} onAlign={(transform) => update({ transform, mode: 'overlay' })} />
      <div className="compare-toolbar">
        <div className="segmented" role="group" aria-label="Layout">
          <button
            type="button"
            className={`segmented__option${state.mode === 'side' ? ' segmented__option--active' : ''}`}
            aria-pressed={state.mode === 'side'}
            onClick={() => update({ mode: 'side' })}
          >
            Side by side
          </button>
          <button
            type="button"
            className={`segmented__option${state.mode === 'overlay' ? ' segmented__option--active' : ''}`}
            aria-pressed={state.mode === 'overlay'}
            onClick={() => update({ mode: 'overlay' })}
          >
            Overlay
          </button>
        </div>
        <label className="check">
          <input type="checkbox" checked={state.xray} onChange={(e) => update({ xray: e.target.checked })} /> X-ray
        </label>
        <label className="check">
          <input type="checkbox" checked={state.wireframe} onChange={(e) => update({ wireframe: e.target.checked })} /> Wireframe
        </label>
        <div className="control">
          <label htmlFor="section-axis">Section</label>
          <select
            id="section-axis"
            value={state.section?.axis ?? ''}
            onChange={(e) =>
              update({ section: e.target.value ? { axis: e.target.value as 'x' | 'y' | 'z', at: state.section?.at ?? 50 } : null })
            }
          >
            <option value="">None</option>
            <option value="x">Cut along X</option>
            <option value="y">Cut along Y</option>
            <option value="z">Cut along Z</option>
          </select>
          {state.section && (
            <input
              type="range"
              min={0}
              max={100}
              value={state.section.at}
              aria-label="Section position (percent of the extent)"
              onChange={(e) => update({ section: { axis: state.section!.axis, at: Number(e.target.value) } })}
            />
          )}
        </div>
        <label className="check">
          <input type="checkbox" checked={state.measuring} onChange={(e) => update({ measuring: e.target.checked })} /> Measure
        </label>
      </div>
      {state.mode === 'overlay' && (
        <div className="compare-toolbar">
          <div className="control">
            <label htmlFor="tolerance">Tolerance</label>
            <input
              id="tolerance"
              type="range"
              min={0}
              max={max}
              step={step > 0 ? step : 0.01}
              value={Math.min(tolerance, max)}
              onChange={(e) => update({ tolerance: Number(e.target.value) })}
            />
            <output htmlFor="tolerance" data-testid="tolerance-value">
              {formatLength(tolerance, units, display)}
            </output>
          </div>
          <ReportButton query={query} match={match} transform={state.transform} tolerance={convertLength(tolerance, units, display)} />
          {!state.transform && (
            <p className="warning">
              The models are overlaid as they lie in their files.{' '}
              {pairPlacement
                ? 'Align (above) places this model where the search matched it.'
                : 'The search kept no placement for this pair, so there is nothing to align them by.'}
            </p>
          )}
        </div>
      )}
      {state.measuring && (
        <p className="measure" role="status" data-testid="measurement">
          {points.length === 0
            ? 'Click a point on a model, then a second one.'
            : points.length === 1
              ? 'First point picked; click a second one.'
              : `Distance: ${formatLength(distance(points[0]!, points[1]!), units, display)}`}
        </p>
      )}

      {queryFile.isError || matchFile.isError ? (
        <ErrorState title="A 3D file could not be loaded" message={errorMessage(queryFile.error ?? matchFile.error)} />
      ) : urls.query && urls.match ? (
        <CompareView
          key={state.mode}
          queryUrl={urls.query}
          matchUrl={urls.match}
          queryLabel={query.name}
          matchLabel={match.name}
          queryUp={upAxisOf(query)}
          matchUp={upAxisOf(match)}
          mode={state.mode}
          transform={state.transform}
          tolerance={tolerance}
          xray={state.xray}
          wireframe={state.wireframe}
          section={state.section}
          highlightContained={state.kind === 'part-in-part'}
          measuring={state.measuring}
          onMeasure={onMeasure}
          onDeviation={onDeviation}
        />
      ) : (
        <LoadingState label="Getting the 3D files…" />
      )}
      {state.mode === 'overlay' && deviation && (
        <Legend tolerance={tolerance} max={deviation.max} units={deviation.units} withinShare={deviation.withinShare} />
      )}
      {state.mode === 'overlay' && state.kind === 'part-in-part' && (
        <p className="muted">
          <span className="swatch swatch--contained" aria-hidden="true" /> Orange on the matched model: the region where this model lies
          within the tolerance (the contained region).
        </p>
      )}
      <div className="unit-switch-row">
        <UnitSwitch />
      </div>
      <FactsTable query={query} match={match} />
    </>
  );
}

/** /models/:modelId/compare/:otherId — two models side by side or overlaid. */
export function ComparePage() {
  const { modelId = '', otherId = '' } = useParams();
  const [search] = useSearchParams();
  const query = useModel(modelId);
  const match = useModel(otherId);
  const kind = parseCompareState(search).kind;

  let body;
  if (query.isPending || match.isPending) body = <LoadingState label="Loading the models…" />;
  else if (query.isError || match.isError)
    body = <ErrorState title="A model could not be loaded" message={errorMessage(query.error ?? match.error)} />;
  else {
    const notReady = [query.data, match.data].filter((m) => !(searchableStates as readonly string[]).includes(m.state));
    body = notReady.length ? (
      <div className="state" role="status">
        <p className="state__title">Not ready to compare</p>
        {notReady.map((m) => (
          <p key={m.id}>
            {m.name}: {stateLabel(m.state)}
          </p>
        ))}
      </div>
    ) : (
      <Comparison query={query.data} match={match.data} />
    );
  }
  const back = kind ? paths.matches.href(modelId, kind) : paths.model.href(modelId);
  return (
    <SharedCanvasProvider>
      <div className="page compare-page">
        <PageHeader
          trail={[
            { label: query.data?.name ?? 'Model', to: paths.model.href(modelId) },
            { label: kind ? `${kindTitles[kind]} matches` : 'Matches', to: back },
          ]}
          title={
            <>
              Compare {query.data?.name ?? '…'} with {match.data?.name ?? '…'}
            </>
          }
        />
        {body}
      </div>
    </SharedCanvasProvider>
  );
}
