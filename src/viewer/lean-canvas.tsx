import { Suspense, useEffect, useLayoutEffect, useRef, useState, type CSSProperties, type ReactNode, type RefObject } from 'react';
import { createRoot, events, extend, type ReconcilerRoot, type RenderProps, type RootState } from '@react-three/fiber';
import { Color, DirectionalLight, Group, HemisphereLight, Mesh, MeshBasicMaterial, PerspectiveCamera, SphereGeometry } from 'three';
import { ViewerBoundary } from './viewer-boundary';

// Only the three.js classes our scenes use as JSX elements. R3F's own <Canvas> registers the whole
// THREE namespace (extend(THREE)), which keeps all of three.js in the bundle; this catalogue lets the
// bundler drop what no viewer uses (the matches page's budget: ≤ 250 KB gzip beyond the shell).
extend({ Color, DirectionalLight, Group, HemisphereLight, Mesh, MeshBasicMaterial, PerspectiveCamera, SphereGeometry });

type Size = { width: number; height: number; top: number; left: number };

export interface LeanCanvasProps {
  children: ReactNode;
  className?: string;
  style?: CSSProperties;
  /** Element whose pointer events drive the scene (views drawn through this canvas need the page's wrapper). */
  eventSource?: RefObject<HTMLElement | null>;
  frameloop?: RenderProps<HTMLCanvasElement>['frameloop'];
  dpr?: RenderProps<HTMLCanvasElement>['dpr'];
  gl?: RenderProps<HTMLCanvasElement>['gl'];
  camera?: RenderProps<HTMLCanvasElement>['camera'];
  /** Drawing-buffer size in CSS pixels, for a canvas that is never shown; otherwise it fills its parent. */
  size?: { width: number; height: number };
  onCreated?: (state: RootState) => void;
  /** Anything thrown inside the scene (a file that cannot be read, WebGL failing). */
  onError?: (error: Error) => void;
}

/** R3F's <Canvas>, reduced to what the viewers need, on `createRoot` with a small catalogue. */
export function LeanCanvas({
  children,
  className,
  style,
  eventSource,
  frameloop,
  dpr,
  gl,
  camera,
  size: fixedSize,
  onCreated,
  onError,
}: LeanCanvasProps) {
  const divRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const root = useRef<ReconcilerRoot<HTMLCanvasElement> | null>(null);
  const [size, setSize] = useState<Size | null>(fixedSize ? { ...fixedSize, top: 0, left: 0 } : null);
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  if (error) throw error;

  useLayoutEffect(() => {
    const element = divRef.current;
    if (!element || fixedSize) return;
    const measure = () => {
      const r = element.getBoundingClientRect();
      setSize((s) =>
        s && s.width === r.width && s.height === r.height && s.top === r.top && s.left === r.left
          ? s
          : { width: r.width, height: r.height, top: r.top, left: r.left },
      );
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
    // A fixed size is fixed for the canvas's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !size || size.width <= 0 || size.height <= 0) return;
    root.current ??= createRoot(canvas);
    root.current
      .configure({
        gl,
        frameloop,
        dpr,
        camera,
        size,
        events,
        onCreated: (state) => {
          state.events.connect?.(eventSource?.current ?? divRef.current);
          onCreated?.(state);
        },
      })
      .then(
        () => setReady(true),
        (e: unknown) => setError(e instanceof Error ? e : new Error(String(e))),
      );
    // Configuration is applied once per size; the other props are fixed for a canvas's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [size]);

  useLayoutEffect(() => {
    if (!ready || !root.current) return;
    root.current.render(
      <ViewerBoundary onError={(e) => (onError ? onError(e) : setError(e))}>
        <Suspense fallback={null}>{children}</Suspense>
      </ViewerBoundary>,
    );
  });

  useEffect(
    () => () => {
      root.current?.unmount();
      root.current = null;
    },
    [],
  );

  return (
    <div
      ref={divRef}
      className={className}
      style={{
        position: 'relative',
        width: '100%',
        height: '100%',
        overflow: 'hidden',
        pointerEvents: eventSource ? 'none' : 'auto',
        ...style,
      }}
    >
      <canvas ref={canvasRef} style={{ display: 'block', width: '100%', height: '100%' }} />
    </div>
  );
}
