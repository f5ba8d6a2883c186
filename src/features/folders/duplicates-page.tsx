import { Link, useParams } from 'react-router';
import { ComingSoon } from '../../app/ui/states';

export function DuplicatesPage() {
  const { folderId } = useParams();
  return (
    <ComingSoon title="Duplicates">
      <p>Finding models in this folder that are geometrically the same is coming in a later release.</p>
      <p>
        <Link to={`/folders/${folderId ?? ''}`}>Back to the folder</Link>
      </p>
    </ComingSoon>
  );
}
