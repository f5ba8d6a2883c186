import { useParams } from 'react-router';
import { ComingSoon } from '../../app/ui/states';

export function ModelPage() {
  const { modelId } = useParams();
  return (
    <ComingSoon title="Model">
      <p>The model page — 3D preview, processing state, metadata and shape matches — is coming in a later release.</p>
      <p className="muted">Model id: {modelId}</p>
    </ComingSoon>
  );
}
