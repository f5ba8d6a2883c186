import { describe, expect, it } from 'vitest';
import { MAX_LISTED } from './selection';
import { createSelectionStore } from './selection-store';

function fakeUrls() {
  let n = 0;
  const live = new Set<string>();
  return {
    live,
    create: () => {
      const url = `blob:${++n}`;
      live.add(url);
      return url;
    },
    revoke: (url: string) => {
      if (!live.delete(url)) throw new Error(`revoked twice or unknown: ${url}`);
    },
  };
}

const file = (name: string, type: string) => new File(['bytes'], name, { type });

describe('selection store', () => {
  it('makes thumbnails only for images and revokes each when its image leaves', () => {
    const urls = fakeUrls();
    const store = createSelectionStore(urls);
    let calls = 0;
    store.subscribe(() => calls++);
    store.addFiles([file('a.png', 'image/png'), file('notes.txt', 'text/plain'), file('b.jpg', 'image/jpeg')]);
    expect(calls).toBe(1);
    const [a, txt, b] = store.getState().images;
    expect(txt!.previewUrl).toBeNull();
    expect(urls.live).toEqual(new Set([a!.previewUrl, b!.previewUrl]));
    store.dispatch({ type: 'remove', key: a!.key });
    expect(urls.live).toEqual(new Set([b!.previewUrl]));
    store.dispatch({ type: 'clear' });
    expect(urls.live.size).toBe(0);
  });

  it('revokes the thumbnails of files that did not fit in the list', () => {
    const urls = fakeUrls();
    const store = createSelectionStore(urls);
    store.addFiles(Array.from({ length: MAX_LISTED + 4 }, (_, i) => file(`${i}.png`, 'image/png')));
    expect(store.getState().images).toHaveLength(MAX_LISTED);
    expect(urls.live.size).toBe(MAX_LISTED);
  });
});
