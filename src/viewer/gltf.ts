import { useLoader } from '@react-three/fiber';
import { Box3, Vector3, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';

/** Viewer GLBs are meshopt-compressed (geometry/viewer-file.ts). */
export function extendLoader(loader: GLTFLoader) {
  loader.setMeshoptDecoder(MeshoptDecoder);
}

/** Loads (and caches by address) a viewer GLB; suspends while loading, throws on failure. */
export function useViewerGltf(url: string) {
  return useLoader(GLTFLoader, url, extendLoader);
}

/** Forgets a cached file so "Try again" really asks again. */
export function forgetViewerGltf(url: string) {
  useLoader.clear(GLTFLoader, url);
}

/** What the viewer GLB's part node says about units (geometry/viewer-file.ts `ViewerFileExtras`). */
export interface ViewerUnits {
  units: string;
  /** Scale from the model's own unit to the file's metres. */
  metresPerUnit: number;
}

export function viewerUnits(root: Object3D): ViewerUnits {
  let found: ViewerUnits | null = null;
  root.traverse((o) => {
    const data = o.userData as Partial<ViewerUnits>;
    if (!found && typeof data.metresPerUnit === 'number' && data.metresPerUnit > 0) {
      found = { units: typeof data.units === 'string' ? data.units : 'unknown', metresPerUnit: data.metresPerUnit };
    }
  });
  return found ?? { units: 'unknown', metresPerUnit: 1 };
}

export function boundsOf(root: Object3D): { box: Box3; size: Vector3; centre: Vector3 } {
  root.updateWorldMatrix(true, true);
  const box = new Box3().setFromObject(root);
  return { box, size: box.getSize(new Vector3()), centre: box.getCenter(new Vector3()) };
}
