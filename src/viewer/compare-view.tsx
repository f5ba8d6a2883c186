import { Suspense, useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { useThree, type ThreeEvent } from '@react-three/fiber';
import { OrbitControls } from './orbit-controls';
import {
  AlwaysStencilFunc,
  BackSide,
  BufferAttribute,
  BufferGeometry,
  Color,
  DecrementWrapStencilOp,
  DoubleSide,
  FrontSide,
  IncrementWrapStencilOp,
  Line,
  LineBasicMaterial,
  Matrix4,
  MeshBasicMaterial,
  MeshStandardMaterial,
  NotEqualStencilFunc,
  Object3D,
  PerspectiveCamera,
  Plane,
  PlaneGeometry,
  ReplaceStencilOp,
  type Side,
  type StencilOp,
  Sphere,
  Vector3,
} from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { closedBodies } from './closed-bodies';
import { colorsFor, geometryInModelUnits, scaleMaxFor, summarize, vertexDistances } from './deviation';
import { useViewerGltf, viewerUnits } from './gltf';
import { fitCamera, FrameProbe, StudioLights, uprightMatrix } from './scene-parts';
import type { UpAxis } from '../contract/file-types';
import { SharedView, useSharedCanvas } from './shared-canvas';
import { describe, ViewerBoundary } from './viewer-boundary';

export type CompareMode = 'side' | 'overlay';
export type SectionAxis = 'x' | 'y' | 'z';

export interface CompareViewProps {
  /** Viewer GLB addresses of the query model and the matched model. */
  queryUrl: string;
  matchUrl: string;
  /** The axes the models stand on (the overlay stands on the match's). */
  queryUp: UpAxis;
  matchUp: UpAxis;
  queryLabel: string;
  matchLabel: string;
  mode: CompareMode;
  /** Column-major 4x4 placing the query in the match's frame (overlay); null = as they are. */
  transform: readonly number[] | null;
  /** Distance within which the query counts as matching, in model units. */
  tolerance: number;
  xray: boolean;
  wireframe: boolean;
  /** Section plane: axis and position 0..100 % along the scene's extent on it; null = none. */
  section: { axis: SectionAxis; at: number } | null;
  /** Part-in-part: colour the matched model where the query lies within tolerance of it. */
  highlightContained: boolean;
  /** Clicks pick points for a distance measurement. */
  measuring: boolean;
  onMeasure?: (points: [number, number, number][]) => void;
  /** Deviation of the placed query from the match (overlay), in model units, once computed. */
  onDeviation?: (summary: { max: number; mean: number; withinShare: number; units: string } | null) => void;
  onError?: (error: Error) => void;
}

interface Loaded {
  geometry: BufferGeometry;
  units: string;
}

const loadedCache = new WeakMap<object, Loaded>();

/** A viewer GLB as one geometry in the model's own units (cached per loaded file). */
function useModelGeometry(url: string): Loaded {
  const gltf = useViewerGltf(url);
  let loaded = loadedCache.get(gltf);
  if (!loaded) {
    const { units, metresPerUnit } = viewerUnits(gltf.scene);
    loaded = { geometry: geometryInModelUnits(gltf.scene, metresPerUnit), units };
    loadedCache.set(gltf, loaded);
  }
  return loaded;
}

/** What the views of one compare page share: the camera (linked views), and the scene radius. */
interface Link {
  camera: PerspectiveCamera;
  radii: Map<string, number>;
  drawn: Set<string>;
}

const noMarks = { viewId: '', points: [] as [number, number, number][] };
const queryColor = new Color('#6f86ad');
const matchColor = new Color('#b9c0cc');
const containedColor = new Color('#f08a24');

function useMaterial(color: Color, options: { vertexColors: boolean; xray: boolean; wireframe: boolean; clipping: Plane | null }) {
  const { vertexColors, xray, wireframe, clipping } = options;
  const material = useMemo(
    () =>
      new MeshStandardMaterial({
        side: DoubleSide,
        metalness: 0.1,
        roughness: 0.6,
        color: vertexColors ? new Color('#ffffff') : color,
        vertexColors,
        transparent: xray,
        opacity: xray ? 0.35 : 1,
        depthWrite: !xray,
        wireframe,
        clippingPlanes: clipping ? [clipping] : [],
      }),
    [color, vertexColors, xray, wireframe, clipping],
  );
  useEffect(() => () => material.dispose(), [material]);
  return material;
}

const capColor = new Color('#c0392b');
const closedCache = new WeakMap<BufferGeometry, BufferGeometry | null>();

/** The closed bodies of a loaded model, found once: only those get a cap (closed-bodies.ts). */
function closedOf(geometry: BufferGeometry): BufferGeometry | null {
  if (!closedCache.has(geometry)) closedCache.set(geometry, closedBodies(geometry));
  return closedCache.get(geometry) ?? null;
}

/**
 * Fills a model's cut with a solid face (the stencil method of three.js's clipping example):
 * back faces behind the cut add one, front faces take one away, so the cap is drawn where the
 * count is not zero — inside the solid. Needs a closed mesh (closedOf) and a canvas with a stencil buffer.
 */
function SectionCap({
  geometry,
  matrix,
  plane,
  size,
  order,
}: {
  geometry: BufferGeometry;
  matrix: Matrix4;
  plane: Plane;
  size: number;
  order: number;
}) {
  const materials = useMemo(() => {
    const counting = (side: Side, op: StencilOp) =>
      new MeshBasicMaterial({
        side,
        clippingPlanes: [plane],
        depthWrite: false,
        depthTest: false,
        colorWrite: false,
        stencilWrite: true,
        stencilFunc: AlwaysStencilFunc,
        stencilFail: op,
        stencilZFail: op,
        stencilZPass: op,
      });
    const cap = new MeshStandardMaterial({
      color: capColor,
      metalness: 0.1,
      roughness: 0.8,
      side: DoubleSide,
      stencilWrite: true,
      stencilRef: 0,
      stencilFunc: NotEqualStencilFunc,
      stencilFail: ReplaceStencilOp,
      stencilZFail: ReplaceStencilOp,
      stencilZPass: ReplaceStencilOp,
    });
    return { back: counting(BackSide, IncrementWrapStencilOp), front: counting(FrontSide, DecrementWrapStencilOp), cap };
  }, [plane]);
  useEffect(() => () => Object.values(materials).forEach((m) => m.dispose()), [materials]);
  // The cap: a square on the cut plane, facing the kept side, large enough to cover the model.
  const square = useMemo(() => new PlaneGeometry(size, size), [size]);
  useEffect(() => () => square.dispose(), [square]);
  const capObject = useMemo(() => {
    const o = new Object3D();
    plane.coplanarPoint(o.position);
    o.lookAt(o.position.clone().sub(plane.normal));
    o.updateMatrix();
    return o.matrix.clone();
  }, [plane]);
  return (
    <>
      <mesh geometry={geometry} material={materials.back} matrix={matrix} matrixAutoUpdate={false} renderOrder={order} />
      <mesh geometry={geometry} material={materials.front} matrix={matrix} matrixAutoUpdate={false} renderOrder={order} />
      <mesh
        geometry={square}
        material={materials.cap}
        matrix={capObject}
        matrixAutoUpdate={false}
        renderOrder={order + 0.5}
        frustumCulled={false}
        // The next model's count starts from zero (the clear keeps to this view's scissor).
        onAfterRender={(renderer) => renderer.clearStencil()}
      />
    </>
  );
}

/** Uses the page's linked camera in this view and fits it to the largest model shown anywhere. */
function LinkedCamera({ link, id, radius }: { link: Link; id: string; radius: number }) {
  const set = useThree((s) => s.set);
  const size = useThree((s) => s.size);
  const invalidate = useThree((s) => s.invalidate);
  const controls = useThree((s) => s.controls) as unknown as { target: Vector3; update: () => void } | null;
  useLayoutEffect(() => {
    set({ camera: link.camera });
  }, [set, link.camera]);
  useLayoutEffect(() => {
    link.radii.set(id, radius);
    const largest = Math.max(...link.radii.values());
    fitCamera(link.camera, new Sphere(new Vector3(), largest), size.width / Math.max(1, size.height));
    if (controls) {
      controls.target.set(0, 0, 0);
      controls.update();
    }
    invalidate();
  }, [link, id, radius, size, controls, invalidate]);
  return null;
}

function MeasureMarks({ points, radius }: { points: [number, number, number][]; radius: number }) {
  const line = useMemo(() => new Line(new BufferGeometry(), new LineBasicMaterial({ color: '#111111', depthTest: false })), []);
  useEffect(() => {
    line.geometry.setAttribute('position', new BufferAttribute(new Float32Array(points.flat()), 3));
    line.geometry.computeBoundingSphere();
  }, [line, points]);
  return (
    <>
      {points.map((p, i) => (
        <mesh key={i} position={p} renderOrder={10}>
          <sphereGeometry args={[radius * 0.02, 16, 12]} />
          <meshBasicMaterial color="#111111" depthTest={false} />
        </mesh>
      ))}
      {points.length === 2 && <primitive object={line} renderOrder={10} />}
    </>
  );
}

interface SceneProps extends CompareViewProps {
  link: Link;
  viewId: string;
  /** Which models this view shows. */
  show: 'query' | 'match' | 'both';
  marks: [number, number, number][];
  onPick: (viewId: string, point: Vector3, centre: Vector3) => void;
  onDrawn: (viewId: string) => void;
}

function CompareScene(props: SceneProps) {
  const { show, transform, tolerance, xray, wireframe, section, highlightContained, link, viewId, onDeviation } = props;
  const query = useModelGeometry(props.queryUrl);
  const match = useModelGeometry(props.matchUrl);
  const gl = useThree((s) => s.gl);
  useLayoutEffect(() => {
    gl.localClippingEnabled = true;
  }, [gl]);

  const placed = useMemo(() => (transform ? new Matrix4().fromArray(transform as number[]) : new Matrix4()), [transform]);
  // Each model is centred on its own box side by side; overlaid, both move by the match's centre.
  const centre = useMemo(() => {
    const g = show === 'query' ? query.geometry : match.geometry;
    return g.boundingBox!.getCenter(new Vector3());
  }, [show, query.geometry, match.geometry]);
  const radius = useMemo(() => {
    const own = (show === 'query' ? query.geometry : match.geometry).boundingSphere!.radius;
    if (show !== 'both') return own;
    const q = query.geometry.boundingSphere!.clone().applyMatrix4(placed);
    return Math.max(own, q.center.distanceTo(centre) + q.radius);
  }, [show, query.geometry, match.geometry, placed, centre]);

  // Deviation: every vertex of the placed query to the match's surface (three-mesh-bvh).
  const distances = useMemo(() => {
    if (show !== 'both') return null;
    const bvh = new MeshBVH(match.geometry);
    return vertexDistances(query.geometry, placed, bvh);
  }, [show, query.geometry, match.geometry, placed]);
  const summary = useMemo(() => (distances ? summarize(distances) : null), [distances]);
  const queryColors = useMemo(() => {
    if (!distances || !summary) return null;
    return colorsFor(distances, tolerance, scaleMaxFor(tolerance, summary.max));
  }, [distances, summary, tolerance]);
  useEffect(() => {
    onDeviation?.(summary ? { max: summary.max, mean: summary.mean, withinShare: summary.within(tolerance), units: match.units } : null);
  }, [summary, tolerance, match.units, onDeviation]);

  // Part-in-part: the match's region lying within tolerance of the placed query.
  const matchToQuery = useMemo(() => {
    if (show !== 'both' || !highlightContained) return null;
    const placedQuery = query.geometry.clone().applyMatrix4(placed);
    return vertexDistances(match.geometry, new Matrix4(), new MeshBVH(placedQuery));
  }, [show, highlightContained, query.geometry, match.geometry, placed]);

  const queryGeometry = useMemo(() => {
    if (!queryColors) return query.geometry;
    const g = query.geometry.clone();
    g.setAttribute('color', new BufferAttribute(queryColors, 3));
    return g;
  }, [query.geometry, queryColors]);
  const matchGeometry = useMemo(() => {
    if (!matchToQuery) return match.geometry;
    const g = match.geometry.clone();
    const colors = new Float32Array(matchToQuery.length * 3);
    for (let i = 0; i < matchToQuery.length; i++) {
      const c = matchToQuery[i]! <= tolerance ? containedColor : matchColor;
      colors.set([c.r, c.g, c.b], i * 3);
    }
    g.setAttribute('color', new BufferAttribute(colors, 3));
    return g;
  }, [match.geometry, matchToQuery, tolerance]);

  const upright = useMemo(() => uprightMatrix(show === 'query' ? props.queryUp : props.matchUp), [show, props.queryUp, props.matchUp]);
  const clipping = useMemo(() => {
    if (!section) return null;
    const axis = { x: 0, y: 1, z: 2 }[section.axis];
    const box = (show === 'query' ? query.geometry : match.geometry).boundingBox!;
    const lo = box.min.getComponent(axis) - centre.getComponent(axis);
    const hi = box.max.getComponent(axis) - centre.getComponent(axis);
    const normal = new Vector3().setComponent(axis, -1);
    // Keeps what lies below the cut: points with coordinate ≤ lo + at% of the extent. The axis is
    // the model's own (a Z cut of a Z-up part is level); the plane is turned with the model.
    return new Plane(normal, lo + ((hi - lo) * section.at) / 100).applyMatrix4(upright);
  }, [section, show, query.geometry, match.geometry, centre, upright]);

  // Overlaid, the match is always see-through so the query shows inside it; X-ray makes the
  // query see-through as well, to show where it lies inside itself.
  const queryMaterial = useMaterial(queryColor, { vertexColors: !!queryColors, xray, wireframe, clipping });
  const matchMaterial = useMaterial(matchColor, { vertexColors: !!matchToQuery, xray: xray || show === 'both', wireframe, clipping });

  const invalidate = useThree((s) => s.invalidate);
  useEffect(() => invalidate(), [invalidate, queryGeometry, matchGeometry, xray, wireframe, clipping, props.marks]);

  const pick = (e: ThreeEvent<MouseEvent>) => {
    if (!props.measuring) return;
    e.stopPropagation();
    props.onPick(viewId, e.point.clone(), centre);
  };
  const offset = centre.clone().negate();
  const queryMatrix = upright.clone().multiply(new Matrix4().makeTranslation(offset));
  if (show === 'both') queryMatrix.multiply(placed);
  const matchMatrix = upright.clone().multiply(new Matrix4().makeTranslation(offset));
  // Caps on what is drawn solid: not in wireframe or X-ray, and not on the see-through match of the overlay.
  const capped = clipping && !wireframe && !xray;
  const cappedGeometry = useMemo(
    () => (capped ? (show === 'match' ? closedOf(match.geometry) : closedOf(query.geometry)) : null),
    [capped, show, query.geometry, match.geometry],
  );

  return (
    <>
      <color attach="background" args={['#e9edf3']} />
      {show !== 'match' && (
        <mesh geometry={queryGeometry} material={queryMaterial} matrix={queryMatrix} matrixAutoUpdate={false} onClick={pick} />
      )}
      {show !== 'query' && (
        <mesh
          geometry={matchGeometry}
          material={matchMaterial}
          matrix={matchMatrix}
          matrixAutoUpdate={false}
          onClick={pick}
          renderOrder={show === 'both' ? 1 : 0}
        />
      )}
      {capped && cappedGeometry && (
        <SectionCap
          geometry={cappedGeometry}
          matrix={show === 'match' ? matchMatrix : queryMatrix}
          plane={clipping}
          size={radius * 4}
          order={show === 'match' ? 4 : 2}
        />
      )}
      <MeasureMarks points={props.marks} radius={radius} />
      <LinkedCamera link={link} id={viewId} radius={radius} />
      <FrameProbe onDrawn={() => props.onDrawn(viewId)} />
    </>
  );
}

function CompareSlot(props: SceneProps & { label: string; caption: string }) {
  const { webgl, alive } = useSharedCanvas();
  const [error, setError] = useState<Error | null>(null);
  return (
    <figure className="compare-slot">
      <div className="compare-slot__view" role="img" aria-label={props.label} data-testid={`compare-view-${props.viewId}`}>
        {webgl && alive && !error ? (
          <SharedView>
            <StudioLights />
            <OrbitControls />
            <ViewerBoundary
              onError={(e) => {
                setError(e);
                props.onError?.(e);
              }}
            >
              <Suspense fallback={null}>
                <CompareScene {...props} />
              </Suspense>
            </ViewerBoundary>
          </SharedView>
        ) : (
          <p className="compare-slot__message" role="alert">
            {error ? describe(error) : 'This browser could not start 3D graphics (WebGL).'}
          </p>
        )}
      </div>
      <figcaption>{props.caption}</figcaption>
    </figure>
  );
}

/**
 * Two models compared in the page's shared canvas: side by side with one linked camera, or
 * overlaid (the query placed by `transform`) with the query coloured by its distance to the
 * match. X-ray, wireframe, a section plane and point-to-point measurement. Display only.
 * Its element gets `data-viewer-ready="true"` once every view has drawn its models.
 */
export function CompareView(props: CompareViewProps) {
  // The parent keys this component by mode: another layout fits the camera afresh.
  const [link] = useState<Link>(() => ({ camera: new PerspectiveCamera(35, 1, 0.01, 1000), radii: new Map(), drawn: new Set() }));
  const [drawn, setDrawn] = useState<string[]>([]);
  const [marks, setMarks] = useState<{ viewId: string; points: [number, number, number][] }>({ viewId: '', points: [] });
  const views = props.mode === 'overlay' ? ['overlay'] : ['query', 'match'];
  const ready = views.every((v) => drawn.includes(v));
  const { onMeasure, measuring } = props;

  const shown = measuring ? marks : noMarks;
  useEffect(() => onMeasure?.(shown.points), [shown, onMeasure]);

  const onPick = (viewId: string, point: Vector3) => {
    if (!measuring) return;
    setMarks((m) => {
      const p: [number, number, number] = [point.x, point.y, point.z];
      if (m.viewId !== viewId || m.points.length >= 2) return { viewId, points: [p] };
      return { viewId, points: [...m.points, p] };
    });
  };
  const onDrawn = (viewId: string) => setDrawn((d) => (d.includes(viewId) ? d : [...d, viewId]));
  const common = { ...props, link, onPick, onDrawn };

  return (
    <div
      className={`compare compare--${props.mode}`}
      data-viewer-ready={ready ? 'true' : undefined}
      data-viewer-status={ready ? 'ready' : 'loading'}
    >
      {props.mode === 'overlay' ? (
        <CompareSlot
          key="overlay"
          {...common}
          viewId="overlay"
          show="both"
          marks={shown.viewId === 'overlay' ? shown.points : []}
          label={`${props.queryLabel} placed on ${props.matchLabel}`}
          caption={`${props.queryLabel} (coloured by deviation) on ${props.matchLabel} (grey)`}
        />
      ) : (
        <>
          <CompareSlot
            key="query"
            {...common}
            viewId="query"
            show="query"
            marks={shown.viewId === 'query' ? shown.points : []}
            label={`3D view of ${props.queryLabel}`}
            caption={props.queryLabel}
          />
          <CompareSlot
            key="match"
            {...common}
            viewId="match"
            show="match"
            marks={shown.viewId === 'match' ? shown.points : []}
            label={`3D view of ${props.matchLabel}`}
            caption={props.matchLabel}
          />
        </>
      )}
      {!ready && (
        <p className="compare__loading" role="status">
          <span className="spinner" aria-hidden="true" /> Loading the models…
        </p>
      )}
    </div>
  );
}
