import { Link, useMatch } from 'react-router';
import { useCompareSet } from './compare-set';
import './compare-set.css';
import { paths } from './paths';

/** The models picked for comparison, a click away from any page (not on the comparison itself). */
export function CompareSetPill() {
  const picked = useCompareSet();
  const onPage = useMatch(paths.compareSet.pattern);
  if (picked.length === 0 || onPage) return null;
  return (
    <Link className="compare-pill" to={paths.compareSet.href()} title={picked.map((p) => p.name).join(', ')}>
      Compare {picked.length} {picked.length === 1 ? 'model' : 'models'}
    </Link>
  );
}
