import { Component, Suspense, useCallback, useLayoutEffect, useRef, useState, type ErrorInfo, type ReactNode, type RefObject } from 'react';
import { Canvas, useFrame, useLoader, useThree } from '@react-three/fiber';
import { OrbitControls } from '@react-three/drei';
import { Box3, PerspectiveCamera, Sphere, Vector3, type Group } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
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
}

/** Seen from the front-right and above: shows three faces of most parts. */
const viewDirection = new Vector3(1, 0.75, 1.25).normalize();

function extendLoader(loader: GLTFLoader) {
  loader.setMeshoptDecoder(MeshoptDecoder);
}

function Model({ url }: { url: string }) {
  const gltf = useLoader(GLTFLoader, url, extendLoader);
  return <primitive object={gltf.scene} />;
}

/**
 * Puts the camera where the whole object fits the view, at once (no animation, so a pixel
 * check right after "ready" sees the final picture), and orbits around the object's centre.
 */
function FitToView({ target, request }: { target: RefObject<Group | null>; request: number }) {
  const get = useThree((s) => s.get);
  const size = useThree((s) => s.size);
  const controlsReady = useThree((s) => s.controls !== null);

  useLayoutEffect(() => {
    // Read from the store here: the camera and controls are three.js objects we move on purpose.
    const { camera, invalidate } = get();
    const controls = get().controls as unknown as { target: Vector3; update: () => void } | null;
    const object = target.current;
    if (!object || !(camera instanceof PerspectiveCamera)) return;
    const box = new Box3().setFromObject(object);
    if (box.isEmpty()) return;
    const sphere = box.getBoundingSphere(new Sphere());
    const radius = sphere.radius > 0 ? sphere.radius : 1;
    const vertical = (camera.fov * Math.PI) / 360;
    const horizontal = Math.atan(Math.tan(vertical) * (size.width / Math.max(1, size.height)));
    const distance = (1.15 * radius) / Math.sin(Math.min(vertical, horizontal));
    camera.position.copy(sphere.center).addScaledVector(viewDirection, distance);
    camera.near = Math.max(distance / 1000, (distance - radius) / 10);
    camera.far = distance + radius * 10;
    camera.up.set(0, 1, 0);
    camera.lookAt(sphere.center);
    camera.updateProjectionMatrix();
    if (controls) {
      controls.target.copy(sphere.center);
      controls.update();
    }
    invalidate();
  }, [target, request, get, size, controlsReady]);
  return null;
}

/** Reports once that a frame with the model has been drawn; sets no state per frame. */
function FrameProbe({ onDrawn }: { onDrawn: () => void }) {
  const frames = useRef(0);
  useFrame((state) => {
    if (frames.current < 0) return;
    frames.current += 1;
    // Frame callbacks run before drawing: on the second one, the first is on screen.
    if (frames.current >= 2) {
      frames.current = -1;
      onDrawn();
    } else {
      state.invalidate();
    }
  });
  return null;
}

function Scene({ url, fitRequest, onDrawn }: { url: string; fitRequest: number; onDrawn: () => void }) {
  const group = useRef<Group>(null);
  return (
    <>
      <color attach="background" args={['#e9edf3']} />
      <hemisphereLight args={['#ffffff', '#7d879a', 1.4]} />
      <directionalLight position={[5, 8, 6]} intensity={1.8} />
      <directionalLight position={[-6, 2, -5]} intensity={0.7} />
      <directionalLight position={[0, -6, 2]} intensity={0.35} />
      <OrbitControls makeDefault enableDamping={false} />
      <Suspense fallback={null}>
        <group ref={group}>
          <Model url={url} />
        </group>
        <FitToView target={group} request={fitRequest} />
        <FrameProbe onDrawn={onDrawn} />
      </Suspense>
    </>
  );
}

interface BoundaryProps {
  onError: (error: Error) => void;
  children: ReactNode;
}

/** Catches what the canvas throws: a file that cannot be loaded or parsed, or WebGL failing. */
class ViewerBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error, _info: ErrorInfo) {
    this.props.onError(error);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

function describe(error: Error): string {
  if (/webgl|context/i.test(error.message)) return 'This browser could not start 3D graphics (WebGL).';
  if (/404|not found/i.test(error.message)) return 'The 3D file is not available.';
  return 'The 3D file could not be read.';
}

/**
 * A 3D view of one model's viewer GLB: studio lighting (no downloads), fit to view, orbit and
 * zoom, a "Fit" button. Display only: it takes an address and never asks the API for anything.
 * Its wrapper gets `data-viewer-ready="true"` once the model has been drawn.
 */
export function ModelPreview({ url, label, fallbackImageUrl, onReady, onError, className }: ModelPreviewProps) {
  const [webgl] = useState(webglAvailable);
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<Error | null>(() => (webgl ? null : new Error('WebGL is not available in this browser.')));
  const [attempt, setAttempt] = useState(0);
  const [fitRequest, setFitRequest] = useState(0);
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
    useLoader.clear(GLTFLoader, url);
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
          <div className="viewer__canvas" role="img" aria-label={label}>
            <ViewerBoundary key={`${url}#${attempt}`} onError={fail}>
              <Canvas
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
                <Scene url={url} fitRequest={fitRequest} onDrawn={onDrawn} />
              </Canvas>
            </ViewerBoundary>
          </div>
          {!ready && (
            <div className="viewer__loading" role="status">
              <span className="spinner" aria-hidden="true" />
              Loading 3D preview…
            </div>
          )}
          <div className="viewer__tools">
            <button type="button" className="button button--small" onClick={() => setFitRequest((n) => n + 1)} disabled={!ready}>
              Fit
            </button>
          </div>
        </>
      )}
    </div>
  );
}
