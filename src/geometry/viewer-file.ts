// The viewer GLB: what the app's 3D previews load (three's GLTFLoader + MeshoptDecoder).
import { Document, Logger, WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { dedup, meshopt, weld } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { MM_PER_UNIT, type LengthUnit, type Mesh } from './mesh';
import { creaseNormals, DEFAULT_CREASE_ANGLE_DEG, type MeshWithNormals } from './normals';

/** What the viewer GLB's part node says about the model's units (in `node.extras`). */
export interface ViewerFileExtras {
  /** The model's own length unit; `unknown` is displayed as millimetres. */
  units: LengthUnit;
  /** The node's uniform scale to glTF metres, before quantization folds its own transform in. */
  metresPerUnit: number;
}

export interface ViewerGlbOptions {
  /** Dihedral angle above which an edge is shaded sharp (default {@link DEFAULT_CREASE_ANGLE_DEG}). */
  creaseAngleDeg?: number;
  /** Position quantization bits (default 14: ≈ 1/16,000 of the part's largest extent). */
  positionBits?: number;
  /**
   * The given mesh's normals come from {@link creaseNormals}, so it has one vertex per (position,
   * smoothing group) already and the glTF weld pass can be skipped.
   */
  creaseSplit?: boolean;
  /** Base colour as linear RGBA 0–1 (default a soft grey-blue). */
  color?: [number, number, number, number];
}

/** Part colour of previews (linear RGB), the same grey-blue the thumbnails use. */
export const VIEWER_COLOR: [number, number, number, number] = [0.42, 0.5, 0.62, 1];

let io: Promise<WebIO> | undefined;

function getIO(): Promise<WebIO> {
  io ??= MeshoptEncoder.ready.then(() =>
    new WebIO().registerExtensions([EXTMeshoptCompression, KHRMeshQuantization]).registerDependencies({ 'meshopt.encoder': MeshoptEncoder }),
  );
  return io;
}

/**
 * A compact GLB for 3D previews. Vertices carry crease-split normals (smooth cylinders, sharp
 * CAD edges) so the viewer need not compute any; the file is then deduplicated, welded,
 * reordered for compression, quantized (KHR_mesh_quantization, octahedral 8-bit normals) and
 * meshopt-compressed (EXT_meshopt_compression). Positions stay in the model's units and the part
 * node scales them to metres, glTF's unit, so the viewer shows the part at its real size; the
 * node's `extras` ({@link ViewerFileExtras}) name the original unit for dimension labels.
 * The material is double-sided so open surfaces (STL shells) do not show holes from behind.
 * A {@link MeshWithNormals} keeps its normals (compute {@link creaseNormals} once and share it
 * with the thumbnail); any other mesh gets crease normals here.
 */
export async function toViewerGlb(mesh: Mesh, options: ViewerGlbOptions = {}): Promise<Uint8Array> {
  const given = (mesh as Partial<MeshWithNormals>).normals;
  const reuse = given instanceof Float32Array && given.length === mesh.positions.length;
  const shaded: MeshWithNormals = reuse ? { ...mesh, normals: given } : creaseNormals(mesh, options.creaseAngleDeg ?? DEFAULT_CREASE_ANGLE_DEG);
  const units = mesh.units ?? 'unknown';
  const metresPerUnit = MM_PER_UNIT[units] / 1000;

  const doc = new Document();
  doc.setLogger(new Logger(Logger.Verbosity.ERROR));
  doc.getRoot().getAsset().generator = 'geometric-search-workbench viewer-file';
  const buffer = doc.createBuffer();
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(shaded.positions).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(shaded.normals).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(shaded.indices).setBuffer(buffer))
    .setMaterial(
      doc
        .createMaterial('part')
        .setBaseColorFactor(options.color ?? VIEWER_COLOR)
        .setMetallicFactor(0.1)
        .setRoughnessFactor(0.55)
        .setDoubleSided(true),
    );
  const extras: ViewerFileExtras = { units, metresPerUnit };
  const node = doc
    .createNode('part')
    .setMesh(doc.createMesh('part').addPrimitive(prim))
    .setScale([metresPerUnit, metresPerUnit, metresPerUnit])
    .setExtras({ ...extras });
  doc.createScene('model').addChild(node);
  doc.getRoot().setDefaultScene(doc.getRoot().listScenes()[0]!);

  await MeshoptEncoder.ready;
  // creaseNormals() already gives one vertex per (position, smoothing group), so weld() — a
  // third of the time here — only runs for normals that came from elsewhere (not `creaseSplit`). meshopt() runs
  // reorder() and quantize() itself: positions and indices quantized, normals left float for the
  // writer's octahedral filter.
  await doc.transform(
    dedup(),
    ...(reuse && !options.creaseSplit ? [weld()] : []),
    meshopt({ encoder: MeshoptEncoder, level: 'high', quantizePosition: options.positionBits ?? 14 }),
  );
  return (await getIO()).writeBinary(doc);
}
