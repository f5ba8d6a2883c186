import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import { OrbitControls } from './orbit-controls';
import type { Group } from 'three';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { forgetViewerGltf, loadViewerGltf } from './gltf';
import { FitToView, FrameProbe, StudioLights, uprightRotation } from './scene-parts';
import type { UpAxis } from '../contract/file-types';
import { SharedView, useSharedCanvas } from './shared-canvas';
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
  /** Called once when the preview comes near the window ({@link nearMargin} ahead): time to get its `url`. */
  onNearViewport?: () => void;
  /**
   * How far ahead of the window a preview counts as near (an IntersectionObserver rootMargin;
   * default 200px). A long page that is read by scrolling loads further ahead.
   */
  nearMargin?: string;
  /** Called once the model has been drawn on screen. */
  onReady?: () => void;
  className?: string;
  /** The axis the model stands on (default y, glTF's own). */
  up?: UpAxis;
}

type Status = 'waiting' | 'loading' | 'ready' | 'error' | 'fallback';

function PreviewModel({ gltf, onDrawn, up }: { gltf: GLTF; onDrawn: () => void; up: UpAxis }) {
  const group = useRef<Group>(null);
  // Each preview shows its own copy: one cached file may be on the page twice.
  const [scene] = useState(() => gltf.scene.clone(true));
  return (
    <>
      <color attach="background" args={['#e9edf3']} />
      <group ref={group}>
        <group rotation={uprightRotation(up)}>
          <primitive object={scene} />
        </group>
      </group>
      <FitToView target={group} request={0} />
      <FrameProbe onDrawn={onDrawn} />
    </>
  );
}

/**
 * One model's 3D preview drawn by the page's shared canvas ({@link SharedCanvasProvider}).
 * The file loads only once the preview is near the window; the thumbnail stands in until the
 * model has been drawn, and stays where WebGL is missing or the file cannot be read. Drag to
 * orbit (the wheel keeps scrolling the page). Display only: it never asks the API for anything.
 * Its element gets `data-viewer-ready="true"` once the model has been drawn onto it (off screen too).
 */
export function SharedModelPreview({
  url,
  label,
  thumbnailUrl,
  onNearViewport,
  nearMargin = '200px',
  onReady,
  className,
  up = 'y',
}: SharedModelPreviewProps) {
  const canvas = useSharedCanvas();
  const element = useRef<HTMLDivElement>(null);
  // Without IntersectionObserver (old browsers, tests) every preview counts as near.
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState<{ url: string; gltf: GLTF } | null>(null);
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
      { rootMargin: nearMargin },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [near, nearMargin]);

  useEffect(() => {
    if (near) reportNear();
  }, [near]);

  const draw3d = canvas.webgl && canvas.alive;
  const getting = draw3d && near && !!url && loaded?.url !== url;
  useEffect(() => {
    if (!getting || !url) return;
    let current = true;
    loadViewerGltf(url).then(
      (gltf) => current && setLoaded({ url, gltf }),
      (e: unknown) => current && setError((previous) => previous ?? (e instanceof Error ? e : new Error(String(e)))),
    );
    return () => {
      current = false;
    };
  }, [getting, url, attempt]);
  const gltf = loaded && loaded.url === url ? loaded.gltf : null;

  const onDrawn = useCallback(() => {
    setReady(true);
    onReady?.();
  }, [onReady]);

  const status: Status = !draw3d ? 'fallback' : error ? 'error' : ready ? 'ready' : near && url ? 'loading' : 'waiting';
  const shown = draw3d && !error ? gltf : null;

  return (
    <div
      ref={element}
      className={`shared-preview${className ? ` ${className}` : ''}`}
      role="img"
      aria-label={label}
      data-viewer-ready={status === 'ready' ? 'true' : undefined}
      data-viewer-status={status}
    >
      {/* Low priority: the stand-in must not hold up the 3D previews' files (six connections a host). */}
      {thumbnailUrl && status !== 'ready' && (
        <img className="shared-preview__thumb" src={thumbnailUrl} alt="" loading="lazy" fetchPriority="low" />
      )}
      {shown && (
        <SharedView>
          <StudioLights />
          <OrbitControls enableZoom={false} enablePan={false} />
          <ViewerBoundary key={`${url}#${attempt}`} onError={(e) => setError((previous) => previous ?? e)}>
            <PreviewModel gltf={shown} onDrawn={onDrawn} up={up} />
          </ViewerBoundary>
        </SharedView>
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
              setLoaded(null);
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </span>
      )}
      {status === 'fallback' && thumbnailUrl && (
        <span className="shared-preview__status">
          {canvas.webgl ? 'Thumbnail (3D graphics stopped; reload to restart them)' : 'Thumbnail (no 3D in this browser)'}
        </span>
      )}
    </div>
  );
}
