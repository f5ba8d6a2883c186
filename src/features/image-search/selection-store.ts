// Holds the selection outside React so it survives going to a model and coming back, and owns the
// thumbnails' object URLs: each is made when its image is added and revoked when it leaves.
import { claimedImageType } from './image-checks';
import { initialSelection, selectionReducer, type NewImage, type SelectionAction, type SelectionState } from './selection';

export interface ObjectUrls {
  create(file: Blob): string;
  revoke(url: string): void;
}

const browserUrls: ObjectUrls = {
  create: (file) => URL.createObjectURL(file),
  revoke: (url) => URL.revokeObjectURL(url),
};

export interface SelectionStore {
  getState(): SelectionState;
  subscribe(listener: () => void): () => void;
  dispatch(action: SelectionAction): void;
  addFiles(files: readonly File[]): void;
}

export function createSelectionStore(urls: ObjectUrls = browserUrls): SelectionStore {
  let state = initialSelection;
  let nextKey = 1;
  const listeners = new Set<() => void>();

  const previewUrls = (s: SelectionState) => new Set(s.images.flatMap((image) => (image.previewUrl ? [image.previewUrl] : [])));

  const dispatch = (action: SelectionAction) => {
    const before = previewUrls(state);
    if (action.type === 'add') for (const image of action.images) if (image.previewUrl) before.add(image.previewUrl);
    const next = selectionReducer(state, action);
    if (next === state) return;
    const after = previewUrls(next);
    for (const url of before) if (!after.has(url)) urls.revoke(url);
    state = next;
    for (const listener of listeners) listener();
  };

  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch,
    addFiles(files) {
      if (files.length === 0) return;
      const images = files.map((file): NewImage => ({
        key: `img-${nextKey++}`,
        file,
        name: file.name,
        type: file.type,
        size: file.size,
        // Only files that claim to be images get a thumbnail; the others show their reason instead.
        previewUrl: claimedImageType(file) ? urls.create(file) : null,
      }));
      dispatch({ type: 'add', images });
    },
  };
}

/** The page's selection for this browser tab. */
export const imageSearchSession = createSelectionStore();
