import { shareLabels } from './kind-titles';
import { useState } from 'react';
import { Link } from 'react-router';
import { useKeptViewerUrl } from '../../api/models';
import type { Match, MatchKind } from '../../contract/matches';
import { upAxisOf, type Model } from '../../contract/models';
import { ModelPreviewCard } from '../../viewer/model-preview-card';
import type { ContainmentDirection } from './match-state';
import { compareHref } from './match-links';
import { ScoreBar } from '../../ui/score-bar';
import { safeImageUrl } from '../../ui/safe-url';
import { paths } from '../../ui/paths';

/** "Mirror image" / "Scaled ×2": a part-to-part relation that is not the same part. */
export function relationLabel(match: Match): string | undefined {
  if (!('relation' in match) || !match.relation) return undefined;
  if (match.relation === 'mirrored') return 'Mirror image';
  const f = match.scale;
  return f === undefined ? 'Scaled copy' : `Scaled ×${f >= 1 ? Number(f.toFixed(2)) : `1/${Number((1 / f).toFixed(2))}`}`;
}

/** Part-in-part: how often the contained side occurs in the other, when more than once. */
export function quantityLabel(match: Match): string | undefined {
  if (!('copies' in match) || !match.copies || match.copies < 2) return undefined;
  return match.reverseMatchPercentage > match.forwardMatchPercentage
    ? `×${match.copies} in this model`
    : `This model ×${match.copies} in it`;
}

export function MatchScores({ match, direction }: { match: Match; direction: ContainmentDirection | null }) {
  if ('matchPercentage' in match) return <ScoreBar label="Score" value={match.matchPercentage} emphasis band />;
  return (
    <>
      <ScoreBar label={shareLabels.forward} value={match.forwardMatchPercentage} emphasis={direction === 'contains'} />
      <ScoreBar label={shareLabels.reverse} value={match.reverseMatchPercentage} emphasis={direction === 'contained'} />
    </>
  );
}

/** One result: 3D preview (viewer file asked for only once the card is near the window), name, folder, state, scores. */
export function MatchCard({
  queryId,
  kind,
  match,
  folderPath,
  direction,
  stateLabel,
}: {
  queryId: string;
  kind: MatchKind;
  match: Match;
  folderPath: string;
  direction: ContainmentDirection | null;
  stateLabel: string;
}) {
  const model = match.matchedModel;
  const [near, setNear] = useState(false);
  const url = useKeptViewerUrl(model, near);

  return (
    <ModelPreviewCard
      testId="match-card"
      url={url}
      label={`3D preview of ${model.name}`}
      up={upAxisOf(model)}
      thumbnailUrl={safeImageUrl(model.thumbnail)}
      onNearViewport={() => setNear(true)}
      title={<Link to={paths.model.href(model.id)}>{model.name}</Link>}
      subtitle={<span title={model.filePath}>{folderPath}</span>}
    >
      <div className="preview-card__meta">
        <span className="badge">{stateLabel}</span>
        {relationLabel(match) && (
          <span className="badge badge--relation" title="The same shape mirrored or scaled: not a duplicate">
            {relationLabel(match)}
          </span>
        )}
        <Link className="button button--small" to={compareHref(queryId, kind, match)} aria-label={`Compare with ${model.name}`}>
          Compare
        </Link>
      </div>
      <MatchScores match={match} direction={direction} />
      {quantityLabel(match) && <p className="preview-card__quantity">{quantityLabel(match)}</p>}
    </ModelPreviewCard>
  );
}

/** The model whose matches are listed, shown beside them so each result can be judged against it. */
export function QueryModelCard({ model, folderPath }: { model: Model; folderPath: string }) {
  const url = useKeptViewerUrl(model, true);
  return (
    <ModelPreviewCard
      testId="query-card"
      cardClassName="query-card"
      url={url}
      label={`3D preview of ${model.name}`}
      up={upAxisOf(model)}
      thumbnailUrl={safeImageUrl(model.thumbnail)}
      title={<Link to={paths.model.href(model.id)}>{model.name}</Link>}
      subtitle={<span title={model.filePath}>{folderPath}</span>}
    >
      <p className="query-card__label">This model</p>
    </ModelPreviewCard>
  );
}
