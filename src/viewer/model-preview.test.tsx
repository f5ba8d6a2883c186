import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { ModelPreview } from './model-preview';
import { webglAvailable } from './webgl';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('ModelPreview without WebGL', () => {
  it('shows the thumbnail and says why, and never claims to be ready', () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const onReady = vi.fn();
    const { container } = render(
      <ModelPreview
        url="http://localhost:8080/files/m1.glb"
        label="3D preview of Bracket"
        fallbackImageUrl="/thumbs/m1.png"
        onReady={onReady}
      />,
    );
    const view = screen.getByRole('img', { name: '3D preview of Bracket' });
    expect(view.querySelector('img')?.getAttribute('src')).toBe('/thumbs/m1.png');
    expect(screen.getByRole('alert').textContent).toMatch(/could not start 3D graphics/);
    const wrapper = container.querySelector('.viewer')!;
    expect(wrapper.getAttribute('data-viewer-ready')).toBeNull();
    expect(wrapper.getAttribute('data-viewer-status')).toBe('error');
    expect(container.querySelector('canvas')).toBeNull();
    expect(onReady).not.toHaveBeenCalled();
    // Display only: it never asks for anything itself when it cannot draw.
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('detects WebGL and releases the probe context', () => {
    const loseContext = vi.fn();
    const fake = { getExtension: (name: string) => (name === 'WEBGL_lose_context' ? { loseContext } : null) };
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(fake as unknown as WebGL2RenderingContext);
    expect(webglAvailable()).toBe(true);
    expect(loseContext).toHaveBeenCalledTimes(1);
  });
});
