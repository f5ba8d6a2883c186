import { WebIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import { Box3, type BufferGeometry, type Object3D } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder as ThreeMeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import { describe, expect, it } from 'vitest';
import { box, bracket, flange, plateWithHoles, sphere, toGlb } from '../testing/fixtures';
import type { Mesh } from '../mesh/mesh';
import { boundingBox, weld } from '../mesh/mesh-facts';
import { creaseNormals } from '../mesh/normals';
import { toViewerGlb, type ViewerFileExtras } from './viewer-file';

async function readBack(glb: Uint8Array) {
  await MeshoptDecoder.ready;
  const io = new WebIO()
    .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder });
  const doc = await io.readBinary(glb);
  const node = doc.getRoot().listNodes()[0]!;
  const prim = node.getMesh()!.listPrimitives()[0]!;
  const pos = prim.getAttribute('POSITION')!;
  const world = node.getWorldMatrix();
  const min = [Infinity, Infinity, Infinity],
    max = [-Infinity, -Infinity, -Infinity];
  const el: number[] = [0, 0, 0];
  for (let i = 0; i < pos.getCount(); i++) {
    pos.getElement(i, el); // dequantised local position
    for (let r = 0; r < 3; r++) {
      const w = world[r]! * el[0]! + world[4 + r]! * el[1]! + world[8 + r]! * el[2]! + world[12 + r]!;
      min[r] = Math.min(min[r]!, w);
      max[r] = Math.max(max[r]!, w);
    }
  }
  return {
    doc,
    extras: node.getExtras() as unknown as ViewerFileExtras,
    triangles: prim.getIndices()!.getCount() / 3,
    vertices: pos.getCount(),
    normals: prim.getAttribute('NORMAL'),
    min,
    max,
    extensions: doc
      .getRoot()
      .listExtensionsUsed()
      .map((e) => e.extensionName),
  };
}

/** What the app does: three's GLTFLoader with three's MeshoptDecoder. */
async function loadWithThree(
  glb: Uint8Array,
): Promise<{ box: Box3; triangles: number; geometry: BufferGeometry; userData: Record<string, unknown> }> {
  const loader = new GLTFLoader();
  loader.setMeshoptDecoder(ThreeMeshoptDecoder);
  const ab = glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength) as ArrayBuffer;
  const gltf = await new Promise<GLTF>((resolve, reject) => loader.parse(ab, '', resolve, reject));
  let triangles = 0;
  let found: { geometry: BufferGeometry; userData: Record<string, unknown> } | undefined;
  gltf.scene.traverse((o: Object3D) => {
    const m = o as Object3D & { isMesh?: boolean; geometry?: BufferGeometry };
    if (!m.isMesh || !m.geometry) return;
    triangles += (m.geometry.index?.count ?? 0) / 3;
    found = { geometry: m.geometry, userData: m.userData };
  });
  return { box: new Box3().setFromObject(gltf.scene), triangles, ...found! };
}

function expectBboxClose(min: number[], max: number[], mesh: Mesh, metresPerUnit: number) {
  const bb = boundingBox(mesh);
  const extent = Math.max(...bb.size);
  const tol = (extent / (1 << 13)) * 1.5; // 14-bit grid over the largest extent, plus rounding
  for (let k = 0; k < 3; k++) {
    expect(Math.abs(min[k]! / metresPerUnit - bb.min[k]!)).toBeLessThan(tol);
    expect(Math.abs(max[k]! / metresPerUnit - bb.max[k]!)).toBeLessThan(tol);
  }
}

describe('creaseNormals', () => {
  it('splits a box at its 90° edges: 24 vertices with axis normals', async () => {
    const { mesh } = await box([10, 20, 30]);
    const s = creaseNormals(mesh);
    expect(s.indices.length).toBe(36);
    expect(s.positions.length / 3).toBe(24);
    for (let i = 0; i < s.normals.length; i += 3) {
      const n = [Math.abs(s.normals[i]!), Math.abs(s.normals[i + 1]!), Math.abs(s.normals[i + 2]!)].sort();
      expect(n[2]).toBeCloseTo(1, 6);
    }
  });

  it('keeps a sphere smooth (no splits) and welds a triangle soup first', async () => {
    const { mesh } = await sphere({ triangles: 2000 });
    // Every triangle with its own three vertices, as STL gives them.
    const positions = new Float32Array(mesh.indices.length * 3);
    mesh.indices.forEach((v, j) => positions.set(mesh.positions.subarray(v * 3, v * 3 + 3), j * 3));
    const s = creaseNormals({ positions, indices: Uint32Array.from({ length: mesh.indices.length }, (_, i) => i) });
    expect(s.positions.length / 3).toBe(weld(mesh).mesh.positions.length / 3);
    // Smooth normals of a sphere point away from its centre.
    for (let v = 0; v < s.positions.length / 3; v++) {
      const p = [s.positions[v * 3]!, s.positions[v * 3 + 1]!, s.positions[v * 3 + 2]!];
      const l = Math.hypot(...p);
      const dot = (p[0]! * s.normals[v * 3]! + p[1]! * s.normals[v * 3 + 1]! + p[2]! * s.normals[v * 3 + 2]!) / l;
      expect(dot).toBeGreaterThan(0.995);
    }
  });

  it('shades a flange: cylinder walls smooth, rims sharp', async () => {
    const { mesh } = await flange();
    const s = creaseNormals(mesh);
    const welded = weld(mesh).mesh.positions.length / 3;
    const split = s.positions.length / 3;
    // Every rim vertex is shared by a wall and a cap: about two copies per welded vertex, far
    // fewer than one per corner (flat shading).
    expect(split).toBeGreaterThan(welded);
    expect(split).toBeLessThan(mesh.indices.length / 2);
  });
});

describe('toViewerGlb', () => {
  it('round-trips through gltf-transform + meshopt decoder: bbox within quantization, same triangles, units in the node', async () => {
    const part = await bracket();
    const glb = await toViewerGlb(part.mesh);
    const r = await readBack(glb);
    expect(r.extensions).toEqual(expect.arrayContaining(['EXT_meshopt_compression', 'KHR_mesh_quantization']));
    expect(r.triangles).toBe(part.mesh.indices.length / 3);
    expect(r.extras).toEqual({ units: 'mm', metresPerUnit: 0.001 });
    expectBboxClose(r.min, r.max, part.mesh, 0.001);
    expect(r.normals).toBeTruthy();
    const n: number[] = [0, 0, 0];
    for (let i = 0; i < r.normals!.getCount(); i++) {
      r.normals!.getElement(i, n);
      expect(Math.hypot(...n)).toBeGreaterThan(0.97);
    }
  });

  it('loads with three GLTFLoader + MeshoptDecoder, as the app does, at real size in metres', async () => {
    const part = await flange();
    const glb = await toViewerGlb({ ...part.mesh, units: 'in' });
    const t = await loadWithThree(glb);
    expect(t.triangles).toBe(part.mesh.indices.length / 3);
    expect(t.geometry.getAttribute('normal')).toBeTruthy();
    expect(t.userData).toMatchObject({ units: 'in', metresPerUnit: 0.0254 });
    expectBboxClose(t.box.min.toArray(), t.box.max.toArray(), part.mesh, 0.0254);
  });

  it('is a fraction of the raw GLB (ratio and time for a 50k-triangle part printed)', async () => {
    const part = await plateWithHoles({ holes: [8, 6], segments: 256 });
    const tris = part.mesh.indices.length / 3;
    expect(tris).toBeGreaterThan(45_000);
    const raw = await toGlb(part.mesh);
    await toViewerGlb(part.mesh); // warm up
    const times: number[] = [];
    let glb: Uint8Array = new Uint8Array(0);
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      glb = await toViewerGlb(part.mesh);
      times.push(performance.now() - t0);
    }
    const ratio = glb.byteLength / raw.byteLength;
    console.log(
      `viewer GLB, ${tris} triangles: raw ${raw.byteLength} B (positions + indices) → ${glb.byteLength} B with normals = ${(ratio * 100).toFixed(1)} %, ${Math.min(...times).toFixed(0)} ms (best of 3)`,
    );
    expect(ratio).toBeLessThan(0.4);
    const r = await readBack(glb);
    expect(r.triangles).toBe(tris);
    expectBboxClose(r.min, r.max, part.mesh, 0.001);
  });
});
