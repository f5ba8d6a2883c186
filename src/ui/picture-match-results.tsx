import { upAxisOf } from '../contract/models';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { UseQueryResult } from '@tanstack/react-query';
import { errorMessage } from '../api/client';
import { useFolderTree } from '../api/folders';
import { useKeptViewerFile } from '../api/models';
import { EmptyState, ErrorState } from '../ui/states';
import type { Folder } from '../contract/folders';
import type { ImageMatch, ImageMatchesResponse } from '../contract/images';
import { ModelPreviewCard } from '../viewer/model-preview-card';
import { SharedCanvasProvider } from '../viewer/shared-canvas';
import { folderFilter } from '../contract/folders';
import { folderPathOf } from './folder-path';
import './picture-matches.css';
import { safeImageUrl } from '../ui/safe-url';
import { ThresholdSlider } from '../ui/threshold-slider';
import { ScoreBar } from '../ui/score-bar';
import { stateLabel } from '../ui/model-state';
import { paths } from '../ui/paths';

export const RESULTS_PER_PAGE = 24;

/** One result: 3D preview on the page's shared canvas (its viewer file asked for only once the card is near the window), score, name, folder, state. */
function MatchCard({ match, rank, folderPath }: { match: ImageMatch; rank: number; folderPath: string }) {
  const model = match.matchedModel;
  const score = match.matchPercentage;
  const [near, setNear] = useState(false);
  const url = useKeptViewerFile(model, near);

  return (
    <li data-testid="image-match" data-model-id={model.id}>
      <ModelPreviewCard
        cardClassName="image-match"
        url={url}
        label={`3D preview of ${model.name}`}
        up={upAxisOf(model)}
        thumbnailUrl={safeImageUrl(model.thumbnail)}
        onNearViewport={() => setNear(true)}
        title={
          <Link to={paths.model.href(model.id)} className="image-match__name" data-testid="match-name">
            {model.name}
          </Link>
        }
        subtitle={
          <span className="image-match__folder" title={folderPath}>
            {folderPath || 'Top folder'}
          </span>
        }
      >
        {/* The same card as a geometric match's: state and rank, then the score bar. */}
        <div className="preview-card__meta">
          <span className="badge">{stateLabel(model.state)}</span>
          <span className="muted image-match__rank">Rank {rank}</span>
        </div>
        {score !== undefined && (
          <div data-testid="match-score">
            <ScoreBar label="Score" value={score} emphasis />
          </div>
        )}
      </ModelPreviewCard>
    </li>
  );
}

function ResultsSkeleton() {
  return (
    <ul className="image-match-grid" aria-hidden="true">
      {Array.from({ length: 8 }, (_, i) => (
        <li key={i}>
          <div className="preview-card image-match image-match--skeleton">
            <div className="image-match__thumb skeleton" />
            <span className="skeleton skeleton--line" />
            <span className="skeleton skeleton--line skeleton--short" />
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The filter expression of a folder chosen in the results (its subfolders included), for the search's query. */
export function useFolderFilter(folderId: number | null): string | undefined {
  const tree = useFolderTree();
  // Until the tree is read, a chosen folder filters on itself only.
  return folderFilter(tree.data ?? [], folderId);
}

export interface MatchResultsProps {
  /** The search's matches, asked with {@link useFolderFilter}'s filter for `folderId`. */
  matches: UseQueryResult<ImageMatchesResponse>;
  /** Changes when another search is made: its results are brought into view. */
  searchKey: string;
  /** What was searched with, for the summary: "this image", "these 3 images", "this sketch". */
  subject: string;
  /** Advice when nothing in all folders passes the threshold. */
  emptyHint: string;
  /** What the score means (contract/score-scale.ts), under the threshold. */
  scoreNote: string;
  page: number;
  folderId: number | null;
  threshold: number;
  onPage: (page: number) => void;
  onFolder: (folderId: number | null) => void;
  onThreshold: (threshold: number) => void;
}

/**
 * The matches of a search by picture (image search, sketch search): threshold and folder
 * filter, a grid of cards (3D preview, score, name, folder, state) and paging.
 */
export function PictureMatchResults({
  matches,
  searchKey,
  subject,
  emptyHint,
  scoreNote,
  page,
  folderId,
  threshold,
  onPage,
  onFolder,
  onThreshold,
}: MatchResultsProps) {
  const folderSelectId = useId();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  // A new search brings its results into view: they start below the images on most screens.
  useEffect(() => {
    const heading = headingRef.current;
    if (!heading) return;
    heading.scrollIntoView?.({ block: 'start' });
    heading.focus({ preventScroll: true });
  }, [searchKey]);
  const tree = useFolderTree();
  const folders = useMemo(() => tree.data ?? [], [tree.data]);
  const byId = useMemo(() => new Map<number, Folder>(folders.map((folder) => [folder.id, folder])), [folders]);
  const options = useMemo(() => [...folders].sort((a, b) => a.path.localeCompare(b.path)), [folders]);
  const data = matches.data;
  const pageData = data?.pageData;

  return (
    <section className="card image-results" aria-labelledby={headingId} aria-busy={matches.isFetching}>
      <div className="image-results__header">
        <div>
          <h2 id={headingId} className="image-results__title" ref={headingRef} tabIndex={-1}>
            Matching models
          </h2>
          <p className="muted image-results__summary" role="status">
            {matches.isPending
              ? 'Searching…'
              : data
                ? `${data.matchCount} ${data.matchCount === 1 ? 'model scores' : 'models score'} ${threshold}% or more for ${subject}, best first.`
                : ''}
          </p>
        </div>
        <ThresholdSlider label="Picture score threshold" value={threshold} onCommit={onThreshold} hint={scoreNote} />
        <div className="control">
          <label htmlFor={folderSelectId}>Folder</label>
          <select
            id={folderSelectId}
            value={folderId ?? ''}
            onChange={(event) => onFolder(event.target.value ? Number(event.target.value) : null)}
          >
            <option value="">All folders</option>
            {options.map((folder) => (
              <option key={folder.id} value={folder.id}>
                {folder.path}
              </option>
            ))}
          </select>
        </div>
      </div>

      {matches.isPending && <ResultsSkeleton />}
      {matches.isError && !data && (
        <ErrorState title="The search did not work" message={errorMessage(matches.error)} onRetry={() => void matches.refetch()} />
      )}
      {data && data.matches.length === 0 && (
        <EmptyState
          title={folderId === null ? `No model scores ${threshold}% or more` : `No match of ${threshold}% or more in this folder`}
        >
          <p className="muted">{folderId === null ? emptyHint : 'Lower the threshold, or choose "All folders" to search every folder.'}</p>
        </EmptyState>
      )}
      {data && data.matches.length > 0 && (
        <SharedCanvasProvider>
          <ol className={`image-match-grid${matches.isPlaceholderData ? ' image-results--refreshing' : ''}`} aria-label="Matching models">
            {data.matches.map((match, i) => (
              <MatchCard
                key={match.matchedModel.id}
                match={match}
                rank={(pageData?.startIndex ?? 0) + i + 1}
                folderPath={folderPathOf(byId, match.matchedModel)}
              />
            ))}
          </ol>
        </SharedCanvasProvider>
      )}
      {matches.isError && data && (
        <p className="form-error" role="alert">
          {errorMessage(matches.error)}
        </p>
      )}

      {pageData && pageData.lastPage > 1 && (
        <nav className="image-pager" aria-label="Result pages">
          <p className="muted image-pager__summary">
            {pageData.startIndex + 1}–{pageData.endIndex} of {pageData.total}
          </p>
          <div className="image-pager__controls">
            <button type="button" className="button button--small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
              ← Previous
            </button>
            <span className="image-pager__page" aria-current="page">
              Page {pageData.currentPage} of {pageData.lastPage}
            </span>
            <button type="button" className="button button--small" disabled={page >= pageData.lastPage} onClick={() => onPage(page + 1)}>
              Next →
            </button>
          </div>
        </nav>
      )}
    </section>
  );
}
