import { Link, useParams } from 'react-router';
import { ComingSoon } from '../../app/ui/states';

const titles: Record<string, string> = {
  'part-in-part': 'Part-in-part matches',
  'part-to-part': 'Part-to-part matches',
  'geo-related': 'Geometrically related models',
};

export function MatchesPage() {
  const { modelId, kind } = useParams();
  return (
    <ComingSoon title={titles[kind ?? ''] ?? 'Matches'}>
      <p>Shape search results for this model, with scores and overlays, are coming in a later release.</p>
      <p>
        <Link to={`/models/${modelId ?? ''}`}>Back to the model</Link>
      </p>
    </ComingSoon>
  );
}
