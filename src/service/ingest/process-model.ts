// The CPU side of ingestion: runs inside a worker thread (see ingest-worker.ts), never on the
// service's main thread. Bytes in, derived files and facts out; no database, no blob store.
import sharp from 'sharp';
import { isImportError, plural, type CadReaderName, type ImportedModel, type ProductNode } from '../../geometry/import/importer';
import { nativeCadReader, type NativeReaderConfig } from './occt-native/native-reader';
import { defaultUpAxis, isStepFile, type UpAxis } from '../../contract/file-types';
import { importFile } from '../../geometry/import/registry';
import { applyToMesh, convertUnits, mergeMeshes, type LengthUnit, type Mesh } from '../../geometry/mesh/mesh';
import type { Mat4 } from '../../geometry/mesh/transform';
import { areaAndVolume, boundingBox, meshFacts, weld } from '../../geometry/mesh/mesh-facts';
import { clusterMesh, isClosedChain } from '../../geometry/mesh/cluster';
import { DETAIL_MAX_TRIANGLES, readLargeMesh, type LargeMesh, type Simplified } from './large-mesh';
import { creaseNormals } from '../../geometry/mesh/normals';
import { computeSearchFeatures, type SearchFeatures } from '../../geometry/search/search-features';
import { scanStep } from '../../geometry/step/step-references';
import { renderThumbnail } from '../../geometry/output/thumbnail';
import { toViewerGlb } from '../../geometry/output/viewer-file';
import type { ModelViews } from '../../geometry/search/views/model-views';
import { modelViewsBeside } from './views-pool';

/** What the model record stores as `facts` (lengths in `units`). */
export interface ModelFacts {
  triangles: number;
  boundingBox: { min: [number, number, number]; max: [number, number, number] };
  surfaceArea: number;
  /** Enclosed volume; null when the surface is not closed. */
  volume: number | null;
  shells: number;
  /** Shells closed on their own, and the volume they enclose when others are open (an assembly with a sheet). */
  closedShells: number;
  closedVolume: number | null;
  /** The copy features and pictures come from, when the file was finer than the detail kept (large-mesh.ts). */
  simplified?: Simplified;
  /** Which reader read a CAD file (STEP, IGES, BREP); absent for meshes. */
  reader?: CadReaderName;
  units: LengthUnit;
}

/**
 * A part file of an external-reference assembly, found among the tenant's models: sent and
 * imported once, however often the assembly places it.
 */
export interface PartInput {
  fileName: string;
  bytes: Uint8Array;
  /** Every occurrence of the file in the assembly, at least one. */
  placements: PartPlacement[];
}

export interface PartPlacement {
  /** Path of file names from the assembly down to this occurrence ("HEAD.stp/HEAD_FRONT.stp"). */
  path: string;
  /** Placement of the occurrence in the assembly (column-major); identity when absent. */
  transform?: number[];
}

export interface ScanResult {
  isStep: boolean;
  /** External files the STEP product structure references (file names only). */
  references: string[];
  /** Several products linked inside the one file. */
  embeddedAssembly: boolean;
}

export interface ProcessInput {
  fileName: string;
  /** The file, whole; or, for a mesh too large to hold, `largeFile`. */
  bytes?: Uint8Array;
  /** A mesh file read from disk a piece at a time (large-mesh.ts), never held whole. */
  largeFile?: { path: string };
  /** Most triangles the features, picture and viewer file are made from (DETAIL_MAX_TRIANGLES). */
  detailTriangles?: number;
  /** Part files of an external-reference assembly (already resolved by the caller). */
  parts?: PartInput[];
  /** Refuse meshes above this many triangles (typed arrays live outside the worker's heap limit). */
  maxTriangles?: number;
  /** Most bytes a packed format may unpack to (UNPACKED_MAX_BYTES). */
  unpackedMaxBytes?: number;
  thumbnailSize?: number;
  /** The unit chosen at upload, for a mesh that does not say its own. */
  declaredUnits?: LengthUnit | null;
  /** The model's up axis where a designer chose one (else the format's, file-types.ts). */
  upAxis?: UpAxis | null;
  /** OpenCascade built for this machine, when there is one (occt-native/README.md). */
  nativeReader?: NativeReaderConfig;
}

export type ProcessOutput =
  | {
      outcome: 'geometry';
      facts: ModelFacts;
      viewerGlb: Uint8Array;
      thumbnailPng: Uint8Array;
      /** The source file's own product structure (embedded STEP assemblies, glTF/3MF scenes). */
      structure: ProductNode | null;
      /** Source had no geometry of its own (external-reference assembly). */
      sourceHadGeometry: boolean;
      /** Part files that were present but gave no geometry, with why. */
      brokenParts: { path: string; reason: string }[];
      partsWithGeometry: number;
      /** Geometric search descriptors and the compact analysis for exact rescoring (search-features.ts). */
      search: SearchFeatures;
      /** View descriptors for image search (geometry/search/views/model-views.ts). */
      views: ModelViews;
      warnings: string[];
      timings: Record<string, number>;
    }
  | {
      outcome: 'failed' | 'unsupported';
      reason: string;
      brokenParts: { path: string; reason: string }[];
      timings: Record<string, number>;
    };

/** Cheap text scan of a STEP file for its product structure; other formats have none. */
export function scanModelFile(fileName: string, bytes: Uint8Array): ScanResult {
  if (!isStepFile(fileName)) return { isStep: false, references: [], embeddedAssembly: false };
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 64));
  if (!/ISO-10303-21/.test(head)) return { isStep: true, references: [], embeddedAssembly: false };
  const scan = scanStep(bytes);
  const self = baseName(fileName).toLowerCase();
  return {
    isStep: true,
    references: scan.references.filter((r) => r.toLowerCase() !== self),
    embeddedAssembly: scan.productCount > 1 && scan.assemblyLinks > 0,
  };
}

const DEFAULT_MAX_TRIANGLES = 10_000_000;

/**
 * Imports the source (and the parts of an external-reference assembly), combines them in
 * millimetres when units differ, and derives facts, the viewer GLB and the thumbnail PNG.
 */
export async function processModel(input: ProcessInput): Promise<ProcessOutput> {
  const timings: Record<string, number> = {};
  const lap = timer(timings);
  const maxTriangles = input.maxTriangles ?? DEFAULT_MAX_TRIANGLES;
  const parts = input.parts ?? [];
  const brokenParts: { path: string; reason: string }[] = [];
  const warnings: string[] = [];

  const limits = {
    ...(input.unpackedMaxBytes ? { unpackedMaxBytes: input.unpackedMaxBytes } : {}),
    ...(input.nativeReader ? { nativeCadReader: nativeCadReader(input.nativeReader) } : {}),
  };
  let reader: CadReaderName | undefined;
  const detailTriangles = input.detailTriangles ?? DETAIL_MAX_TRIANGLES;
  const source = input.largeFile
    ? await readLargeMesh(input.largeFile.path, input.fileName, detailTriangles)
    : await importFile(input.fileName, input.bytes ?? new Uint8Array(0), { fileName: input.fileName, ...limits });
  lap('import');
  let own: ImportedModel | undefined;
  if (isImportError(source)) {
    // An assembly whose geometry lives in its parts has none of its own; anything else is final.
    if (!(source.references?.length && parts.length)) {
      return { outcome: source.code, reason: source.reason, brokenParts, timings };
    }
  } else {
    own = withDeclaredUnits(source, input.declaredUnits);
    reader = source.reader;
    if (source.warnings) warnings.push(...source.warnings);
  }

  const meshes: Mesh[] = own ? [own] : [];
  let partsWithGeometry = 0;
  for (const part of parts) {
    // One import per distinct file; each occurrence is a placed copy of the same mesh.
    const imported = await importFile(part.fileName, part.bytes, { fileName: part.fileName, ...limits });
    if (isImportError(imported)) {
      // A sub-assembly file without geometry of its own is expected: its parts come separately.
      if (!imported.references?.length) brokenParts.push({ path: part.placements[0]?.path ?? part.fileName, reason: imported.reason });
      continue;
    }
    reader ??= imported.reader;
    for (const placement of part.placements) {
      partsWithGeometry++;
      meshes.push(placement.transform ? applyToMesh(imported, placement.transform as Mat4) : imported);
    }
  }
  lap('import-parts');
  if (meshes.length === 0) {
    const reason = brokenParts.length
      ? 'The assembly has no geometry of its own, and none of its part files could be read.'
      : 'The assembly has no geometry of its own, and none of its parts that hold geometry are here yet.';
    return { outcome: 'failed', reason, brokenParts, timings };
  }

  const whole = combine(meshes);
  const triangles = whole.indices.length / 3;
  if (triangles > maxTriangles) {
    return {
      outcome: 'failed',
      reason: `The model has ${plural(triangles, 'triangle')}, more than the ${plural(maxTriangles, 'triangle')} we process; simplify or split it and upload it again.`,
      brokenParts,
      timings,
    };
  }
  lap('combine');
  // Sized to the part: a mesh finer than the detail the features and pictures use is simplified
  // first; the facts still count every triangle of the file.
  let { exact, simplified } = own && 'exact' in own ? (own as LargeMesh) : ({} as Partial<LargeMesh>);
  let mesh = whole;
  if (!simplified && triangles > detailTriangles) {
    const measured = areaAndVolume(whole);
    exact = { triangles, bbox: boundingBox(whole), surfaceArea: measured.area, volume: measured.volume };
    const copy = clusterMesh(whole, exact.bbox, exact.surfaceArea, detailTriangles);
    mesh = copy.mesh;
    simplified = { triangles: mesh.indices.length / 3, tolerance: copy.grid.cell * Math.sqrt(3) };
    lap('simplify');
  }

  // One weld serves the facts and the crease normals (it is a third of their cost).
  const welded = weld(mesh);
  lap('weld');
  const f = meshFacts(mesh, { welded });
  const facts: ModelFacts = {
    triangles: exact?.triangles ?? f.triangleCount,
    boundingBox: exact ? { min: exact.bbox.min, max: exact.bbox.max } : { min: f.bbox.min, max: f.bbox.max },
    surfaceArea: exact?.surfaceArea ?? f.surfaceArea,
    // A simplified copy may touch itself where the file had a narrow neck: it is closed when its
    // edges balance, and then the volume is the file's own, summed over every triangle.
    volume:
      exact && simplified
        ? isClosedChain(mesh.indices)
          ? Math.abs(exact.volume)
          : null
        : f.volume === undefined
          ? null
          : Math.abs(f.volume),
    shells: f.shellCount,
    closedShells: f.closedShellCount,
    closedVolume: f.closedVolume === undefined ? null : Math.abs(f.closedVolume),
    ...(simplified ? { simplified } : {}),
    units: f.units,
    ...(reader ? { reader } : {}),
  };
  lap('facts');
  // The views render on the thread beside this one while this one does the rest (both are
  // CPU-bound; a model read alone has a core idle after its reader).
  const rendering = modelViewsBeside(mesh);
  // Awaited below; until then a failure must not count as unhandled.
  rendering.catch(() => undefined);
  const search = computeSearchFeatures(mesh, { facts: f, welded });
  lap('search');
  const shaded = creaseNormals(mesh, undefined, { welded });
  lap('normals');
  // The normals come from creaseNormals: the vertices are welded per smoothing group already.
  const viewerGlb = await toViewerGlb(shaded, { creaseSplit: true });
  lap('viewer');
  const image = renderThumbnail(shaded, input.thumbnailSize ?? 256, { up: input.upAxis ?? defaultUpAxis(input.fileName) });
  lap('thumbnail-render');
  const thumbnailPng = new Uint8Array(
    await sharp(Buffer.from(image.rgba.buffer, image.rgba.byteOffset, image.rgba.byteLength), {
      raw: { width: image.width, height: image.height, channels: 4 },
    })
      .png()
      .toBuffer(),
  );
  lap('thumbnail-png');
  // What is left of the views once the rest is done ('views'), and their whole time beside.
  const { views, ms: viewsBeside } = await rendering;
  lap('views');
  timings['views-beside'] = viewsBeside;

  return {
    outcome: 'geometry',
    facts,
    viewerGlb,
    thumbnailPng,
    structure: own?.structure ?? null,
    sourceHadGeometry: own !== undefined,
    brokenParts,
    partsWithGeometry,
    search,
    views,
    warnings,
    timings,
  };
}

/** A mesh that does not say its unit takes the one chosen at upload; one that says keeps its own. */
function withDeclaredUnits<M extends Mesh>(mesh: M, declared: LengthUnit | null | undefined): M {
  if (!declared || (mesh.units && mesh.units !== 'unknown')) return mesh;
  return { ...mesh, units: declared };
}

function combine(meshes: Mesh[]): Mesh {
  if (meshes.length === 1) return meshes[0]!;
  const units = new Set(meshes.map((m) => m.units ?? 'unknown'));
  if (units.size === 1) return mergeMeshes(meshes);
  // Mixed units: everything to millimetres (unknown counts as millimetres, the CAD default).
  return mergeMeshes(meshes.map((m) => convertUnits(m, 'mm')));
}

/**
 * Per stage: wall ms under `name` and CPU ms under `cpu:name`. The CPU figure is the whole
 * process's (Node 20 has no per-thread CPU clock), so it is exact only while one model is
 * processed alone — the benchmark's case, which splits its budgets by these keys.
 */
function timer(into: Record<string, number>) {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  return (name: string) => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    into[name] = (into[name] ?? 0) + (now - last);
    into[`cpu:${name}`] = (into[`cpu:${name}`] ?? 0) + (cpu.user + cpu.system) / 1000;
    last = now;
    lastCpu = process.cpuUsage();
  };
}

function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}
