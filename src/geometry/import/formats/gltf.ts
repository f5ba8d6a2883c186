import { Primitive, WebIO, type Document, type Node as GltfNode } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import {
  count,
  defineImporter,
  DEFAULT_UNPACKED_MAX_BYTES,
  failed,
  unreadableReason,
  type ImportedModel,
  type ImportError,
  type ProductNode,
} from '../importer';
import { applyToMesh, mergeMeshes, type Mesh } from '../../mesh/mesh';
import { validateMesh } from '../validate';
import { formatBytes } from './zip-archive';

let io: Promise<WebIO> | undefined;

function getIO(): Promise<WebIO> {
  io ??= MeshoptDecoder.ready.then(() =>
    new WebIO()
      .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder }),
  );
  return io;
}

/** Binary glTF (.glb) through @gltf-transform's WebIO (no file system, no DOM). */
export const glbImporter = defineImporter('glb', 'GLB', async (bytes, ctx) => {
  if (bytes.byteLength < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== 'glTF') {
    return failed('The file does not start with the "glTF" signature, so it is not a GLB file.');
  }
  const total = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (total > bytes.byteLength)
    return failed(
      `The GLB file says it is ${total.toLocaleString('en-US')} bytes long but only ${bytes.byteLength.toLocaleString('en-US')} are there: it was probably cut off.`,
    );
  const jsonLength = bytes.byteLength >= 20 ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true) : 0;
  if (20 + jsonLength > bytes.byteLength) return failed('The GLB file is damaged: its description runs past the end of the file.');
  let json: GltfJson;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength))) as GltfJson;
  } catch {
    return failed('The GLB file is damaged: its description is not valid JSON.');
  }
  const tooBig = declaredTooMuch(json, 'GLB', ctx.unpackedMaxBytes, true);
  if (tooBig) return tooBig;
  return readDocument(() => getIO().then((w) => w.readBinary(bytes)), 'GLB');
});

/** Text glTF (.gltf) with its buffers embedded as data URIs; separate .bin files are not available here. */
export const gltfImporter = defineImporter('gltf', 'glTF', async (bytes, ctx) => {
  let json: GltfJson;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes)) as typeof json;
  } catch {
    return failed('The glTF file is not valid JSON text: it is damaged or cut off.');
  }
  if (typeof json !== 'object' || json === null || !json.asset) return failed('The file is JSON but not glTF (it has no "asset" section).');
  const external = (json.buffers ?? []).map((b) => b.uri).filter((u): u is string => !!u && !u.startsWith('data:'));
  if (external.length) {
    return failed(
      `The glTF file keeps its geometry in a separate file (${external.join(', ')}) that was not uploaded with it; export it as a single .glb file instead.`,
    );
  }
  const tooBig = declaredTooMuch(json, 'glTF', ctx.unpackedMaxBytes);
  if (tooBig) return tooBig;
  return readDocument(() => getIO().then((w) => w.readJSON({ json: json as never, resources: {} })), 'glTF');
});

async function readDocument(read: () => Promise<Document>, label: string): Promise<ImportedModel | ImportError> {
  let doc: Document;
  try {
    doc = await read();
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const ext = /extension,?\s*"?([A-Z]+_[\w]+)/.exec(msg)?.[1];
    if (ext)
      return failed(
        `The ${label} file uses the ${ext} extension (${describeExtension(ext)}), which we cannot decode; export it without it.`,
      );
    if (/external/i.test(msg)) return failed(`The ${label} file refers to separate files that were not uploaded with it.`);
    return failed(unreadableReason(label, e));
  }
  const root = doc.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const parts: Mesh[] = [];
  const visit = (node: GltfNode): ProductNode => {
    const mesh = node.getMesh();
    let triangles = 0;
    if (mesh) {
      const world = node.getWorldMatrix();
      for (const prim of mesh.listPrimitives()) {
        const m = primitiveToMesh(prim);
        if (m) {
          const bad = m.indices.findIndex((k) => k >= m.positions.length / 3);
          if (bad >= 0) throw new IndexRangeError(Math.floor(bad / 3) + 1, m.indices[bad]! + 1, m.positions.length / 3);
          parts.push(applyToMesh(m, world));
          triangles += m.indices.length / 3;
        }
      }
    }
    return { name: node.getName(), triangleCount: triangles, children: node.listChildren().map(visit) };
  };
  let topNodes: GltfNode[];
  let structure: ProductNode;
  try {
    topNodes = scene ? scene.listChildren() : root.listNodes().filter((n) => !n.getParentNode());
    structure = { name: scene?.getName() ?? '', triangleCount: 0, children: topNodes.map(visit) };
  } catch (e) {
    if (!(e instanceof IndexRangeError)) throw e;
    return failed(
      `Triangle ${count(e.triangle)} of a ${label} mesh refers to vertex ${count(e.vertex)}, but that mesh has only ${count(e.vertices)} vertices.`,
    );
  }
  const merged: ImportedModel = { ...mergeMeshes(parts), units: 'm', structure };
  return validateMesh(merged, label) ?? merged;
}

interface GltfJson {
  asset?: unknown;
  buffers?: { uri?: string; byteLength?: number }[];
  bufferViews?: { extensions?: Record<string, { count?: number; byteStride?: number } | undefined> }[];
  accessors?: { count?: number; type?: string; componentType?: number }[];
}

const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };

/**
 * The memory a glTF asks for before any of it is read: accessors (zero-filled when they have no
 * data), meshopt-compressed views (decoded to `count × byteStride`) and buffers without data.
 * A few hundred bytes of JSON can otherwise ask for gigabytes.
 */
function declaredTooMuch(
  json: GltfJson,
  label: string,
  maxBytes = DEFAULT_UNPACKED_MAX_BYTES,
  binaryChunk = false,
): ImportError | undefined {
  const size = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);
  let declared = 0;
  for (const a of json.accessors ?? [])
    declared += size(a?.count) * (COMPONENTS[a?.type ?? ''] ?? 16) * (COMPONENT_BYTES[a?.componentType ?? 0] ?? 4);
  for (const v of json.bufferViews ?? []) {
    const meshopt = v?.extensions?.EXT_meshopt_compression ?? v?.extensions?.KHR_meshopt_compression;
    if (meshopt) declared += size(meshopt.count) * size(meshopt.byteStride);
  }
  // A GLB's first buffer is its binary chunk, already in the file.
  (json.buffers ?? []).forEach((b, i) => {
    if (!b?.uri && !(binaryChunk && i === 0)) declared += size(b?.byteLength);
  });
  if (declared <= maxBytes) return undefined;
  return failed(`The ${label} file declares more than ${formatBytes(maxBytes)} of geometry data; it was not read.`);
}

function primitiveToMesh(prim: Primitive): Mesh | undefined {
  const mode = prim.getMode();
  if (mode !== Primitive.Mode.TRIANGLES && mode !== Primitive.Mode.TRIANGLE_STRIP && mode !== Primitive.Mode.TRIANGLE_FAN) return undefined;
  const pos = prim.getAttribute('POSITION');
  if (!pos) return undefined;
  const n = pos.getCount();
  const positions = new Float32Array(n * 3);
  const el: number[] = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    pos.getElement(i, el); // denormalises quantized positions
    positions[i * 3] = el[0]!;
    positions[i * 3 + 1] = el[1]!;
    positions[i * 3 + 2] = el[2]!;
  }
  const idxAcc = prim.getIndices();
  const raw: ArrayLike<number> = idxAcc?.getArray() ?? Uint32Array.from({ length: n }, (_, i) => i);
  let indices: Uint32Array;
  if (mode === Primitive.Mode.TRIANGLES) {
    indices = Uint32Array.from(raw).subarray(0, raw.length - (raw.length % 3));
  } else {
    const out: number[] = [];
    for (let i = 2; i < raw.length; i++) {
      if (mode === Primitive.Mode.TRIANGLE_FAN) out.push(raw[0]!, raw[i - 1]!, raw[i]!);
      else if (i % 2 === 0) out.push(raw[i - 2]!, raw[i - 1]!, raw[i]!);
      else out.push(raw[i - 1]!, raw[i - 2]!, raw[i]!);
    }
    indices = Uint32Array.from(out);
  }
  return { positions, indices };
}

function describeExtension(ext: string): string {
  if (ext.includes('draco')) return 'Draco mesh compression';
  if (ext.includes('meshopt')) return 'meshopt compression';
  if (ext.includes('texture') || ext.includes('basisu')) return 'a texture format';
  return 'an optional glTF feature';
}

class IndexRangeError extends Error {
  constructor(
    readonly triangle: number,
    readonly vertex: number,
    readonly vertices: number,
  ) {
    super('index out of range');
  }
}
