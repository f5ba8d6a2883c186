import { Suspense, useCallback, useEffect, useId, useMemo, useRef, useState, type RefObject } from 'react';
import { OrbitControls } from './orbit-controls';
import { useThree } from '@react-three/fiber';
import { Matrix4, Mesh, MeshStandardMaterial, type Group, type Object3D } from 'three';
import { forgetViewerGltf, useViewerGltf, viewerUnits } from './gltf';
import { LeanCanvas } from './lean-canvas';
import { describe, ViewerBoundary } from './viewer-boundary';
import { FitToView, FrameProbe, KeyboardOrbit, standardViews, StudioLights, uprightRotation, type StandardView } from './scene-parts';
import type { UpAxis } from '../contract/file-types';

const viewNames: Record<StandardView, string> = { front: 'Front', top: 'Top', right: 'Right', iso: 'Iso' };
import { webglAvailable } from './webgl';
import './viewer.css';

export interface ModelPreviewProps {
  /** Address of the model's viewer GLB (meshopt-compressed glTF). Fetched by the loader only, without credentials. */
  url: string;
  /** Accessible name of the view, e.g. "3D preview of bracket". */
  label: string;
  /** Shown instead of the 3D view when WebGL is missing or the file cannot be shown. */
  fallbackImageUrl?: string | null;
  /** Called once the model has been drawn (after the first frame with the model in it). */
  onReady?: () => void;
  /** Called when the file cannot be loaded or WebGL fails. */
  onError?: (error: Error) => void;
  className?: string;
  /** A part (or sub-assembly) of this assembly drawn highlighted where it is placed; the rest is ghosted. */
  highlight?: PartHighlight | null;
  /** The axis the model stands on (default y, glTF's own). */
  up?: UpAxis;
}

export interface PartHighlight {
  /** The part's own viewer GLB. */
  url: string;
  /** Column-major 4×4 placements in the assembly's own units, one per occurrence. */
  placements: readonly number[][];
  /** Hide the rest of the assembly instead of ghosting it. */
  isolate: boolean;
}

const ghost = new MeshStandardMaterial({
  color: '#9aa3b2',
  transparent: true,
  opacity: 0.15,
  depthWrite: false,
  metalness: 0.1,
  roughness: 0.7,
});
const highlighted = new MeshStandardMaterial({ color: '#f08a24', metalness: 0.1, roughness: 0.55 });

/** A copy of a loaded scene drawn with another material (the loaded one is shared by every view). */
function restyled(scene: Object3D, material: MeshStandardMaterial): Object3D {
  const copy = scene.clone(true);
  copy.traverse((o) => {
    if (o instanceof Mesh) o.material = material;
  });
  return copy;
}

function Model({ url, shown }: { url: string; shown: 'solid' | 'ghost' | 'hidden' }) {
  const gltf = useViewerGltf(url);
  const ghosted = useMemo(() => restyled(gltf.scene, ghost), [gltf.scene]);
  if (shown === 'hidden') return null;
  return <primitive object={shown === 'ghost' ? ghosted : gltf.scene} />;
}

/**
 * The part at each of its placements. The part's file is in metres of its own unit; a placement is
 * in the assembly's unit, so each copy is scaled back to the part's unit, placed, then scaled to
 * the assembly's metres.
 */
function Highlight({ assemblyUrl, highlight }: { assemblyUrl: string; highlight: PartHighlight }) {
  const assembly = useViewerGltf(assemblyUrl);
  const part = useViewerGltf(highlight.url);
  const copies = useMemo(() => {
    const a = viewerUnits(assembly.scene).metresPerUnit;
    const p = 1 / viewerUnits(part.scene).metresPerUnit;
    const toAssembly = new Matrix4().makeScale(a, a, a);
    const fromPart = new Matrix4().makeScale(p, p, p);
    return highlight.placements.map((placement) => {
      const holder = restyled(part.scene, highlighted);
      const wrapper = new Matrix4().multiplyMatrices(toAssembly, new Matrix4().fromArray(placement)).multiply(fromPart);
      return { object: holder, matrix: wrapper };
    });
  }, [assembly.scene, part.scene, highlight.placements]);
  return (
    <>
      {copies.map(({ object, matrix }, i) => (
        <group key={i} matrix={matrix} matrixAutoUpdate={false}>
          <primitive object={object} />
        </group>
      ))}
    </>
  );
}

function Scene({
  url,
  fitRequest,
  view,
  keysRef,
  onDrawn,
  highlight,
  up,
}: {
  up: UpAxis;
  url: string;
  fitRequest: number;
  view: StandardView;
  keysRef: RefObject<((key: string) => boolean) | null>;
  onDrawn: () => void;
  highlight: PartHighlight | null;
}) {
  const group = useRef<Group>(null);
  const invalidate = useThree((s) => s.invalidate);
  useEffect(() => invalidate(), [invalidate, highlight]);
  return (
    <>
      <color attach="background" args={['#e9edf3']} />
      <StudioLights />
      <OrbitControls />
      <Suspense fallback={null}>
        <group ref={group}>
          <group rotation={uprightRotation(up)}>
            <Model url={url} shown={highlight ? (highlight.isolate ? 'hidden' : 'ghost') : 'solid'} />
            {highlight && (
              <Suspense fallback={null}>
                <Highlight assemblyUrl={url} highlight={highlight} />
              </Suspense>
            )}
          </group>
        </group>
        <FitToView target={group} request={fitRequest} direction={standardViews[view]} />
        <FrameProbe onDrawn={onDrawn} />
      </Suspense>
      <KeyboardOrbit handleRef={keysRef} />
    </>
  );
}

/**
 * A 3D view of one model's viewer GLB: studio lighting (no downloads), fit to view, orbit and
 * zoom, a "Fit" button. Display only: it takes an address and never asks the API for anything.
 * Its wrapper gets `data-viewer-ready="true"` once the model has been drawn.
 */
export function ModelPreview({ url, label, fallbackImageUrl, onReady, onError, className, highlight = null, up = 'y' }: ModelPreviewProps) {
  const [webgl] = useState(webglAvailable);
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<Error | null>(() => (webgl ? null : new Error('WebGL is not available in this browser.')));
  const [attempt, setAttempt] = useState(0);
  const [fitRequest, setFitRequest] = useState(0);
  const [view, setView] = useState<StandardView>('iso');
  const keysRef = useRef<((key: string) => boolean) | null>(null);
  const helpId = useId();
  const [shownUrl, setShownUrl] = useState(url);
  if (shownUrl !== url) {
    setShownUrl(url);
    setReady(false);
    if (webgl) setError(null);
  }

  const onDrawn = useCallback(() => {
    setReady(true);
    onReady?.();
  }, [onReady]);
  const fail = useCallback(
    (e: Error) => {
      // The first failure is the one to explain (a failed load also drops the context afterwards).
      setError((previous) => previous ?? e);
      onError?.(e);
    },
    [onError],
  );

  const retry = () => {
    forgetViewerGltf(url);
    setError(null);
    setReady(false);
    setAttempt((n) => n + 1);
  };

  const status = error ? 'error' : ready ? 'ready' : 'loading';
  return (
    <div className={`viewer${className ? ` ${className}` : ''}`} data-viewer-ready={ready ? 'true' : undefined} data-viewer-status={status}>
      {error ? (
        <div className="viewer__fallback" role="img" aria-label={label}>
          {fallbackImageUrl && <img src={fallbackImageUrl} alt="" className="viewer__fallback-image" />}
          <div className="viewer__message" role="alert">
            <p>{describe(error)}</p>
            {webgl ? (
              <button type="button" className="button button--small" onClick={retry}>
                Try again
              </button>
            ) : (
              fallbackImageUrl && <p className="muted">Showing the thumbnail instead.</p>
            )}
          </div>
        </div>
      ) : (
        <>
          <div
            className="viewer__canvas"
            role="application"
            aria-roledescription="3D view"
            aria-label={label}
            aria-describedby={helpId}
            tabIndex={0}
            onKeyDown={(event) => {
              if (event.key === 'f' || event.key === 'Home') {
                setFitRequest((n) => n + 1);
                event.preventDefault();
              } else if (keysRef.current?.(event.key)) event.preventDefault();
            }}
          >
            <span id={helpId} className="visually-hidden">
              Arrow keys turn the model, plus and minus zoom, F fits it in the view.
            </span>
            <ViewerBoundary key={`${url}#${attempt}`} onError={fail}>
              <LeanCanvas
                frameloop="demand"
                dpr={[1, 2]}
                gl={{ preserveDrawingBuffer: true, antialias: true }}
                camera={{ fov: 35, position: [3, 2, 4], near: 0.01, far: 1000 }}
                onCreated={({ gl }) => {
                  const canvas = gl.domElement;
                  canvas.addEventListener(
                    'webglcontextlost',
                    () => {
                      // Leaving the page also drops the context, after the canvas has left the document.
                      if (canvas.isConnected) fail(new Error('The WebGL context was lost.'));
                    },
                    { once: true },
                  );
                }}
              >
                <Scene url={url} fitRequest={fitRequest} view={view} keysRef={keysRef} onDrawn={onDrawn} highlight={highlight} up={up} />
              </LeanCanvas>
            </ViewerBoundary>
          </div>
          {!ready && (
            <div className="viewer__loading" role="status">
              <span className="spinner" aria-hidden="true" />
              Loading 3D preview…
            </div>
          )}
          <div className="viewer__tools" role="group" aria-label="View">
            {(['front', 'top', 'right', 'iso'] as const).map((v) => (
              <button
                key={v}
                type="button"
                className="button button--small"
                aria-pressed={view === v}
                disabled={!ready}
                onClick={() => {
                  setView(v);
                  setFitRequest((n) => n + 1);
                }}
              >
                {viewNames[v]}
              </button>
            ))}
            <button type="button" className="button button--small" onClick={() => setFitRequest((n) => n + 1)} disabled={!ready}>
              Fit
            </button>
          </div>
        </>
      )}
    </div>
  );
}
