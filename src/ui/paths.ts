// Every address in the app, in one place: pages link with `href`, and the router's routes take
// `pattern` from the same entry, so renaming a route cannot leave a link pointing at the old one.
import type { MatchKind } from '../contract/matches';

type Search = string | URLSearchParams | Record<string, string>;

const id = encodeURIComponent;

function withSearch(path: string, search?: Search): string {
  const query = new URLSearchParams(search).toString();
  return query ? `${path}?${query}` : path;
}

export const paths = {
  home: { pattern: '/', href: () => '/' },
  folders: { pattern: '/folders', href: (search?: Search) => withSearch('/folders', search) },
  folder: { pattern: '/folders/:folderId', href: (folderId: number, search?: Search) => withSearch(`/folders/${folderId}`, search) },
  folderDuplicates: { pattern: '/folders/:folderId/duplicates', href: (folderId: number) => `/folders/${folderId}/duplicates` },
  folderClasses: { pattern: '/folders/:folderId/classes', href: (folderId: number) => `/folders/${folderId}/classes` },
  model: { pattern: '/models/:modelId', href: (modelId: string) => `/models/${id(modelId)}` },
  matches: {
    pattern: '/models/:modelId/matches/:kind',
    href: (modelId: string, kind: MatchKind, search?: Search) => withSearch(`/models/${id(modelId)}/matches/${kind}`, search),
  },
  compare: {
    pattern: '/models/:modelId/compare/:otherId',
    href: (modelId: string, otherId: string, search?: Search) => withSearch(`/models/${id(modelId)}/compare/${id(otherId)}`, search),
  },
  /** The comparison of several picked models (the ids in the order they were picked). */
  compareSet: {
    pattern: '/compare',
    // Commas left as they are: the list reads as one.
    href: (ids?: readonly string[]) => (ids ? `/compare?ids=${ids.map(id).join(',')}` : '/compare'),
  },
  reviews: { pattern: '/review', href: (folderId?: number) => (folderId === undefined ? '/review' : `/review?folder=${folderId}`) },
  review: { pattern: '/review/:reportId', href: (reportId: string) => `/review/${id(reportId)}` },
  upload: {
    pattern: '/upload',
    href: (intoFolderId?: number) => (intoFolderId === undefined ? '/upload' : `/upload?into=${intoFolderId}`),
  },
  imageSearch: { pattern: '/image-search', href: () => '/image-search' },
  sketchSearch: { pattern: '/sketch-search', href: () => '/sketch-search' },
  credentials: { pattern: '/credentials', href: () => '/credentials' },
  webhooks: { pattern: '/webhooks', href: () => '/webhooks' },
  authCallback: { pattern: '/auth/callback', href: () => '/auth/callback' },
} as const;
