import { useParams } from 'react-router';
import { NotFoundPage } from '../../ui/not-found-page';
import { BrowsePage } from './browse-page';
import { parseFolderId } from '../../contract/folders';

/** /folders/:folderId: one folder's models, with search, filters, order and page in the URL. */
export function FolderPage() {
  const folderId = parseFolderId(useParams().folderId);
  if (folderId === null) return <NotFoundPage />;
  return <BrowsePage folderId={folderId} />;
}
