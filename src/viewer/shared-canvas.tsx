import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useFrame, useThree } from '@react-three/fiber';
import { View } from '@react-three/drei';
import { LeanCanvas } from './lean-canvas';
import { warmViewerProgram } from './scene-parts';
import { webglAvailable } from './webgl';
import './viewer.css';

export interface SharedCanvasState {
  /** False when this browser has no WebGL: previews show their thumbnail instead. */
  webgl: boolean;
  /** Asks for one new frame (after something moved that the canvas cannot see, e.g. layout). */
  invalidate: () => void;
  /** False once the canvas's WebGL context was lost; previews fall back to thumbnails. */
  alive: boolean;
  /** A preview starts getting its model (address and file); call the result once it has it or gave up. */
  loading: () => () => void;
  /**
   * Shows a loaded model together with the others still loading ({@link revealWaitMs} at most):
   * where drawing is slow (software WebGL) each frame costs much the same however little changed,
   * so models arriving one by one would each pay for a frame of the whole canvas. Returns a cancel.
   */
  reveal: (show: () => void) => () => void;
  /** A preview has a view on the canvas; call the result when it no longer has. */
  drawing: () => () => void;
}

/** The longest a loaded model waits for the page's other previews before it is shown anyway. */
export const revealWaitMs = 400;

/** The bookkeeping behind {@link SharedCanvasState.loading}, `reveal` and `drawing` (plain, no React state). */
function previewCoordinator() {
  let loading = 0;
  let views = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waiting = new Set<() => void>();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const shows = [...waiting];
    waiting.clear();
    for (const show of shows) show(); // set in one task: React commits them together
  };
  // Deferred: a preview that swaps one load for the next (address, then file) is not "done".
  const flushIfIdle = () => queueMicrotask(() => loading === 0 && waiting.size > 0 && flush());
  return {
    views: () => views,
    loading: () => {
      loading++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        loading--;
        flushIfIdle();
      };
    },
    reveal: (show: () => void) => {
      waiting.add(show);
      timer ??= setTimeout(flush, revealWaitMs);
      flushIfIdle();
      return () => waiting.delete(show);
    },
    /** Returns the undo, which answers whether that was the last view. */
    drawing: () => {
      views++;
      return () => --views === 0;
    },
  };
}

const SharedCanvasContext = createContext<SharedCanvasState | null>(null);

/** The page's shared canvas; previews outside a {@link SharedCanvasProvider} are a mistake. */
export function useSharedCanvas(): SharedCanvasState {
  const state = useContext(SharedCanvasContext);
  if (!state) throw new Error('3D previews need a <SharedCanvasProvider> around them.');
  return state;
}

/** Views render into scissored parts of the canvas; what lies between them is cleared every frame. */
const clearPriority = 1;
/** Priority (and event priority) of every preview view: after the clear. */
const viewPriority = 2;

/**
 * One view of the shared canvas (drei `View`) drawn over its parent element; while any is mounted,
 * scrolling and layout changes redraw the canvas.
 */
export function SharedView({ children }: { children: ReactNode }) {
  const { drawing } = useSharedCanvas();
  useEffect(() => drawing(), [drawing]);
  return (
    <View className="shared-preview__view" index={viewPriority}>
      {children}
    </View>
  );
}

/** Clears the whole canvas (transparent) before the views draw their parts of it. */
function ClearEachFrame() {
  useFrame(({ gl }) => {
    gl.setScissorTest(false);
    gl.setClearColor(0x000000, 0);
    gl.clear(true, true, true);
  }, clearPriority);
  return null;
}

/** Hands the canvas's `invalidate` out to the page (scrolling, resizing and layout ask for a frame). */
function InvalidateBridge({ onInvalidate }: { onInvalidate: (invalidate: () => void) => void }) {
  const invalidate = useThree((s) => s.invalidate);
  useEffect(() => onInvalidate(invalidate), [invalidate, onInvalidate]);
  return null;
}

let webglProbe: boolean | undefined;
/** Probed once per page load: the probe makes (and drops) a context of its own. */
function webglOnce(): boolean {
  webglProbe ??= webglAvailable();
  return webglProbe;
}

/**
 * One WebGL canvas for every 3D preview inside it (architecture.md: one context per page,
 * however many previews). The canvas is fixed over the window, lets pointer events through,
 * and draws each preview ({@link SharedModelPreview}, drei `View`) into the rectangle of its
 * placeholder element; it only draws when asked (scroll, resize, orbit, a model arriving).
 * The app's sticky header (z-index 5) stays above it.
 */
export function SharedCanvasProvider({ children }: { children: ReactNode }) {
  const [webgl] = useState(webglOnce);
  const [alive, setAlive] = useState(true);
  const wrapper = useRef<HTMLDivElement>(null);
  const invalidateRef = useRef<() => void>(() => undefined);
  const [coordinator] = useState(previewCoordinator);
  const [state] = useState<SharedCanvasState>(() => ({
    webgl,
    alive: true,
    invalidate: () => invalidateRef.current(),
    loading: coordinator.loading,
    reveal: coordinator.reveal,
    drawing: () => {
      const stop = coordinator.drawing();
      return () => {
        if (stop()) invalidateRef.current(); // clears what the last view drew
      };
    },
  }));
  const value = alive ? state : { ...state, alive: false };

  useEffect(() => {
    if (!webgl) return;
    // Nothing on the canvas: layout changes need no frame (each costs a whole canvas where drawing is slow).
    const ask = () => coordinator.views() > 0 && invalidateRef.current();
    window.addEventListener('scroll', ask, { capture: true, passive: true });
    window.addEventListener('resize', ask);
    // Layout that moves previews without scrolling (filters opening, lists growing).
    const observer = new ResizeObserver(ask);
    if (wrapper.current) observer.observe(wrapper.current);
    return () => {
      window.removeEventListener('scroll', ask, { capture: true });
      window.removeEventListener('resize', ask);
      observer.disconnect();
    };
  }, [webgl, coordinator]);

  return (
    <SharedCanvasContext.Provider value={value}>
      <div ref={wrapper} className="shared-canvas">
        {children}
        {webgl && alive && (
          <LeanCanvas
            className="shared-canvas__canvas"
            eventSource={wrapper}
            frameloop="demand"
            dpr={[1, 2]}
            // No preserveDrawingBuffer: every frame draws every view again, so keeping the last
            // frame's pixels would only cost a copy per frame (screenshots read the composited page).
            gl={{ antialias: true, alpha: true, stencil: true }}
            camera={{ fov: 35, position: [3, 2, 4], near: 0.01, far: 1000 }}
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
            <InvalidateBridge onInvalidate={(fn) => (invalidateRef.current = fn)} />
            <ClearEachFrame />
            <View.Port />
          </LeanCanvas>
        )}
      </div>
    </SharedCanvasContext.Provider>
  );
}
