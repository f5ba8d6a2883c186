import { Link } from 'react-router';
import type { AddedDuplicate } from '../../api/added-duplicates';
import { paths } from '../../ui/paths';

/** What the designer decided about a file the library already held. */
export type DuplicateDecision = 'kept' | 'deleted';

export interface DuplicateActions {
  onKeep: (modelId: string) => void;
  onDelete: (found: AddedDuplicate) => void;
}

const score = (value: number) => Math.floor(value * 10) / 10;

/**
 * "Already in the library: Bracket, Pumps/Bracket.step, 100" under a finished file whose part the
 * library held before this upload (the duplicate rule, ≥ 98), with what can be done about it.
 */
export function DuplicateNote({
  found,
  decision,
  actions,
}: {
  found: AddedDuplicate;
  decision: DuplicateDecision | undefined;
  actions: DuplicateActions;
}) {
  const [first, ...more] = found.duplicates;
  if (!first) return null;
  if (decision === 'deleted') return <p className="upload-messages">Deleted: the library keeps {first.matchedModel.name}.</p>;
  const other = first.matchedModel;
  return (
    <div className={`upload-duplicate${decision === 'kept' ? ' upload-duplicate--kept' : ''}`} role="note" data-testid="upload-duplicate">
      <p>
        {decision === 'kept' ? 'Kept beside' : 'Already in the library:'} <Link to={paths.model.href(other.id)}>{other.name}</Link>,{' '}
        <span className="upload-duplicate__path">{other.filePath}</span>, {score(first.matchPercentage)}
        {more.length > 0 && ` (and ${more.length} more)`}
      </p>
      {decision !== 'kept' && (
        <div className="actions upload-duplicate__actions">
          <Link className="button button--small" to={paths.compare.href(found.model.id, other.id, { kind: 'part-to-part' })}>
            Compare
          </Link>
          <button type="button" className="button button--small" onClick={() => actions.onKeep(found.model.id)}>
            Keep both
          </button>
          <button type="button" className="button button--small button--danger-quiet" onClick={() => actions.onDelete(found)}>
            Delete the new one
          </button>
        </div>
      )}
    </div>
  );
}
