import { use } from 'react';
import { Box3, Vector3, type Object3D } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';

/** Viewer GLBs are meshopt-compressed (geometry/output/viewer-file.ts). */
const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
const files = new Map<string, Promise<GLTF>>();

/** Loads (and caches by address, failures too until forgotten) a viewer GLB. */
export function loadViewerGltf(url: string): Promise<GLTF> {
  let file = files.get(url);
  if (!file) {
    file = loader.loadAsync(url);
    files.set(url, file);
  }
  return file;
}

/** {@link loadViewerGltf} for scenes that wait in Suspense; throws on failure. */
export function useViewerGltf(url: string): GLTF {
  return use(loadViewerGltf(url));
}

/** Forgets a cached file so "Try again" really asks again. */
export function forgetViewerGltf(url: string) {
  files.delete(url);
}

/** What the viewer GLB's part node says about units (geometry/output/viewer-file.ts `ViewerFileExtras`). */
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
