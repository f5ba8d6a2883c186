import { BrowsePage } from './browse-page';

/** /folders: the folder tree and every model of the tenant. */
export function FoldersPage() {
  return <BrowsePage folderId={null} />;
}
