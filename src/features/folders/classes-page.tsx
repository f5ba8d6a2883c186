import { useId, useMemo, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import { useFolder } from '../../api/folders';
import { useAcceptProposals, useClassProposals, useMetadataKeys } from '../../api/metadata-keys';
import type { ClassProposal } from '../../contract/metadata-keys';
import { PageHeader } from '../../ui/page-header';
import { paths } from '../../ui/paths';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { DataTable } from '../../ui/table';
import { ThresholdSlider } from '../../ui/threshold-slider';
import { showToast } from '../../ui/toast';
import './folders.css';
import { Pager } from '../../ui/pager';

/** Where the list opens: on the dev split's families 93 % of proposals at 60 or more are right, 63 % below (npm run bench:classes). */
const DEFAULT_MIN_CONFIDENCE = 60;

/**
 * /folders/:folderId/classes — a metadata key as the class: the models of the folder (with its
 * subfolders) that have no value are proposed one from their nearest examples; accepted or
 * corrected proposals become metadata.
 */
export function ClassesPage() {
  const folderId = Number(useParams().folderId);
  const folder = useFolder(Number.isInteger(folderId) ? folderId : null);
  const keys = useMetadataKeys();
  const [search, setSearch] = useSearchParams();
  const keyId = Number(search.get('key')) || (keys.data?.find((k) => /categor|class|type/i.test(k.name)) ?? keys.data?.[0])?.id || null;
  const value = search.get('value') ?? undefined;
  const minConfidence = Math.min(100, Math.max(0, Number(search.get('min') ?? DEFAULT_MIN_CONFIDENCE) || 0));
  const [page, setPage] = useState(1);
  const proposals = useClassProposals(keyId && Number.isInteger(folderId) ? { keyId, folderId, value, minConfidence, page } : null);
  const data = proposals.data;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [correction, setCorrection] = useState('');
  const accept = useAcceptProposals();
  const keySelectId = useId();
  const valueSelectId = useId();
  const correctionId = useId();
  const key = keys.data?.find((k) => k.id === keyId);

  const set = (change: Record<string, string | null>) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(change)) {
      if (v === null) next.delete(k);
      else next.set(k, v);
    }
    setSearch(next, { replace: true });
    setPage(1);
    setSelected(new Set());
  };
  const shown = useMemo(() => data?.proposals ?? [], [data]);
  const chosen = shown.filter((p) => selected.has(p.model.id));

  const run = (items: { modelId: string; value: string }[], what: string) => {
    if (!keyId || !items.length) return;
    accept.mutate(
      { keyId, items },
      {
        onSuccess: ({ accepted }) => {
          showToast(`${accepted} ${accepted === 1 ? 'model' : 'models'} ${what}.`, 'info');
          setSelected(new Set());
          setCorrection('');
        },
        onError: (e) => showToast(`Nothing was set: ${errorMessage(e)}`, 'error'),
      },
    );
  };

  return (
    <div className="page classes-page">
      <PageHeader
        trail={[
          { label: 'All folders', to: paths.folders.href() },
          { label: folder.data?.path ?? `Folder ${folderId}`, to: paths.folder.href(folderId) },
        ]}
        title={<>Classify the models of {folder.data?.name ?? 'this folder'}</>}
      >
        <p className="lead">
          Choose a metadata key as the class and give a few models a value on their pages (a few of each kind is enough). Every model here
          without a value is proposed the value its most similar examples share, with a confidence; accept the proposals you agree with, or
          set another value.
        </p>
      </PageHeader>

      {keys.isPending ? (
        <LoadingState label="Loading metadata keys…" />
      ) : keys.isError ? (
        <ErrorState title="Metadata keys could not be loaded" message={errorMessage(keys.error)} onRetry={() => void keys.refetch()} />
      ) : !keys.data.length ? (
        <EmptyState title="No metadata key yet">
          <p>Open a model, add a metadata value such as Category = Bracket, and come back: that key becomes the class.</p>
        </EmptyState>
      ) : (
        <>
          <div className="classes__controls">
            <div className="field field--inline">
              <label htmlFor={keySelectId}>Class</label>
              <select id={keySelectId} value={keyId ?? ''} onChange={(e) => set({ key: e.target.value, value: null })}>
                {keys.data.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field field--inline">
              <label htmlFor={valueSelectId}>Proposed</label>
              <select id={valueSelectId} value={value ?? ''} onChange={(e) => set({ value: e.target.value || null })}>
                <option value="">Any value</option>
                {data?.values.map((v) => (
                  <option key={v.value} value={v.value}>
                    {v.value} ({v.count})
                  </option>
                ))}
              </select>
            </div>
            <ThresholdSlider label="Confidence at least" value={minConfidence} onCommit={(v) => set({ min: String(v) })} />
          </div>

          {data && (
            <p data-testid="classes-summary" aria-live="polite">
              {data.labelled} {data.labelled === 1 ? 'model has' : 'models have'} a {data.metadataKey.name} (the examples);{' '}
              {data.unlabelled} here {data.unlabelled === 1 ? 'has' : 'have'} none. {data.pageData.total}{' '}
              {data.pageData.total === 1 ? 'proposal' : 'proposals'} at {minConfidence} % confidence or more
              {value ? ` of ${value}` : ''}.{proposals.isPlaceholderData && <span className="muted"> Updating…</span>}
            </p>
          )}

          {proposals.isPending ? (
            <LoadingState label="Comparing the models with the examples…" />
          ) : proposals.isError && !data ? (
            <ErrorState
              title="No proposals could be made"
              message={errorMessage(proposals.error)}
              onRetry={() => void proposals.refetch()}
            />
          ) : data && data.labelled === 0 ? (
            <EmptyState title={`No model has a ${key?.name ?? 'value'} yet`}>
              <p>Give a few models a value on their pages; proposals for the others appear here.</p>
            </EmptyState>
          ) : shown.length === 0 ? (
            <EmptyState title="Nothing to propose at this confidence">
              <p>Lower the confidence, or give more models a value.</p>
            </EmptyState>
          ) : (
            <>
              <div className="actions classes__bulk" role="group" aria-label="Selected proposals">
                <label className="check">
                  <input
                    type="checkbox"
                    checked={chosen.length === shown.length}
                    onChange={(e) => setSelected(e.target.checked ? new Set(shown.map((p) => p.model.id)) : new Set())}
                  />
                  All on this page
                </label>
                <button
                  type="button"
                  className="button button--primary button--small"
                  disabled={!chosen.length || accept.isPending}
                  onClick={() =>
                    run(
                      chosen.map((p) => ({ modelId: p.model.id, value: p.value })),
                      'now have their proposed value',
                    )
                  }
                >
                  Accept {chosen.length || ''} {chosen.length === 1 ? 'proposal' : 'proposals'}
                </button>
                <label htmlFor={correctionId} className="visually-hidden">
                  Another value for the selected models
                </label>
                <input
                  id={correctionId}
                  className="classes__correction"
                  placeholder="Another value…"
                  value={correction}
                  maxLength={1000}
                  onChange={(e) => setCorrection(e.target.value)}
                />
                <button
                  type="button"
                  className="button button--small"
                  disabled={!chosen.length || !correction.trim() || accept.isPending}
                  onClick={() =>
                    run(
                      chosen.map((p) => ({ modelId: p.model.id, value: correction.trim() })),
                      `now have ${correction.trim()}`,
                    )
                  }
                >
                  Set {chosen.length || ''} to this value
                </button>
              </div>
              <DataTable caption="Proposed classes" columns={['', 'Model', 'Proposed', 'Confidence', 'Nearest examples']}>
                {shown.map((p) => (
                  <ProposalRow
                    key={p.model.id}
                    proposal={p}
                    checked={selected.has(p.model.id)}
                    onCheck={(on) => {
                      const next = new Set(selected);
                      if (on) next.add(p.model.id);
                      else next.delete(p.model.id);
                      setSelected(next);
                    }}
                  />
                ))}
              </DataTable>
              {data && <Pager pageData={data.pageData} onPage={setPage} label="Pages of proposals" />}
            </>
          )}
        </>
      )}
    </div>
  );
}

function ProposalRow({ proposal: p, checked, onCheck }: { proposal: ClassProposal; checked: boolean; onCheck: (on: boolean) => void }) {
  return (
    <tr data-testid="proposal-row">
      <td>
        <input type="checkbox" checked={checked} onChange={(e) => onCheck(e.target.checked)} aria-label={`Select ${p.model.name}`} />
      </td>
      <td data-label="Model">
        <Link to={paths.model.href(p.model.id)}>{p.model.name}</Link>
        <div className="muted classes__path">{p.model.filePath}</div>
      </td>
      <td data-label="Proposed">
        <strong>{p.value}</strong>
      </td>
      <td data-label="Confidence">{p.confidence} %</td>
      <td data-label="Nearest examples">
        <ul className="classes__neighbours">
          {p.neighbours.slice(0, 3).map((n) => (
            <li key={n.modelId}>
              <Link to={paths.model.href(n.modelId)}>{n.name}</Link> — {n.value}, {Math.floor(n.matchPercentage)}
            </li>
          ))}
        </ul>
      </td>
    </tr>
  );
}
