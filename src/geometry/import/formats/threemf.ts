// three's 3MFLoader needs DOMParser, which workers and Node lack: unzip (zip-archive.ts, sizes
// checked before anything is inflated) and scan the few elements the core specification needs.
import {
  count,
  defineImporter,
  DEFAULT_UNPACKED_MAX_BYTES,
  failed,
  plural,
  type ImportedModel,
  type ImportError,
  type ProductNode,
} from '../importer';
import { applyToMesh, mergeMeshes, type LengthUnit, type Mesh } from '../../mesh/mesh';
import { identity, multiply, scaling, type Mat4 } from '../../mesh/transform';
import { validateMesh } from '../validate';
import { ArchiveRefused, readZipDirectory, readZipEntry } from './zip-archive';

interface ObjectDef {
  name: string;
  mesh?: Mesh;
  components: { objectId: string; path: string; transform: Mat4 }[];
}

const UNITS: Record<string, [LengthUnit, number]> = {
  micron: ['mm', 0.001],
  millimeter: ['mm', 1],
  centimeter: ['cm', 1],
  meter: ['m', 1],
  inch: ['in', 1],
  foot: ['in', 12],
};

/** 3MF core: meshes, components and build items with their transforms; materials are ignored. */
export const threeMfImporter = defineImporter('3mf', '3MF', (bytes, ctx) => {
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b)) return failed('The file is not a ZIP package, so it cannot be a 3MF file.');
  const files: Record<string, Uint8Array> = {};
  try {
    for (const entry of readZipDirectory(bytes, '3MF', ctx?.unpackedMaxBytes ?? DEFAULT_UNPACKED_MAX_BYTES)) {
      if (/\.(model|rels)$/i.test(entry.name)) files[entry.name] = readZipEntry(bytes, entry, '3MF');
    }
  } catch (e) {
    if (e instanceof ArchiveRefused) return failed(e.message);
    throw e;
  }
  const text = (name: string) => new TextDecoder().decode(files[name.replace(/^\//, '')] ?? new Uint8Array());
  const rels = text('_rels/.rels');
  const start = /Target="([^"]+)"[^>]*Type="[^"]*\/3dmodel"|Type="[^"]*\/3dmodel"[^>]*Target="([^"]+)"/.exec(rels);
  const startPath = normalizePath(start?.[1] ?? start?.[2] ?? Object.keys(files).find((f) => /\.model$/i.test(f)) ?? '');
  if (!startPath || !(startPath in files)) return failed('The 3MF package contains no 3D model part (3D/3dmodel.model is missing).');

  const models = new Map<string, { objects: Map<string, ObjectDef>; xml: string }>();
  const model = (path: string) => {
    let m = models.get(path);
    if (!m) {
      const xml = text(path);
      m = { objects: parseObjects(xml, path), xml };
      models.set(path, m);
    }
    return m;
  };
  let main;
  try {
    main = model(startPath);
  } catch (e) {
    if (e instanceof BadModel) return failed(`The 3MF file is damaged: ${e.message}.`);
    throw e;
  }
  const unitName = /<(?:\w+:)?model\b[^>]*\bunit="(\w+)"/.exec(main.xml)?.[1] ?? 'millimeter';
  const unit = UNITS[unitName];
  if (!unit) return failed(`The 3MF file uses an unknown length unit "${unitName}".`);

  const parts: Mesh[] = [];
  const place = (path: string, id: string, transform: Mat4, depth: number): ProductNode | ImportError => {
    let obj;
    try {
      obj = model(path).objects.get(id);
    } catch (e) {
      if (e instanceof BadModel) return failed(`The 3MF file is damaged: ${e.message}.`);
      throw e;
    }
    if (!obj) return failed(`The 3MF file refers to object ${id}, which it does not define.`);
    if (depth > 32) return failed('The 3MF file nests its components in a loop.');
    let triangles = 0;
    if (obj.mesh) {
      parts.push(applyToMesh(obj.mesh, transform));
      triangles = obj.mesh.indices.length / 3;
    }
    const children: ProductNode[] = [];
    for (const c of obj.components) {
      const child = place(c.path || path, c.objectId, multiply(transform, c.transform), depth + 1);
      if ('code' in child) return child;
      children.push(child);
    }
    return { name: obj.name, triangleCount: triangles, children };
  };

  const items = [...main.xml.matchAll(/<(?:\w+:)?item\b([^>]*)>/g)].map((m) => attrs(m[1]!));
  if (items.length === 0) return failed('The 3MF file has no build items, so it places no object.');
  const children: ProductNode[] = [];
  for (const item of items) {
    const node = place(normalizePath(item['p:path'] ?? '') || startPath, item.objectid ?? '', parseTransform(item.transform), 0);
    if ('code' in node) return node;
    children.push(node);
  }
  let merged: Mesh = mergeMeshes(parts);
  if (unit[1] !== 1) merged = applyToMesh(merged, scaling(unit[1]));
  const result: ImportedModel = { ...merged, units: unit[0], structure: { name: '', triangleCount: 0, children } };
  return validateMesh(result, '3MF') ?? result;
});

function parseObjects(xml: string, path: string): Map<string, ObjectDef> {
  const objects = new Map<string, ObjectDef>();
  for (const m of xml.matchAll(/<(?:\w+:)?object\b([^>]*)>([\s\S]*?)<\/(?:\w+:)?object>/g)) {
    const a = attrs(m[1]!);
    const body = m[2]!;
    const def: ObjectDef = { name: a.name ?? a.id ?? '', components: [] };
    if (/<(?:\w+:)?mesh\b/.test(body)) def.mesh = parseMesh(body, a.id ?? '?');
    for (const c of body.matchAll(/<(?:\w+:)?component\b([^>]*)>/g)) {
      const ca = attrs(c[1]!);
      def.components.push({
        objectId: ca.objectid ?? '',
        path: normalizePath(ca['p:path'] ?? '') || path,
        transform: parseTransform(ca.transform),
      });
    }
    objects.set(a.id ?? '', def);
  }
  return objects;
}

function parseMesh(body: string, id: string): Mesh {
  const coords: number[] = [];
  for (const v of body.matchAll(/<(?:\w+:)?vertex\b([^>]*)>/g)) {
    const a = attrs(v[1]!);
    coords.push(Number(a.x), Number(a.y), Number(a.z));
  }
  const nv = coords.length / 3;
  const idx: number[] = [];
  for (const t of body.matchAll(/<(?:\w+:)?triangle\b([^>]*)>/g)) {
    const a = attrs(t[1]!);
    const tri = [Number(a.v1), Number(a.v2), Number(a.v3)];
    for (const k of tri) {
      if (!Number.isInteger(k) || k < 0 || k >= nv) {
        throw new BadModel(
          `triangle ${count(idx.length / 3 + 1)} of object ${id} refers to vertex ${k}, but the object has only ${plural(nv, 'vertex', 'vertices')}`,
        );
      }
    }
    idx.push(...tri);
  }
  return { positions: Float32Array.from(coords), indices: Uint32Array.from(idx) };
}

function attrs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/([\w:]+)\s*=\s*"([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

/** 3MF "m00 m01 m02 m10 m11 m12 m20 m21 m22 m30 m31 m32" (row vectors) → column-major Mat4. */
function parseTransform(s: string | undefined): Mat4 {
  if (!s) return identity();
  const v = s.trim().split(/\s+/).map(Number);
  if (v.length !== 12 || v.some((x) => !Number.isFinite(x))) return identity();
  return [v[0]!, v[1]!, v[2]!, 0, v[3]!, v[4]!, v[5]!, 0, v[6]!, v[7]!, v[8]!, 0, v[9]!, v[10]!, v[11]!, 1];
}

function normalizePath(p: string): string {
  return p.replace(/^\//, '');
}

class BadModel extends Error {}
