import { Suspense, useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import { OrbitControls, PerspectiveCamera, View } from '@react-three/drei';
import type { Group } from 'three';
import { forgetViewerGltf, useViewerGltf } from './gltf';
import { FitToView, FrameProbe, StudioLights } from './scene-parts';
import { useSharedCanvas, viewPriority } from './shared-canvas';
import { describe, ViewerBoundary } from './viewer-boundary';

export interface SharedModelPreviewProps {
  /**
   * Address of the model's viewer GLB; undefined while the caller is still getting it (it
   * usually asks once {@link SharedModelPreviewProps.onNearViewport} has fired), null when
   * the model has none (the thumbnail stays).
   */
  url: string | null | undefined;
  /** Accessible name, e.g. "3D preview of bracket". */
  label: string;
  /** Shown while loading, without WebGL, and when the file cannot be shown. */
  thumbnailUrl?: string | null;
  /** Called once when the preview comes near the window (200 px ahead): time to get its `url`. */
  onNearViewport?: () => void;
  /** Called once the model has been drawn on screen. */
  onReady?: () => void;
  className?: string;
}

type Status = 'waiting' | 'loading' | 'ready' | 'error' | 'fallback';

function PreviewModel({ url, onDrawn, track }: { url: string; onDrawn: () => void; track: React.RefObject<HTMLElement | null> }) {
  const gltf = useViewerGltf(url);
  const group = useRef<Group>(null);
  // Each preview shows its own copy: one cached file may be on the page twice.
  const [scene] = useState(() => gltf.scene.clone(true));
  return (
    <>
      <color attach="background" args={['#e9edf3']} />
      <group ref={group}>
        <primitive object={scene} />
      </group>
      <FitToView target={group} request={0} />
      <FrameProbe onDrawn={onDrawn} track={track} />
    </>
  );
}

/**
 * One model's 3D preview drawn by the page's shared canvas ({@link SharedCanvasProvider}).
 * The file loads only once the preview is near the window; the thumbnail stands in until the
 * model has been drawn, and stays where WebGL is missing or the file cannot be read. Drag to
 * orbit (the wheel keeps scrolling the page). Display only: it never asks the API for anything.
 * Its element gets `data-viewer-ready="true"` once the model is on screen.
 */
export function SharedModelPreview({ url, label, thumbnailUrl, onNearViewport, onReady, className }: SharedModelPreviewProps) {
  const canvas = useSharedCanvas();
  const element = useRef<HTMLDivElement>(null);
  // Without IntersectionObserver (old browsers, tests) every preview counts as near.
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [attempt, setAttempt] = useState(0);
  const reportNear = useEffectEvent(() => onNearViewport?.());

  useEffect(() => {
    const target = element.current;
    if (!target || near) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setNear(true);
          observer.disconnect();
        }
      },
      { rootMargin: '200px' },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [near]);

  useEffect(() => {
    if (near) reportNear();
  }, [near]);

  const onDrawn = useCallback(() => {
    setReady(true);
    onReady?.();
  }, [onReady]);

  const draw3d = canvas.webgl && canvas.alive;
  const status: Status = !draw3d ? 'fallback' : error ? 'error' : ready ? 'ready' : near && url ? 'loading' : 'waiting';
  const showView = draw3d && near && !!url && !error;

  return (
    <div
      ref={element}
      className={`shared-preview${className ? ` ${className}` : ''}`}
      role="img"
      aria-label={label}
      data-viewer-ready={ready && !error ? 'true' : undefined}
      data-viewer-status={status}
    >
      {thumbnailUrl && !ready && <img className="shared-preview__thumb" src={thumbnailUrl} alt="" loading="lazy" />}
      {showView && (
        <View className="shared-preview__view" index={viewPriority}>
          <PerspectiveCamera makeDefault fov={35} position={[3, 2, 4]} near={0.01} far={1000} />
          <StudioLights />
          <OrbitControls makeDefault enableDamping={false} enableZoom={false} enablePan={false} />
          <ViewerBoundary key={`${url}#${attempt}`} onError={(e) => setError((previous) => previous ?? e)}>
            <Suspense fallback={null}>
              <PreviewModel url={url} onDrawn={onDrawn} track={element} />
            </Suspense>
          </ViewerBoundary>
        </View>
      )}
      {status === 'loading' && (
        <span className="shared-preview__status" role="status">
          Loading 3D…
        </span>
      )}
      {status === 'error' && error && (
        <span className="shared-preview__status" role="alert">
          {describe(error)}{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              if (url) forgetViewerGltf(url);
              setError(null);
              setReady(false);
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </span>
      )}
      {status === 'fallback' && thumbnailUrl && <span className="shared-preview__status">Thumbnail (no 3D in this browser)</span>}
    </div>
  );
}
