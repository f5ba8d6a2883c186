// Parametric test parts (manifold-3d) and writers for every mesh format we import, so that tests
// and benchmarks can produce the same part in each format. Not for production paths.
import { Document, WebIO } from '@gltf-transform/core';
import { gltfArray } from '../output/viewer-file';
import Module, { type Manifold, type ManifoldToplevel } from 'manifold-3d';
import { strToU8, zipSync } from 'three/examples/jsm/libs/fflate.module.js';
import type { Mesh } from '../mesh/mesh';

/** A generated part with the exact measurements manifold computed for it. */
export interface FixturePart {
  name: string;
  mesh: Mesh;
  volume: number;
  surfaceArea: number;
  /** Through-holes, as manifold counts them. */
  genus: number;
}

let manifold: Promise<ManifoldToplevel> | undefined;

export function loadManifold(): Promise<ManifoldToplevel> {
  manifold ??= Module().then((m) => {
    m.setup();
    return m;
  });
  return manifold;
}

/** A manifold-3d solid as a plain Mesh (mm). */
export function manifoldToMesh(solid: Manifold): Mesh {
  const gl = solid.getMesh();
  const np = gl.numProp;
  const n = gl.vertProperties.length / np;
  const positions = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    positions[i * 3] = gl.vertProperties[i * np]!;
    positions[i * 3 + 1] = gl.vertProperties[i * np + 1]!;
    positions[i * 3 + 2] = gl.vertProperties[i * np + 2]!;
  }
  return { positions, indices: Uint32Array.from(gl.triVerts), units: 'mm' };
}

function toPart(name: string, solid: Manifold): FixturePart {
  const part: FixturePart = {
    name,
    mesh: manifoldToMesh(solid),
    volume: solid.volume(),
    surfaceArea: solid.surfaceArea(),
    genus: solid.genus(),
  };
  solid.delete();
  return part;
}

/** Rectangular plate with a grid of through-holes (mm). */
export async function plateWithHoles(
  o: { length?: number; width?: number; thickness?: number; holes?: [number, number]; holeDiameter?: number; segments?: number } = {},
): Promise<FixturePart> {
  const { Manifold } = await loadManifold();
  const { length = 100, width = 60, thickness = 8, holes = [2, 2], holeDiameter = 8, segments = 32 } = o;
  let solid = Manifold.cube([length, width, thickness]);
  for (let i = 0; i < holes[0]; i++) {
    for (let j = 0; j < holes[1]; j++) {
      const x = (length * (i + 1)) / (holes[0] + 1);
      const y = (width * (j + 1)) / (holes[1] + 1);
      const hole = Manifold.cylinder(thickness + 2, holeDiameter / 2, holeDiameter / 2, segments).translate(x, y, -1);
      const next = solid.subtract(hole);
      solid.delete();
      hole.delete();
      solid = next;
    }
  }
  return toPart('plate-with-holes', solid);
}

/** L-shaped bracket with a hole in each leg and a fillet-like gusset (mm). */
export async function bracket(o: { size?: number; thickness?: number; depth?: number; segments?: number } = {}): Promise<FixturePart> {
  const { Manifold, CrossSection } = await loadManifold();
  const { size = 50, thickness = 6, depth = 30, segments = 32 } = o;
  const profile = new CrossSection([
    [
      [0, 0],
      [size, 0],
      [size, thickness],
      [thickness * 2.5, thickness],
      [thickness, thickness * 2.5],
      [thickness, size],
      [0, size],
    ],
  ]);
  const body = profile.extrude(depth);
  profile.delete();
  const r = depth / 6;
  // Cylinders run along z; tip them onto y (through the horizontal leg) and x (the vertical leg).
  const h1b = Manifold.cylinder(thickness + 2, r, r, segments)
    .rotate([90, 0, 0])
    .translate(size * 0.65, thickness + 1, depth / 2);
  const h2 = Manifold.cylinder(thickness + 2, r, r, segments)
    .rotate([0, 90, 0])
    .translate(-1, size * 0.65, depth / 2);
  const a = body.subtract(h1b);
  const solid = a.subtract(h2);
  [body, h1b, h2, a].forEach((m) => m.delete());
  return toPart('bracket', solid);
}

/** Round flange: disk with a raised hub, a centre bore and a bolt circle (mm). */
export async function flange(o: { diameter?: number; thickness?: number; bolts?: number; segments?: number } = {}): Promise<FixturePart> {
  const { Manifold } = await loadManifold();
  const { diameter = 120, thickness = 12, bolts = 6, segments = 64 } = o;
  const R = diameter / 2;
  const disk = Manifold.cylinder(thickness, R, R, segments);
  const hub = Manifold.cylinder(thickness * 2.5, R * 0.4, R * 0.4, segments);
  let solid = disk.add(hub);
  disk.delete();
  hub.delete();
  const bore = Manifold.cylinder(thickness * 3, R * 0.25, R * 0.25, segments).translate(0, 0, -1);
  let next = solid.subtract(bore);
  solid.delete();
  bore.delete();
  solid = next;
  for (let i = 0; i < bolts; i++) {
    const a = (2 * Math.PI * i) / bolts;
    const bolt = Manifold.cylinder(thickness + 2, R * 0.08, R * 0.08, 24).translate(R * 0.72 * Math.cos(a), R * 0.72 * Math.sin(a), -1);
    next = solid.subtract(bolt);
    solid.delete();
    bolt.delete();
    solid = next;
  }
  return toPart('flange', solid);
}

/** A sphere with about `triangles` triangles, for size and timing tests (mm). */
export async function sphere(o: { radius?: number; triangles?: number } = {}): Promise<FixturePart> {
  const { Manifold } = await loadManifold();
  const { radius = 25, triangles = 50_000 } = o;
  // Manifold's geodesic sphere has about segments² / 2 triangles.
  const segments = Math.max(8, Math.round(Math.sqrt(triangles * 2) / 4) * 4);
  return toPart('sphere', Manifold.sphere(radius, segments));
}

/** Axis-aligned box (mm), the simplest closed part. */
export async function box(size: [number, number, number] = [10, 20, 30]): Promise<FixturePart> {
  const { Manifold } = await loadManifold();
  return toPart('box', Manifold.cube(size));
}

// --- writers -------------------------------------------------------------------------------

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toPrecision(9));

function corner(mesh: Mesh, t: number, k: number): [number, number, number] {
  const i = mesh.indices[t * 3 + k]! * 3;
  return [mesh.positions[i]!, mesh.positions[i + 1]!, mesh.positions[i + 2]!];
}

function normal(a: number[], b: number[], c: number[]): [number, number, number] {
  const u = [b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!];
  const v = [c[0]! - a[0]!, c[1]! - a[1]!, c[2]! - a[2]!];
  const n: [number, number, number] = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
  const l = Math.hypot(...n) || 1;
  return [n[0] / l, n[1] / l, n[2] / l];
}

/** Binary STL (triangle soup with facet normals). `header` goes into the 80-byte header. */
export function toStlBinary(mesh: Mesh, header = 'binary STL written by geometry/fixtures'): Uint8Array {
  const nt = mesh.indices.length / 3;
  const out = new Uint8Array(84 + nt * 50);
  out.set(new TextEncoder().encode(header).subarray(0, 80));
  const dv = new DataView(out.buffer);
  dv.setUint32(80, nt, true);
  for (let t = 0; t < nt; t++) {
    const a = corner(mesh, t, 0),
      b = corner(mesh, t, 1),
      c = corner(mesh, t, 2);
    const vals = [...normal(a, b, c), ...a, ...b, ...c];
    const o = 84 + t * 50;
    vals.forEach((v, k) => dv.setFloat32(o + k * 4, v, true));
  }
  return out;
}

export function toStlAscii(mesh: Mesh, name = 'part'): Uint8Array {
  const nt = mesh.indices.length / 3;
  const lines: string[] = [`solid ${name}`];
  for (let t = 0; t < nt; t++) {
    const a = corner(mesh, t, 0),
      b = corner(mesh, t, 1),
      c = corner(mesh, t, 2);
    lines.push(`  facet normal ${normal(a, b, c).map(fmt).join(' ')}`, '    outer loop');
    for (const p of [a, b, c]) lines.push(`      vertex ${p.map(fmt).join(' ')}`);
    lines.push('    endloop', '  endfacet');
  }
  lines.push(`endsolid ${name}`, '');
  return new TextEncoder().encode(lines.join('\n'));
}

export function toObj(mesh: Mesh): Uint8Array {
  const lines: string[] = ['# written by geometry/fixtures', 'o part'];
  for (let i = 0; i < mesh.positions.length; i += 3)
    lines.push(`v ${fmt(mesh.positions[i]!)} ${fmt(mesh.positions[i + 1]!)} ${fmt(mesh.positions[i + 2]!)}`);
  for (let t = 0; t < mesh.indices.length; t += 3)
    lines.push(`f ${mesh.indices[t]! + 1} ${mesh.indices[t + 1]! + 1} ${mesh.indices[t + 2]! + 1}`);
  lines.push('');
  return new TextEncoder().encode(lines.join('\n'));
}

export function toOff(mesh: Mesh): Uint8Array {
  const nv = mesh.positions.length / 3;
  const nt = mesh.indices.length / 3;
  const lines: string[] = ['OFF', `${nv} ${nt} 0`];
  for (let i = 0; i < mesh.positions.length; i += 3)
    lines.push(`${fmt(mesh.positions[i]!)} ${fmt(mesh.positions[i + 1]!)} ${fmt(mesh.positions[i + 2]!)}`);
  for (let t = 0; t < mesh.indices.length; t += 3) lines.push(`3 ${mesh.indices[t]} ${mesh.indices[t + 1]} ${mesh.indices[t + 2]}`);
  lines.push('');
  return new TextEncoder().encode(lines.join('\n'));
}

export function toPly(mesh: Mesh, format: 'ascii' | 'binary_little_endian' = 'binary_little_endian'): Uint8Array {
  const nv = mesh.positions.length / 3;
  const nt = mesh.indices.length / 3;
  const header = [
    'ply',
    `format ${format} 1.0`,
    'comment written by geometry/fixtures',
    `element vertex ${nv}`,
    'property float x',
    'property float y',
    'property float z',
    `element face ${nt}`,
    'property list uchar int vertex_indices',
    'end_header',
    '',
  ].join('\n');
  if (format === 'ascii') {
    const lines: string[] = [];
    for (let i = 0; i < mesh.positions.length; i += 3)
      lines.push(`${fmt(mesh.positions[i]!)} ${fmt(mesh.positions[i + 1]!)} ${fmt(mesh.positions[i + 2]!)}`);
    for (let t = 0; t < mesh.indices.length; t += 3) lines.push(`3 ${mesh.indices[t]} ${mesh.indices[t + 1]} ${mesh.indices[t + 2]}`);
    return new TextEncoder().encode(header + lines.join('\n') + '\n');
  }
  const h = new TextEncoder().encode(header);
  const out = new Uint8Array(h.byteLength + nv * 12 + nt * 13);
  out.set(h);
  const dv = new DataView(out.buffer);
  let o = h.byteLength;
  for (let i = 0; i < mesh.positions.length; i++, o += 4) dv.setFloat32(o, mesh.positions[i]!, true);
  for (let t = 0; t < nt; t++) {
    dv.setUint8(o++, 3);
    for (let k = 0; k < 3; k++, o += 4) dv.setInt32(o, mesh.indices[t * 3 + k]!, true);
  }
  return out;
}

function gltfDocument(mesh: Mesh, scaleToMetres: boolean): Document {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const s = scaleToMetres ? unitToMetres(mesh) : 1;
  const pos = s === 1 ? mesh.positions : mesh.positions.map((v) => v * s);
  const position = doc.createAccessor().setType('VEC3').setArray(gltfArray(pos)).setBuffer(buffer);
  const indices = doc.createAccessor().setType('SCALAR').setArray(gltfArray(mesh.indices)).setBuffer(buffer);
  const prim = doc.createPrimitive().setAttribute('POSITION', position).setIndices(indices);
  const node = doc.createNode('part').setMesh(doc.createMesh('part').addPrimitive(prim));
  doc.createScene('scene').addChild(node);
  return doc;
}

/** GLB with one mesh node. glTF is in metres, so millimetre coordinates are scaled by 0.001. */
export async function toGlb(mesh: Mesh, o: { scaleToMetres?: boolean } = {}): Promise<Uint8Array> {
  return new WebIO().writeBinary(gltfDocument(mesh, o.scaleToMetres ?? true));
}

/** Text glTF with its buffer embedded as a base64 data URI (one self-contained file). */
export async function toGltf(mesh: Mesh, o: { scaleToMetres?: boolean } = {}): Promise<Uint8Array> {
  const { json, resources } = await new WebIO().writeJSON(gltfDocument(mesh, o.scaleToMetres ?? true));
  for (const b of json.buffers ?? []) {
    const data = b.uri ? resources[b.uri] : undefined;
    if (!data) continue;
    let bin = '';
    for (let i = 0; i < data.length; i += 0x8000) bin += String.fromCharCode(...data.subarray(i, i + 0x8000));
    b.uri = `data:application/octet-stream;base64,${btoa(bin)}`;
  }
  return new TextEncoder().encode(JSON.stringify(json));
}

function unitToMetres(mesh: Mesh): number {
  switch (mesh.units) {
    case 'cm':
      return 0.01;
    case 'm':
      return 1;
    case 'in':
      return 0.0254;
    default:
      return 0.001;
  }
}

/** 3MF package (core spec, one object, one build item) in millimetres. */
export function to3mf(mesh: Mesh): Uint8Array {
  const v: string[] = [];
  for (let i = 0; i < mesh.positions.length; i += 3)
    v.push(`<vertex x="${fmt(mesh.positions[i]!)}" y="${fmt(mesh.positions[i + 1]!)}" z="${fmt(mesh.positions[i + 2]!)}"/>`);
  const t: string[] = [];
  for (let i = 0; i < mesh.indices.length; i += 3)
    t.push(`<triangle v1="${mesh.indices[i]}" v2="${mesh.indices[i + 1]}" v3="${mesh.indices[i + 2]}"/>`);
  const model = `<?xml version="1.0" encoding="UTF-8"?>
<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
 <resources>
  <object id="1" type="model" name="part">
   <mesh>
    <vertices>${v.join('')}</vertices>
    <triangles>${t.join('')}</triangles>
   </mesh>
  </object>
 </resources>
 <build><item objectid="1"/></build>
</model>
`;
  const contentTypes = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>`;
  const rels = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>`;
  return zipSync({
    '[Content_Types].xml': strToU8(contentTypes),
    _rels: { '.rels': strToU8(rels) },
    '3D': { '3dmodel.model': strToU8(model) },
  });
}
