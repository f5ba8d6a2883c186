import { describe, expect, it } from 'vitest';
import { IMAGES_PER_SEARCH } from '../../contract/images';
import {
  imageReason,
  initialSelection,
  MAX_LISTED,
  searchImages,
  selectionChanged,
  selectionReducer,
  type NewImage,
  type SelectionState,
} from './selection';

const blob = new Blob(['x']);
const png = (key: string, size = 100): NewImage => ({
  key,
  file: blob,
  name: `${key}.png`,
  type: 'image/png',
  size,
  previewUrl: `blob:${key}`,
});
const add = (state: SelectionState, ...images: NewImage[]) => selectionReducer(state, { type: 'add', images });

describe('image selection', () => {
  it('adds images with their local problem', () => {
    const state = add(initialSelection, png('a'), { ...png('b'), type: 'application/pdf', name: 'b.pdf', previewUrl: null }, png('c', 0));
    expect(state.images.map((i) => i.problem)).toEqual([
      null,
      'Not a PNG, JPEG or WebP image (this file is application/pdf).',
      'The file is empty.',
    ]);
    expect(searchImages(state).map((i) => i.key)).toEqual(['a']);
    expect(imageReason(state, 'b')).toMatch(/Not a PNG/);
  });

  it('uses the first ten usable images and says why the eleventh is left out', () => {
    const keys = Array.from({ length: IMAGES_PER_SEARCH + 1 }, (_, i) => `k${i}`);
    let state = add(initialSelection, { ...png('bad'), size: 0 }, ...keys.map((k) => png(k)));
    expect(searchImages(state).map((i) => i.key)).toEqual(keys.slice(0, IMAGES_PER_SEARCH));
    expect(imageReason(state, 'k10')).toBe('Only 10 images go into one search. Remove another image to use this one.');
    // Removing one makes room: the eleventh is used.
    state = selectionReducer(state, { type: 'remove', key: 'k0' });
    expect(imageReason(state, 'k10')).toBeNull();
    expect(searchImages(state)).toHaveLength(IMAGES_PER_SEARCH);
  });

  it('lists at most MAX_LISTED files and counts the rest', () => {
    const many = Array.from({ length: MAX_LISTED + 3 }, (_, i) => png(`m${i}`));
    const state = add(initialSelection, ...many);
    expect(state.images).toHaveLength(MAX_LISTED);
    expect(state.notAdded).toBe(3);
    expect(selectionReducer(state, { type: 'remove', key: 'm0' }).notAdded).toBe(0);
  });

  it('tracks sending, sent and failed per image; a refused image drops out, a retryable one stays', () => {
    let state = add(initialSelection, png('a'), png('b'), png('c'));
    state = selectionReducer(state, { type: 'sending', key: 'a', loaded: 50, total: 100 });
    expect(state.images[0]!.upload).toEqual({ kind: 'sending', loaded: 50, total: 100 });
    state = selectionReducer(state, { type: 'sent', key: 'a', imageId: 'img-a' });
    state = selectionReducer(state, { type: 'failed', key: 'b', message: 'The file is not a PNG, JPEG or WebP image.', retryable: false });
    state = selectionReducer(state, { type: 'failed', key: 'c', message: 'Could not reach the service.', retryable: true });
    expect(searchImages(state).map((i) => i.key)).toEqual(['a', 'c']);
    expect(imageReason(state, 'b')).toBe('The file is not a PNG, JPEG or WebP image.');
    expect(imageReason(state, 'c')).toBe('Could not reach the service. It is sent again at the next search.');
    // Unknown keys (an image removed while it was being sent) change nothing.
    expect(selectionReducer(state, { type: 'sent', key: 'gone', imageId: 'x' })).toBe(state);
  });

  it('knows whether the selection differs from the search on screen', () => {
    let state = add(initialSelection, png('a'));
    expect(selectionChanged(state)).toBe(true);
    state = selectionReducer(state, { type: 'sent', key: 'a', imageId: 'img-a' });
    state = selectionReducer(state, { type: 'searched', ids: ['img-a'] });
    expect(selectionChanged(state)).toBe(false);
    state = add(state, png('b'));
    expect(selectionChanged(state)).toBe(true);
    state = selectionReducer(state, { type: 'remove', key: 'b' });
    expect(selectionChanged(state)).toBe(false);
  });

  it('starts at page 1 for a new search or folder; clear keeps the folder', () => {
    let state = selectionReducer(initialSelection, { type: 'searched', ids: ['x'] });
    state = selectionReducer(state, { type: 'page', page: 3 });
    expect(state.page).toBe(3);
    state = selectionReducer(state, { type: 'folder', folderId: 7 });
    expect(state).toMatchObject({ page: 1, folderId: 7 });
    state = selectionReducer(selectionReducer(state, { type: 'page', page: 2 }), { type: 'searched', ids: ['y'] });
    expect(state.page).toBe(1);
    state = selectionReducer(add(state, png('a')), { type: 'clear' });
    expect(state).toEqual({ ...initialSelection, folderId: 7 });
  });
});
