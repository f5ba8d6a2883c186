import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useFrame, useThree } from '@react-three/fiber';
import { View } from '@react-three/drei';
import { LeanCanvas } from './lean-canvas';
import { webglAvailable } from './webgl';
import './viewer.css';

export interface SharedCanvasState {
  /** False when this browser has no WebGL: previews show their thumbnail instead. */
  webgl: boolean;
  /** Asks for one new frame (after something moved that the canvas cannot see, e.g. layout). */
  invalidate: () => void;
  /** False once the canvas's WebGL context was lost; previews fall back to thumbnails. */
  alive: boolean;
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
export const viewPriority = 2;

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
  const [state] = useState<SharedCanvasState>(() => ({ webgl, alive: true, invalidate: () => invalidateRef.current() }));
  const value = alive ? state : { ...state, alive: false };

  useEffect(() => {
    if (!webgl) return;
    const ask = () => invalidateRef.current();
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
  }, [webgl]);

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
            gl={{ preserveDrawingBuffer: true, antialias: true, alpha: true }}
            camera={{ fov: 35, position: [3, 2, 4], near: 0.01, far: 1000 }}
            onCreated={({ gl }) => {
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
