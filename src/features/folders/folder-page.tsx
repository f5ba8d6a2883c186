import { Link, useParams } from 'react-router';
import { ComingSoon } from '../../app/ui/states';

export function FolderPage() {
  const { folderId } = useParams();
  return (
    <ComingSoon title="Folder">
      <p>Browsing the models of a folder — with search, filters and ordering — is coming in a later release.</p>
      <p className="muted">Folder id: {folderId}</p>
      <p>
        <Link to="/folders">Back to all folders</Link>
      </p>
    </ComingSoon>
  );
}
