import { useLayoutEffect, useRef, type RefObject } from 'react';
import { useFrame, useThree } from '@react-three/fiber';
import { Box3, PerspectiveCamera, Sphere, Vector3, type Object3D } from 'three';

/** Seen from the front-right and above: shows three faces of most parts. */
export const viewDirection = new Vector3(1, 0.75, 1.25).normalize();

/** Studio lighting without downloads; the same in every view. */
export function StudioLights() {
  return (
    <>
      <hemisphereLight args={['#ffffff', '#7d879a', 1.4]} />
      <directionalLight position={[5, 8, 6]} intensity={1.8} />
      <directionalLight position={[-6, 2, -5]} intensity={0.7} />
      <directionalLight position={[0, -6, 2]} intensity={0.35} />
    </>
  );
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
  camera.up.set(0, 1, 0);
  camera.lookAt(sphere.center);
  camera.updateProjectionMatrix();
}

/**
 * Puts the camera where the whole object fits the view, at once (no animation, so a pixel
 * check right after "ready" sees the final picture), and orbits around the object's centre.
 */
export function FitToView({ target, request }: { target: RefObject<Object3D | null>; request: number }) {
  const get = useThree((s) => s.get);
  const size = useThree((s) => s.size);
  const camera = useThree((s) => s.camera);
  const controlsReady = useThree((s) => s.controls !== null);

  useLayoutEffect(() => {
    // Read from the store here: the camera and controls are three.js objects we move on purpose.
    const { invalidate } = get();
    const controls = get().controls as unknown as { target: Vector3; update: () => void } | null;
    const object = target.current;
    if (!object || !(camera instanceof PerspectiveCamera)) return;
    object.updateWorldMatrix(true, true);
    const box = new Box3().setFromObject(object);
    if (box.isEmpty()) return;
    fitCamera(camera, box.getBoundingSphere(new Sphere()), size.width / Math.max(1, size.height));
    if (controls) {
      controls.target.copy(box.getCenter(new Vector3()));
      controls.update();
    }
    invalidate();
  }, [target, request, get, size, camera, controlsReady]);
  return null;
}

/**
 * Reports once that a frame with the model has been drawn; sets no state per frame. With `track`,
 * only frames in which that element is inside the window count (a view off screen is not drawn).
 */
export function FrameProbe({ onDrawn, track }: { onDrawn: () => void; track?: RefObject<HTMLElement | null> }) {
  const frames = useRef(0);
  useFrame((state) => {
    if (frames.current < 0) return;
    if (track) {
      const rect = track.current?.getBoundingClientRect();
      const onScreen = rect && rect.width > 0 && rect.bottom > 0 && rect.right > 0 && rect.top < window.innerHeight && rect.left < window.innerWidth;
      if (!onScreen) {
        frames.current = 0;
        return;
      }
    }
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
