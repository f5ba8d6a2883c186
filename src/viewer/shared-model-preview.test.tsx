import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { ModelPreviewCard, PreviewGrid } from './model-preview-card';
import { SharedCanvasProvider } from './shared-canvas';
import { SharedModelPreview } from './shared-model-preview';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('shared-canvas previews without WebGL', () => {
  it('show their thumbnails, create no canvas and never claim to be ready', () => {
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    const onNear = vi.fn();
    const { container } = render(
      <SharedCanvasProvider>
        <PreviewGrid>
          {['a', 'b', 'c'].map((id) => (
            <ModelPreviewCard
              key={id}
              testId="card"
              url={`http://x/${id}.glb`}
              label={`3D preview of ${id}`}
              thumbnailUrl={`/thumbs/${id}.png`}
              title={id}
              onNearViewport={onNear}
            />
          ))}
        </PreviewGrid>
      </SharedCanvasProvider>,
    );
    expect(container.querySelectorAll('canvas')).toHaveLength(0);
    const preview = screen.getByRole('img', { name: '3D preview of b' });
    expect(preview.querySelector('img')?.getAttribute('src')).toBe('/thumbs/b.png');
    expect(preview.getAttribute('data-viewer-status')).toBe('fallback');
    expect(container.querySelectorAll('[data-viewer-ready]')).toHaveLength(0);
    expect(screen.getAllByText(/Thumbnail \(no 3D in this browser\)/)).toHaveLength(3);
  });

  it('needs its provider', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => render(<SharedModelPreview url={null} label="x" />)).toThrow(/SharedCanvasProvider/);
  });
});
