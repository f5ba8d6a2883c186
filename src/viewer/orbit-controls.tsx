import { useEffect, useRef } from 'react';
import { useFrame, useThree } from '@react-three/fiber';
import { OrbitControls as ThreeOrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

export interface OrbitControlsProps {
  enableZoom?: boolean;
  enablePan?: boolean;
}

/**
 * Drag to orbit the view's camera: three's own OrbitControls, listening on the element the view's
 * events come from (a shared view's 2D canvas, else the WebGL canvas). They are the view's default
 * controls, so fitting the model and the keyboard orbit move the same target. No damping: the
 * picture stops when the pointer does, so nothing is drawn after a drag ends.
 */
export function OrbitControls({ enableZoom = true, enablePan = true }: OrbitControlsProps) {
  const camera = useThree((s) => s.camera);
  const gl = useThree((s) => s.gl);
  const connected = useThree((s) => s.events.connected) as HTMLElement | null | undefined;
  const invalidate = useThree((s) => s.invalidate);
  const set = useThree((s) => s.set);
  const get = useThree((s) => s.get);
  const element = connected ?? gl.domElement;
  const controls = useRef<ThreeOrbitControls | null>(null);

  // Made in an effect, not during render: they listen on the element from the start, and an
  // unmount (or React's second mount in development) disposes exactly the ones it made.
  useEffect(() => {
    const made = new ThreeOrbitControls(camera, element);
    made.enableDamping = false;
    made.enableZoom = enableZoom;
    made.enablePan = enablePan;
    const onChange = () => invalidate();
    made.addEventListener('change', onChange);
    const previous = get().controls;
    set({ controls: made });
    controls.current = made;
    return () => {
      made.removeEventListener('change', onChange);
      made.dispose();
      if (controls.current === made) controls.current = null;
      set({ controls: previous });
    };
  }, [camera, element, enableZoom, enablePan, invalidate, get, set]);

  // Before anything draws the frame (priority -1), as the camera's position depends on it.
  useFrame(() => {
    if (controls.current?.enabled) controls.current.update();
  }, -1);

  return null;
}
