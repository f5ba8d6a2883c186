import { Link, useParams } from 'react-router';
import { ComingSoon } from '../../app/ui/states';

export function ComparePage() {
  const { modelId } = useParams();
  return (
    <ComingSoon title="Compare models">
      <p>Comparing two models side by side and overlaid is coming in a later release.</p>
      <p>
        <Link to={`/models/${modelId ?? ''}`}>Back to the model</Link>
      </p>
    </ComingSoon>
  );
}
