import { afterEach, describe, expect, it, vi } from 'vitest';
import { PerspectiveCamera } from 'three';
import { ViewEntry } from './view-entry';

afterEach(() => vi.restoreAllMocks());

function drawnView() {
  const drawImage = vi.fn();
  // jsdom has no 2D canvas: a stand-in that takes the copy.
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue({
    clearRect: () => undefined,
    drawImage,
  } as unknown as CanvasRenderingContext2D);
  const view = new ViewEntry(document.createElement('canvas'));
  const camera = new PerspectiveCamera(35, 4 / 3, 0.01, 1000);
  camera.position.set(3.3, 2.1, 4.7);
  camera.lookAt(0.1, 0.2, 0.3);
  expect(view.stale(camera, 300, 225)).toBe(true);
  view.copyFrom(document.createElement('canvas'), camera, 300, 225);
  expect(drawImage).toHaveBeenCalledTimes(1);
  return { view, camera };
}

describe('a view of the shared canvas', () => {
  it('is not drawn again while nothing about it changed', () => {
    const { view, camera } = drawnView();
    expect(view.stale(camera, 300, 225)).toBe(false);
  });

  it('is drawn again once its camera moves, its size changes or its scene changed', () => {
    const { view, camera } = drawnView();
    expect(view.stale(camera, 320, 240)).toBe(true);
    camera.position.x += 1e-9;
    expect(view.stale(camera, 300, 225)).toBe(true);
    camera.position.x -= 1e-9;
    camera.updateMatrixWorld();
    view.changed();
    expect(view.stale(camera, 300, 225)).toBe(true);
  });

  it('tells who waits for its next copy, once', () => {
    const { view, camera } = drawnView();
    const drawn = vi.fn();
    const cancelled = vi.fn();
    view.afterDraw(drawn);
    view.afterDraw(cancelled)();
    view.copyFrom(document.createElement('canvas'), camera, 300, 225);
    view.copyFrom(document.createElement('canvas'), camera, 300, 225);
    expect(drawn).toHaveBeenCalledTimes(1);
    expect(cancelled).not.toHaveBeenCalled();
  });
});
