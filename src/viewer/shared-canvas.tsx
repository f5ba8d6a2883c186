import { createContext, useContext, useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal, useFrame, useThree, type RootState } from '@react-three/fiber';
import { PerspectiveCamera, Scene } from 'three';
import tunnel from 'tunnel-rat';
import { LeanCanvas } from './lean-canvas';
import { warmViewerProgram } from './scene-parts';
import { SharedViewContext, ViewEntry } from './view-entry';
import { webglAvailable } from './webgl';
import './viewer.css';

interface SharedCanvasInternals {
  views: Set<ViewEntry>;
  tunnel: ReturnType<typeof tunnel>;
}

export interface SharedCanvasState {
  /** False when this browser has no WebGL: previews show their thumbnail instead. */
  webgl: boolean;
  /** False once the canvas's WebGL context was lost; previews fall back to thumbnails. */
  alive: boolean;
}

const SharedCanvasContext = createContext<(SharedCanvasState & SharedCanvasInternals) | null>(null);

function useProvided(): SharedCanvasState & SharedCanvasInternals {
  const state = useContext(SharedCanvasContext);
  if (!state) throw new Error('3D previews need a <SharedCanvasProvider> around them.');
  return state;
}

/** The page's shared canvas; previews outside a {@link SharedCanvasProvider} are a mistake. */
export function useSharedCanvas(): SharedCanvasState {
  return useProvided();
}

/** Device pixels per CSS pixel of the copies: sharp on high-density screens, at most twice the work. */
const pixelRatio = () => Math.min(2, Math.max(1, window.devicePixelRatio || 1));

/**
 * Most of an animation frame spent drawing views before the rest wait for the next one: where
 * drawing is done in software, a page of new previews would otherwise hold the page for a second.
 */
const drawBudgetMs = 60;

/**
 * Draws the views that changed into the corner of the hidden canvas and copies each onto the
 * view's own 2D canvas, nearest the window first. Views that did not change are not drawn again:
 * their copies keep the picture, so scrolling and layout cost no WebGL work at all.
 */
function CopyChangedViews({ views }: { views: Set<ViewEntry> }) {
  useFrame(({ gl, invalidate }) => {
    const started = performance.now();
    const ratio = pixelRatio();
    const stale = [];
    for (const view of views) {
      if (!view.state) continue;
      const { scene, camera, size } = view.state();
      const width = Math.max(1, Math.round(size.width * ratio));
      const height = Math.max(1, Math.round(size.height * ratio));
      if (camera instanceof PerspectiveCamera && camera.aspect !== width / height) {
        camera.aspect = width / height;
        camera.updateProjectionMatrix();
      }
      if (view.stale(camera, width, height)) stale.push({ view, scene, camera, width, height, distance: view.distanceFromWindow() });
    }
    stale.sort((a, b) => a.distance - b.distance);
    const canvas = gl.domElement;
    for (const [i, { view, scene, camera, width, height }] of stale.entries()) {
      if (i > 0 && performance.now() - started > drawBudgetMs) {
        invalidate();
        break;
      }
      if (canvas.width < width || canvas.height < height) gl.setSize(Math.max(width, canvas.width), Math.max(height, canvas.height), false);
      // WebGL counts rows from the bottom: this is the canvas's top-left corner, where drawImage reads.
      const bottom = canvas.height - height;
      gl.setViewport(0, bottom, width, height);
      gl.setScissor(0, bottom, width, height);
      gl.setScissorTest(true);
      gl.render(scene, camera);
      gl.setScissorTest(false);
      view.copyFrom(canvas, camera, width, height);
    }
  }, 1);
  return null;
}

/** Pointer position over a view's element, for R3F's raycaster (clicks on models). */
function computeFor(target: HTMLCanvasElement) {
  return (event: { target: EventTarget | null; clientX: number; clientY: number }, state: RootState) => {
    if (event.target !== target) return;
    const rect = target.getBoundingClientRect();
    state.pointer.set(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
    state.raycaster.setFromCamera(state.pointer, state.camera);
  };
}

/** Inside the canvas: a view's own scene and camera (an R3F portal), registered for copying. */
function ViewPortal({
  target,
  size,
  views,
  children,
}: {
  target: HTMLCanvasElement;
  size: { width: number; height: number };
  views: Set<ViewEntry>;
  children: ReactNode;
}) {
  const rootInvalidate = useThree((s) => s.invalidate);
  const [scene] = useState(() => new Scene());
  const [camera] = useState(() => new PerspectiveCamera(35, size.width / size.height, 0.01, 1000));
  const [entry] = useState(() => new ViewEntry(target));
  // Anything in the view that asks for a frame (controls, a material, a model arriving) marks it changed.
  const invalidate = useMemo(
    () => () => {
      entry.changed();
      rootInvalidate();
    },
    [entry, rootInvalidate],
  );
  return createPortal(
    <ViewRegistration entry={entry} views={views} size={size}>
      <SharedViewContext.Provider value={entry}>{children}</SharedViewContext.Provider>
    </ViewRegistration>,
    scene,
    { camera, invalidate, size: { ...size, top: 0, left: 0 }, events: { compute: computeFor(target), priority: 1, connected: target } },
  );
}

function ViewRegistration({
  entry,
  views,
  size,
  children,
}: {
  entry: ViewEntry;
  views: Set<ViewEntry>;
  size: { width: number; height: number };
  children: ReactNode;
}) {
  const get = useThree((s) => s.get);
  const set = useThree((s) => s.set);
  useLayoutEffect(() => {
    entry.attach(get);
    views.add(entry);
    return () => {
      views.delete(entry);
    };
  }, [entry, views, get]);
  useLayoutEffect(() => {
    set({ size: { ...size, top: 0, left: 0 } });
    get().invalidate();
  }, [size, set, get]);
  return children;
}

/**
 * One view of the shared canvas: a 2D canvas filling its parent element, onto which the scene
 * given as children is drawn whenever it changes. Drag on it to orbit (with OrbitControls inside).
 */
export function SharedView({ children }: { children: ReactNode }) {
  const shared = useProvided();
  const key = useId();
  const [target, setTarget] = useState<HTMLCanvasElement | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);

  useLayoutEffect(() => {
    if (!target) return;
    const measure = () => {
      const { width, height } = target.getBoundingClientRect();
      setSize((s) => (s && s.width === width && s.height === height ? s : { width, height }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(target);
    return () => observer.disconnect();
  }, [target]);

  const { In } = shared.tunnel;
  return (
    <>
      <canvas ref={setTarget} className="shared-preview__view" />
      {target && size && size.width > 0 && size.height > 0 && (
        <In>
          <ViewPortal key={key} target={target} size={size} views={shared.views}>
            {children}
          </ViewPortal>
        </In>
      )}
    </>
  );
}

let webglProbe: boolean | undefined;
/** Probed once per page load: the probe makes (and drops) a context of its own. */
function webglOnce(): boolean {
  webglProbe ??= webglAvailable();
  return webglProbe;
}

/**
 * One WebGL context for every 3D preview inside it, however many previews (browsers allow a
 * page only a handful of contexts and drop the oldest beyond that). Its canvas is hidden: each preview ({@link SharedView}) is drawn in
 * a corner of it and copied onto the preview's own 2D canvas, only when that preview changed.
 * Nothing the size of the window is composited over the page, so the page's own changes
 * (text, thumbnails, scrolling) stay cheap where drawing is done in software; the copies move
 * with the page like images and need no drawing to scroll.
 */
export function SharedCanvasProvider({ children }: { children: ReactNode }) {
  const [webgl] = useState(webglOnce);
  const [alive, setAlive] = useState(true);
  const wrapper = useRef<HTMLDivElement>(null);
  const [internals] = useState<SharedCanvasInternals>(() => ({ views: new Set(), tunnel: tunnel() }));
  const value = useMemo(() => ({ webgl, alive, ...internals }), [webgl, alive, internals]);
  const { Out } = internals.tunnel;

  return (
    <SharedCanvasContext.Provider value={value}>
      <div ref={wrapper} className="shared-canvas">
        {children}
        {webgl && alive && (
          <LeanCanvas
            className="shared-canvas__canvas"
            size={{ width: 640, height: 480 }}
            eventSource={wrapper}
            frameloop="demand"
            dpr={1}
            // A stencil buffer for section caps (compare-view.tsx); three.js asks for none by default.
            gl={{ antialias: true, alpha: true, stencil: true }}
            onCreated={({ gl, camera }) => {
              warmViewerProgram(gl, camera);
              const canvas = gl.domElement;
              canvas.dataset.sharedCanvas = 'true';
              canvas.addEventListener(
                'webglcontextlost',
                () => {
                  if (canvas.isConnected) setAlive(false);
                },
                { once: true },
              );
            }}
          >
            <CopyChangedViews views={internals.views} />
            <Out />
          </LeanCanvas>
        )}
      </div>
    </SharedCanvasContext.Provider>
  );
}
