import { useContext, useLayoutEffect, useRef, type RefObject } from 'react';
import { useFrame, useThree } from '@react-three/fiber';
import {
  Box3,
  DirectionalLight,
  DoubleSide,
  HemisphereLight,
  Matrix4,
  Mesh,
  MeshStandardMaterial,
  PerspectiveCamera,
  Scene,
  Sphere,
  SphereGeometry,
  Spherical,
  Vector3,
  type Camera,
  type Object3D,
  type WebGLRenderer,
} from 'three';
import { SharedViewContext } from './view-entry';
import type { UpAxis } from '../contract/file-types';

/** Seen from the front-right and above: shows three faces of most parts. */
export const viewDirection = new Vector3(1, 0.75, 1.25).normalize();

/** The standard views: where the camera looks from (glTF is Y up, so "top" is +Y). */
export const standardViews = {
  iso: viewDirection,
  front: new Vector3(0, 0, 1),
  top: new Vector3(0, 1, 0),
  right: new Vector3(1, 0, 0),
} as const;
export type StandardView = keyof typeof standardViews;

const hemisphere = { sky: '#ffffff', ground: '#7d879a', intensity: 1.4 };
const directional: { position: [number, number, number]; intensity: number }[] = [
  { position: [5, 8, 6], intensity: 1.8 },
  { position: [-6, 2, -5], intensity: 0.7 },
  { position: [0, -6, 2], intensity: 0.35 },
];

/** Studio lighting without downloads; the same in every view. */
export function StudioLights() {
  return (
    <>
      <hemisphereLight args={[hemisphere.sky, hemisphere.ground, hemisphere.intensity]} />
      {directional.map((light, i) => (
        <directionalLight key={i} position={light.position} intensity={light.intensity} />
      ))}
    </>
  );
}

/**
 * Draws a stand-in for a viewer GLB under {@link StudioLights} (glTF's standard material,
 * double-sided; geometry/output/viewer-file.ts) once, in a corner of a canvas that is never shown, as
 * soon as the canvas exists. A software rasteriser links the program and builds its drawing
 * routines for that state at the first draw, which takes a few hundred milliseconds; done here,
 * it overlaps with waiting for the data instead of holding up the first frame with models. The
 * material is kept (never disposed): three drops a program once no material uses it.
 */
export function warmViewerProgram(gl: WebGLRenderer, camera: Camera): void {
  const scene = new Scene();
  scene.add(new HemisphereLight(hemisphere.sky, hemisphere.ground, hemisphere.intensity));
  // Only the kinds and numbers of lights matter to the program, not where they are.
  for (const light of directional) scene.add(new DirectionalLight(0xffffff, light.intensity));
  const sphere = new Mesh(new SphereGeometry(1, 8, 6), new MeshStandardMaterial({ side: DoubleSide }));
  sphere.position.copy(camera.position).addScaledVector(camera.getWorldDirection(new Vector3()), 4);
  scene.add(sphere);
  gl.setViewport(0, 0, 16, 16);
  gl.setScissor(0, 0, 16, 16);
  gl.setScissorTest(true);
  gl.render(scene, camera);
  gl.setScissorTest(false);
}

/** Camera placement that fits a sphere into a view of this aspect, looking along `direction`. */
export function fitCamera(camera: PerspectiveCamera, sphere: Sphere, aspect: number, direction: Vector3 = viewDirection): void {
  const radius = sphere.radius > 0 ? sphere.radius : 1;
  const vertical = (camera.fov * Math.PI) / 360;
  const horizontal = Math.atan(Math.tan(vertical) * aspect);
  const distance = (1.15 * radius) / Math.sin(Math.min(vertical, horizontal));
  camera.position.copy(sphere.center).addScaledVector(direction, distance);
  camera.near = Math.max(distance / 1000, (distance - radius) / 10);
  camera.far = distance + radius * 10;
  // Looking straight down, "up" on the screen is the model's back (-Z).
  if (Math.abs(direction.y) > 0.999) camera.up.set(0, 0, -1);
  else camera.up.set(0, 1, 0);
  camera.lookAt(sphere.center);
  camera.updateProjectionMatrix();
}

/**
 * Puts the camera where the whole object fits the view, at once (no animation, so a pixel
 * check right after "ready" sees the final picture), and orbits around the object's centre.
 */
export function FitToView({
  target,
  request,
  direction = viewDirection,
}: {
  target: RefObject<Object3D | null>;
  request: number;
  direction?: Vector3;
}) {
  const get = useThree((s) => s.get);
  const size = useThree((s) => s.size);
  const camera = useThree((s) => s.camera);
  // The instance, not just whether there is one: controls made again for a new default camera
  // start looking at the origin, so the fit is applied to them again.
  const controlsInstance = useThree((s) => s.controls);

  useLayoutEffect(() => {
    // Read from the store here: the camera and controls are three.js objects we move on purpose.
    const { invalidate } = get();
    const controls = get().controls as unknown as { target: Vector3; update: () => void } | null;
    const object = target.current;
    if (!object || !(camera instanceof PerspectiveCamera)) return;
    object.updateWorldMatrix(true, true);
    const box = new Box3().setFromObject(object);
    if (box.isEmpty()) return;
    fitCamera(camera, box.getBoundingSphere(new Sphere()), size.width / Math.max(1, size.height), direction);
    if (controls) {
      controls.target.copy(box.getCenter(new Vector3()));
      controls.update();
    }
    invalidate();
  }, [target, request, direction, get, size, camera, controlsInstance]);
  return null;
}

/** What a key press asks of the view: turn (radians), zoom (distance factor), or nothing. */
export function keyboardMove(key: string): { azimuth: number; polar: number; zoom: number } | null {
  const step = Math.PI / 12;
  switch (key) {
    case 'ArrowLeft':
      return { azimuth: -step, polar: 0, zoom: 1 };
    case 'ArrowRight':
      return { azimuth: step, polar: 0, zoom: 1 };
    case 'ArrowUp':
      return { azimuth: 0, polar: -step, zoom: 1 };
    case 'ArrowDown':
      return { azimuth: 0, polar: step, zoom: 1 };
    case '+':
    case '=':
      return { azimuth: 0, polar: 0, zoom: 0.8 };
    case '-':
    case '_':
      return { azimuth: 0, polar: 0, zoom: 1.25 };
    default:
      return null;
  }
}

/**
 * Turns and zooms the view from the keyboard: `handleRef` is filled in with a function the page's
 * key handler calls (the canvas itself cannot take focus).
 */
export function KeyboardOrbit({ handleRef }: { handleRef: RefObject<((key: string) => boolean) | null> }) {
  const get = useThree((s) => s.get);
  useLayoutEffect(() => {
    handleRef.current = (key: string) => {
      const move = keyboardMove(key);
      const { camera, controls, invalidate } = get();
      const orbit = controls as unknown as { target: Vector3; update: () => void } | null;
      if (!move || !orbit) return false;
      const offset = camera.position.clone().sub(orbit.target);
      const spherical = new Spherical().setFromVector3(offset);
      spherical.theta += move.azimuth;
      spherical.phi = Math.min(Math.PI - 0.01, Math.max(0.01, spherical.phi + move.polar));
      spherical.radius *= move.zoom;
      camera.up.set(0, 1, 0);
      camera.position.copy(orbit.target).add(new Vector3().setFromSpherical(spherical));
      orbit.update();
      invalidate();
      return true;
    };
    return () => {
      handleRef.current = null;
    };
  }, [get, handleRef]);
  return null;
}

/**
 * Reports once that a frame with the model has been drawn; sets no state per frame. Inside a view
 * of the shared canvas that is the next copy of the view onto its element.
 */
export function FrameProbe({ onDrawn }: { onDrawn: () => void }) {
  const view = useContext(SharedViewContext);
  const done = useRef(false);
  const invalidate = useThree((s) => s.invalidate);
  // A layout effect: it runs in the commit that mounts the model, before any frame can copy the view.
  useLayoutEffect(() => {
    if (!view) return;
    invalidate();
    return view.afterDraw(() => requestAnimationFrame(onDrawn));
    // Once per mount: a new `onDrawn` closure must not wait for another copy.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [view]);
  useFrame(() => {
    if (view || done.current) return;
    done.current = true;
    // Frame callbacks run before this frame is drawn; the next animation frame comes after it is
    // on screen. Asking the canvas for a second frame instead would draw every view once more.
    requestAnimationFrame(onDrawn);
  });
  return null;
}

/**
 * three.js and glTF stand a scene on +Y; a Z-up model (CAD and print formats, file-types.ts) is
 * turned a quarter about X so that its +Z points up and its front (−Y) faces the Front view.
 */
export function uprightMatrix(up: UpAxis): Matrix4 {
  return up === 'z' ? new Matrix4().makeRotationX(-Math.PI / 2) : new Matrix4();
}

/** The same turn as an Euler rotation, for a `<group rotation>`. */
export function uprightRotation(up: UpAxis): [number, number, number] {
  return up === 'z' ? [-Math.PI / 2, 0, 0] : [0, 0, 0];
}
