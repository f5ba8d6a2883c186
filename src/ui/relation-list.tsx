import { Link } from 'react-router';
import type { RelationLink } from '../contract/matches';
import type { Model } from '../contract/models';
import { paths } from './paths';

const scaleWords = (f: number) => (f >= 1 ? `×${Number(f.toFixed(2))}` : `×1/${Number((1 / f).toFixed(2))}`);

/** "a is a mirror image of b" / "b is a scaled ×2", with a link to compare them. */
function RelationItem({ link: given, models }: { link: RelationLink; models: ReadonlyMap<string, Model> }) {
  // A scaled copy reads as the larger being the smaller scaled up (`b` is `a` scaled by `scale`).
  const link = given.scale !== undefined && given.scale < 1 ? { ...given, a: given.b, b: given.a, scale: 1 / given.scale } : given;
  const a = models.get(link.a);
  const b = models.get(link.b);
  if (!a || !b) return null;
  const name = (m: Model) => <Link to={paths.model.href(m.id)}>{m.name}</Link>;
  return (
    <li>
      {link.relation === 'mirrored' ? (
        <>
          {name(a)} is a mirror image of {name(b)}
        </>
      ) : (
        <>
          {name(b)} is {name(a)} scaled {link.scale !== undefined ? scaleWords(link.scale) : ''}
        </>
      )}{' '}
      <span className="muted">({Math.round(link.matchPercentage * 10) / 10}%)</span>{' '}
      <Link
        className="button button--small"
        to={paths.compare.href(b.id, a.id, { kind: 'part-to-part' })}
        aria-label={`Compare ${a.name} with ${b.name}`}
      >
        Compare
      </Link>
    </li>
  );
}

export function RelationList({
  links,
  models,
  label,
}: {
  links: readonly RelationLink[];
  models: ReadonlyMap<string, Model>;
  label: string;
}) {
  if (links.length === 0) return null;
  return (
    <div className="duplicates__relations" data-testid="duplicate-relations">
      <p className="duplicates__relations-title">{label}</p>
      <ul>
        {links.map((l) => (
          <RelationItem key={`${l.a}:${l.b}`} link={l} models={models} />
        ))}
      </ul>
    </div>
  );
}
