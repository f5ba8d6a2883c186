// The viewer GLB: what the app's 3D previews load (three's GLTFLoader + MeshoptDecoder).
import { Document, Logger, WebIO, type TypedArray } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { meshopt, weld } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { MM_PER_UNIT, type LengthUnit, type Mesh } from '../mesh/mesh';
import { usedVertexBounds } from '../mesh/mesh-facts';
import { creaseNormals, DEFAULT_CREASE_ANGLE_DEG, type MeshWithNormals } from '../mesh/normals';

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
    new WebIO()
      .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
      .registerDependencies({ 'meshopt.encoder': MeshoptEncoder }),
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
  const crease = !reuse || options.creaseSplit === true;
  const shaded: MeshWithNormals = reuse
    ? { ...mesh, normals: given }
    : creaseNormals(mesh, options.creaseAngleDeg ?? DEFAULT_CREASE_ANGLE_DEG);
  const units = mesh.units ?? 'unknown';
  const metresPerUnit = MM_PER_UNIT[units] / 1000;

  const doc = new Document();
  doc.setLogger(new Logger(Logger.Verbosity.ERROR));
  doc.getRoot().getAsset().generator = 'geometric-search-workbench viewer-file';
  const material = doc
    .createMaterial('part')
    .setBaseColorFactor(options.color ?? VIEWER_COLOR)
    .setMetallicFactor(0.1)
    .setRoughnessFactor(0.55)
    .setDoubleSided(true);
  const extras: ViewerFileExtras = { units, metresPerUnit };
  const node = doc.createNode('part').setExtras({ ...extras });
  doc.createScene('model').addChild(node);
  doc.getRoot().setDefaultScene(doc.getRoot().listScenes()[0]!);
  await MeshoptEncoder.ready;

  if (crease) {
    // Vertices from creaseNormals() are unique per (position, smoothing group) already, so the
    // generic pipeline (dedup → weld → reorder → quantize, each walking every attribute element
    // by element) would only repeat work. meshoptimizer's own reorder and a typed-array
    // quantization give the same file — KHR_mesh_quantization positions (normalized int16,
    // `positionBits` over the largest extent, the node carrying offset and scale) and float
    // normals that the writer's EXT_meshopt_compression filter stores octahedrally in 8 bits —
    // in a fraction of the time.
    const q = reorderAndQuantize(shaded, options.positionBits ?? 14);
    const buffer = doc.createBuffer();
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(gltfArray(q.positions)).setNormalized(true).setBuffer(buffer))
      .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(gltfArray(q.normals)).setBuffer(buffer))
      .setIndices(doc.createAccessor().setType('SCALAR').setArray(gltfArray(q.indices)).setBuffer(buffer))
      .setMaterial(material);
    const s = q.scale * metresPerUnit;
    node
      .setMesh(doc.createMesh('part').addPrimitive(prim))
      .setTranslation([q.offset[0] * metresPerUnit, q.offset[1] * metresPerUnit, q.offset[2] * metresPerUnit])
      .setScale([s, s, s]);
    doc.createExtension(KHRMeshQuantization).setRequired(true);
    doc.createExtension(EXTMeshoptCompression).setRequired(true).setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.FILTER });
    return (await getIO()).writeBinary(doc);
  }

  const buffer = doc.createBuffer();
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(gltfArray(shaded.positions)).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor().setType('VEC3').setArray(gltfArray(shaded.normals)).setBuffer(buffer))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(gltfArray(shaded.indices)).setBuffer(buffer))
    .setMaterial(material);
  node.setMesh(doc.createMesh('part').addPrimitive(prim)).setScale([metresPerUnit, metresPerUnit, metresPerUnit]);
  // Normals from elsewhere: weld first (vertices may repeat), then meshopt() reorders and
  // quantizes (positions and indices; normals stay float for the writer's octahedral filter).
  await doc.transform(weld(), meshopt({ encoder: MeshoptEncoder, level: 'high', quantizePosition: options.positionBits ?? 14 }));
  return (await getIO()).writeBinary(doc);
}

interface Quantized {
  positions: Int16Array;
  normals: Float32Array;
  indices: Uint16Array | Uint32Array;
  /** Local position = offset + scale × dequantized position (in the mesh's units). */
  offset: [number, number, number];
  scale: number;
}

/**
 * meshoptimizer's reorder for transmission size, then positions to normalized int16 with `bits`
 * of precision over the largest half-extent — the same mapping as gltf-transform's quantize()
 * (centre offset, one uniform scale, msb replicated into the unused low bits).
 */
function reorderAndQuantize(mesh: MeshWithNormals, bits: number): Quantized {
  const indices = mesh.indices.slice();
  const [remap, unique] = MeshoptEncoder.reorderMesh(indices, true, true);
  const p = mesh.positions,
    n = mesh.normals;
  // The reorder drops exactly the vertices no triangle uses, so these bounds are the kept vertices'.
  let {
    min: [x0, y0, z0],
    max: [x1, y1, z1],
  } = usedVertexBounds(p, mesh.indices);
  if (unique === 0) x0 = y0 = z0 = x1 = y1 = z1 = 0;
  const offset: [number, number, number] = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2];
  const scale = Math.max((x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2) || 1;
  const quantBits = bits - 1; // one bit is the sign
  const steps = 2 ** quantBits - 1;
  const lo = 15 - quantBits,
    hi = 2 * quantBits - 15;
  const positions = new Int16Array(unique * 3);
  const normals = new Float32Array(unique * 3);
  const inv = 1 / scale;
  for (let v = 0; v < remap.length; v++) {
    const to = remap[v]!;
    if (to === 0xffffffff) continue;
    for (let k = 0; k < 3; k++) {
      const f = (p[v * 3 + k]! - offset[k]!) * inv;
      const c = f > 1 ? 1 : f < -1 ? -1 : f;
      const m = Math.round(Math.abs(c) * steps);
      const stored = (m << lo) | (m >> hi);
      positions[to * 3 + k] = c < 0 ? -stored : stored;
      normals[to * 3 + k] = n[v * 3 + k]!;
    }
  }
  return { positions, normals, indices: unique <= 65534 ? Uint16Array.from(indices) : indices, offset, scale };
}

/** The typed arrays here own plain ArrayBuffers; glTF-Transform's type asks for that to be said. */
export function gltfArray(a: Float32Array | Int16Array | Uint16Array | Uint32Array): TypedArray {
  return a as unknown as TypedArray;
}
