import { useId } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../../api/client';
import { useWhereUsed } from '../../api/models';
import { isSettled, type Model } from '../../contract/models';
import { paths } from '../../ui/paths';
import { ErrorState, LoadingState } from '../../ui/states';

/**
 * "Where used": the assemblies a change to this model touches. Those whose tree places it come
 * first (with how many they place); those that hold its shape — an assembly exported as one mesh —
 * are marked, with the share of the part found in them.
 */
export function WhereUsedSection({ model }: { model: Model }) {
  const headingId = useId();
  const settled = isSettled(model.state);
  const used = useWhereUsed(model.id, settled);
  const assemblies = used.data?.assemblies ?? [];
  return (
    <section className="card model__where-used" aria-labelledby={headingId} data-testid="where-used">
      <h2 id={headingId} className="card__title">
        Where used{assemblies.length > 0 && ` (${assemblies.length})`}
      </h2>
      {!settled ? (
        <p className="muted">The assemblies that use it are listed when processing has finished.</p>
      ) : used.isPending ? (
        <LoadingState label="Finding the assemblies that use it…" />
      ) : used.isError ? (
        <ErrorState title="Where it is used could not be found" message={errorMessage(used.error)} onRetry={() => void used.refetch()} />
      ) : assemblies.length === 0 ? (
        <p className="muted">No assembly in the library uses it, by reference or by shape.</p>
      ) : (
        <ul className="where-used">
          {assemblies.map((a) => (
            <li key={a.model.id} data-testid="where-used-row">
              <Link to={paths.model.href(a.model.id)}>{a.model.name}</Link>
              {a.quantity !== undefined && <span className="where-used__quantity"> × {a.quantity}</span>}
              <span className="muted where-used__path"> {a.model.filePath}</span>
              <span className={`where-used__by where-used__by--${a.by}`}>
                {a.by === 'reference'
                  ? 'in its tree'
                  : `by shape${a.matchPercentage !== undefined ? `, ${Math.floor(a.matchPercentage * 10) / 10} % of it found` : ''}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
