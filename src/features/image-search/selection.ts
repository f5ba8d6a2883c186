// The image search's selection as plain data and a reducer: which images are picked, what the
// local checks and the service said about each, and the search last run. No DOM, no fetch.
import { IMAGES_PER_SEARCH } from '../../contract/images';
import { defaultThresholds } from '../../contract/score-scale';
import { checkImage, type ImageFileFacts } from './image-checks';

/** More files than this are not even listed (a dropped folder of photos would swamp the page). */
export const MAX_LISTED = 2 * IMAGES_PER_SEARCH;

export type UploadStatus =
  | { kind: 'waiting' }
  | { kind: 'sending'; loaded: number; total: number }
  | { kind: 'sent'; imageId: string }
  /** `retryable`: the next search sends it again (network trouble, an expired address); otherwise the image itself was refused. */
  | { kind: 'failed'; message: string; retryable: boolean };

export interface PickedImage extends ImageFileFacts {
  key: string;
  file: Blob;
  /** Object URL of the thumbnail; null for files that are not images. */
  previewUrl: string | null;
  /** Why the local checks refuse it; null when they pass. */
  problem: string | null;
  upload: UploadStatus;
}

export interface SelectionState {
  images: PickedImage[];
  /** How many files of the last addition were left out because the list was full. */
  notAdded: number;
  /** The image ids of the search on screen; null before the first search. */
  searchedIds: string[] | null;
  page: number;
  /** Results only from this folder (and its subfolders); null for all. */
  folderId: number | null;
  /** Results scoring at least this much (0–100). */
  threshold: number;
}

export type NewImage = Pick<PickedImage, 'key' | 'file' | 'name' | 'type' | 'size' | 'previewUrl'>;

export type SelectionAction =
  | { type: 'add'; images: NewImage[] }
  | { type: 'remove'; key: string }
  | { type: 'clear' }
  | { type: 'sending'; key: string; loaded: number; total: number }
  | { type: 'sent'; key: string; imageId: string }
  | { type: 'failed'; key: string; message: string; retryable: boolean }
  | { type: 'searched'; ids: string[] }
  | { type: 'page'; page: number }
  | { type: 'folder'; folderId: number | null }
  | { type: 'threshold'; threshold: number };

/** Where an image search's list starts: half the best possible likeness (README, Image search). */
export const defaultImageThreshold = defaultThresholds.imageSearch;

export const initialSelection: SelectionState = {
  images: [],
  notAdded: 0,
  searchedIds: null,
  page: 1,
  folderId: null,
  threshold: defaultImageThreshold,
};

function updateImage(state: SelectionState, key: string, upload: UploadStatus): SelectionState {
  if (!state.images.some((image) => image.key === key)) return state;
  return { ...state, images: state.images.map((image) => (image.key === key ? { ...image, upload } : image)) };
}

export function selectionReducer(state: SelectionState, action: SelectionAction): SelectionState {
  switch (action.type) {
    case 'add': {
      const room = Math.max(0, MAX_LISTED - state.images.length);
      const added = action.images
        .slice(0, room)
        .map((image): PickedImage => ({ ...image, problem: checkImage(image), upload: { kind: 'waiting' } }));
      return { ...state, images: [...state.images, ...added], notAdded: action.images.length - added.length };
    }
    case 'remove':
      return { ...state, images: state.images.filter((image) => image.key !== action.key), notAdded: 0 };
    case 'clear':
      return { ...initialSelection, folderId: state.folderId, threshold: state.threshold };
    case 'sending':
      return updateImage(state, action.key, { kind: 'sending', loaded: action.loaded, total: action.total });
    case 'sent':
      return updateImage(state, action.key, { kind: 'sent', imageId: action.imageId });
    case 'failed':
      return updateImage(state, action.key, { kind: 'failed', message: action.message, retryable: action.retryable });
    case 'searched':
      return { ...state, searchedIds: action.ids.length ? action.ids : null, page: 1 };
    case 'page':
      return { ...state, page: Math.max(1, Math.floor(action.page)) };
    case 'folder':
      return { ...state, folderId: action.folderId, page: 1 };
    case 'threshold':
      return { ...state, threshold: Math.min(100, Math.max(0, Math.round(action.threshold))), page: 1 };
  }
}

/** Usable unless the local checks or the service refused it for good. */
function usable(image: PickedImage): boolean {
  return image.problem === null && !(image.upload.kind === 'failed' && !image.upload.retryable);
}

/** The images the next search uses: the first ten usable ones, in the order they were added. */
export function searchImages(state: SelectionState): PickedImage[] {
  return state.images.filter(usable).slice(0, IMAGES_PER_SEARCH);
}

/** Why an image will not be (or was not) used, in words; null when it is fine. */
export function imageReason(state: SelectionState, key: string): string | null {
  const image = state.images.find((candidate) => candidate.key === key);
  if (!image) return null;
  if (image.problem) return image.problem;
  if (image.upload.kind === 'failed')
    return image.upload.retryable ? `${image.upload.message} It is sent again at the next search.` : image.upload.message;
  if (!searchImages(state).includes(image)) {
    return `Only ${IMAGES_PER_SEARCH} images go into one search. Remove another image to use this one.`;
  }
  return null;
}

/** Whether the images the next search would use differ from the search on screen. */
export function selectionChanged(state: SelectionState): boolean {
  if (!state.searchedIds) return searchImages(state).length > 0;
  const next = searchImages(state).map((image) => (image.upload.kind === 'sent' ? image.upload.imageId : `new:${image.key}`));
  return next.length !== state.searchedIds.length || next.some((id, i) => id !== state.searchedIds![i]);
}
