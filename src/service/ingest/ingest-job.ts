import type { Kysely } from 'kysely';
import { BlobNotFoundError, modelBlobPrefix, withLocalFile, type BlobStore } from '../files/blob-store';
import { isStreamedMesh } from './large-mesh';
import { storeSearchFeatures } from '../search/features-store';
import { settleExactPairs } from '../search/engine';
import { log } from '../log';
import { storeModelViews } from '../images/model-views-store';
import type { Database, ModelRow } from '../store/schema';
import { declaredUnitChoices, type DeclaredUnit } from '../../contract/models';
import type { IngestJob, ModelLifecycle } from '../store/model-lifecycle';
import { assembliesWaitingFor, findModelById, lockModel, storedFilesNamed } from '../store/models';
import { folderAncestry, folderSubtree, resolveAssembly, type AssemblyTreeNode, type ResolvedAssembly } from './assembly-parts';
import type { ProductNode } from '../../geometry/import/importer';
import type { ProcessOutput, ScanResult } from './process-model';
import { isStepFile, parseUpAxis } from '../../contract/file-types';
import { WorkerLimitError, type WorkerPool } from './worker-pool';
import type { NativeReaderConfig } from './occt-native/native-reader';

export type FinalState = 'unsupported' | 'failed-incomplete' | 'failed' | 'finished-incomplete' | 'finished';

export interface IngestDeps {
  db: Kysely<Database>;
  blobs: BlobStore;
  pool: WorkerPool;
  /** Wall-clock limit of the processing task of one model. */
  timeoutMs: number;
  maxTriangles?: number;
  unpackedMaxBytes?: number;
  /** OpenCascade built for this machine (occt-native/README.md); absent: occt-import-js reads CAD files. */
  nativeReader?: NativeReaderConfig;
  /** Mesh files from this size are read from disk a piece at a time (LARGE_MESH_MIN_BYTES). */
  largeMeshBytes?: number;
  /** Most triangles features and pictures are made from (DETAIL_MAX_TRIANGLES). */
  detailTriangles?: number;
  /** Writes the outcome; queues assemblies a finished model may complete. */
  lifecycle: ModelLifecycle;
}

export type IngestResult =
  | { kind: 'skipped'; why: string }
  /** A newer upload or reprocess request arrived meanwhile; this run's results were dropped. */
  | { kind: 'stale' }
  | {
      kind: 'done';
      state: FinalState;
      reason: string | null;
      cpuMs?: number;
      timings?: Record<string, number>;
      fileType?: string;
      /** The CAD reader that read the file (STEP, IGES, BREP). */
      reader?: string;
    };

/**
 * Processes one model: source bytes → (parts of an external-reference assembly) → worker thread
 * → derived files in the blob store → one transaction writing state, facts, keys and links, but
 * only if the model's version is still the one this run started from. Then wakes assemblies
 * that were waiting for this file. Throws only for infrastructure failures (database, blob
 * store), which the queue retries; everything about the file itself ends in a state.
 */
export async function ingestModel(given: IngestDeps, job: Pick<IngestJob, 'modelId'> & Partial<IngestJob>): Promise<IngestResult> {
  // A recipe upgrade reprocesses every model: nothing happened to them that a webhook should tell.
  const deps = job.reason === 'upgrade' ? { ...given, lifecycle: given.lifecycle.quiet() } : given;
  const { db, blobs, pool } = deps;
  const row = await findModelById(db, job.modelId);
  if (!row) return { kind: 'skipped', why: 'deleted' };
  if (row.state !== 'processing') return { kind: 'skipped', why: `state is ${row.state}` };
  // Jobs sent before versions were carried have none: they process the current one.
  if (job.version !== undefined && job.version !== row.version) return { kind: 'stale' };
  const version = row.version;

  const size = row.blob_key ? await blobs.size(row.blob_key) : null;
  if (!row.blob_key || size === null) {
    return finish(deps, row, version, { state: 'failed', reason: 'The uploaded file could not be found on the server; upload it again.' });
  }
  const common = {
    fileName: row.file_name,
    maxTriangles: deps.maxTriangles,
    unpackedMaxBytes: deps.unpackedMaxBytes,
    ...(deps.detailTriangles ? { detailTriangles: deps.detailTriangles } : {}),
    ...(deps.nativeReader ? { nativeReader: deps.nativeReader } : {}),
    declaredUnits: declaredUnitOf(row.declared_units),
    upAxis: parseUpAxis(row.up_axis),
  };
  const blobKey = row.blob_key;

  let scan: ScanResult = { isStep: false, references: [], embeddedAssembly: false };
  let resolved: ResolvedAssembly | undefined;
  let out: (ProcessOutput & { cpuMs?: number }) | undefined;
  let limitReason: string | undefined;
  try {
    if (isStreamedMesh(row.file_name, size, deps.largeMeshBytes)) {
      // Never held whole, here or in the worker: read from disk a piece at a time, with twice the
      // time (a gigabyte of triangles is read twice; the queue's lease allows it).
      out = await withLocalFile(blobs, blobKey, (path) =>
        pool.run({ kind: 'process', ...common, largeFile: { path } }, { timeoutMs: 2 * deps.timeoutMs }),
      );
    } else {
      let bytes: Uint8Array;
      try {
        bytes = await blobs.get(blobKey);
      } catch (error) {
        if (!(error instanceof BlobNotFoundError)) throw error;
        return finish(deps, row, version, {
          state: 'failed',
          reason: 'The uploaded file could not be found on the server; upload it again.',
        });
      }
      if (isStepFile(row.file_name)) scan = await pool.run({ kind: 'scan', fileName: row.file_name, bytes }, { timeoutMs: 30_000 });
      if (scan.references.length) resolved = await resolveAssembly(deps, row, scan.references, bytes);
      out = await pool.run({ kind: 'process', ...common, bytes, parts: resolved?.parts ?? [] }, { timeoutMs: deps.timeoutMs });
    }
  } catch (error) {
    if (!(error instanceof WorkerLimitError)) throw error;
    // Another model ran beside it: which one took the memory is unknown, so the queue retries
    // (alone, the culprit ends failed below on a later attempt).
    if (error.shared)
      throw new Error(`processing was stopped at the memory limit while other models were processed: ${error.message}`, { cause: error });
    limitReason = `Processing was stopped because ${error.message}. If the file is very large or complex, simplify or split it and upload it again.`;
  }

  const references = scan.references;
  const missing = resolved?.missing ?? [];
  const external = references.length > 0;
  // A part placed several times is imported (and may fail) once per occurrence: report it once.
  const broken = (out?.brokenParts ?? []).filter((b, i, all) => all.findIndex((o) => o.path === b.path) === i);
  const geometry = out?.outcome === 'geometry' ? out : undefined;

  let state: FinalState;
  const reasons: string[] = [];
  if (missing.length) reasons.push(missingReason(missing));
  if (broken.length) reasons.push(`Some part files could not be read: ${broken.map((b) => `${b.path}: ${b.reason}`).join(' ')}`);
  if (geometry) {
    state = external && (missing.length || broken.length) ? 'finished-incomplete' : 'finished';
  } else {
    if (limitReason) reasons.unshift(limitReason);
    else if (out && out.outcome !== 'geometry') reasons.unshift(out.reason);
    state = missing.length ? 'failed-incomplete' : out?.outcome === 'unsupported' ? 'unsupported' : 'failed';
  }

  const isAssembly = external || scan.embeddedAssembly;
  const partCount = external
    ? (geometry?.partsWithGeometry ?? 0)
    : scan.embeddedAssembly && geometry?.structure
      ? countLeaves(geometry.structure)
      : null;
  const tree = external ? (resolved?.tree ?? []) : scan.embeddedAssembly && geometry?.structure ? embeddedTree(geometry.structure) : null;

  return finish(deps, row, version, {
    state,
    reason: reasons.length ? reasons.join(' ') : null,
    geometry,
    isAssembly,
    partCount,
    references: scan.isStep ? references : null,
    tree,
    missing: external ? missing : null,
    links: resolved?.links ?? [],
    unreadable: resolved?.unreadable ?? [],
    cpuMs: out?.cpuMs,
  });
}

interface Outcome {
  state: FinalState;
  reason: string | null;
  geometry?: Extract<ProcessOutput, { outcome: 'geometry' }> | undefined;
  isAssembly?: boolean;
  partCount?: number | null;
  references?: string[] | null;
  tree?: AssemblyTreeNode[] | null;
  missing?: string[] | null;
  links?: { refName: string; partId: string | null }[];
  unreadable?: string[];
  cpuMs?: number | undefined;
}

async function finish(deps: IngestDeps, row: ModelRow, version: number, o: Outcome): Promise<IngestResult> {
  const { db, blobs } = deps;
  // Derived files go under a per-version folder, so a slow stale run can never overwrite the
  // files of a newer one; the row points at the files of the version that won.
  const dir = `${modelBlobPrefix(row.tenant_id, row.id)}derived-v${version}/`;
  const keys = o.geometry ? { viewer: `${dir}viewer.glb`, thumbnail: `${dir}thumbnail.png` } : { viewer: null, thumbnail: null };
  if (o.geometry && keys.viewer && keys.thumbnail) {
    await blobs.put(keys.viewer, o.geometry.viewerGlb, { contentType: 'model/gltf-binary' });
    await blobs.put(keys.thumbnail, o.geometry.thumbnailPng, { contentType: 'image/png' });
  }

  // Search features first, while the model is still processing, then its exact pairs: when the
  // state below makes it searchable, its first query finds them stored (no cold query).
  const search = o.geometry?.search;
  let storedEarly = false;
  if (search) {
    storedEarly = await db.transaction().execute(async (trx) => {
      const current = await lockModel(trx, row.id);
      if (!current || current.version !== version || current.state !== 'processing') return false;
      await storeSearchFeatures(trx, row, search);
      return true;
    });
    if (storedEarly) {
      try {
        await settleExactPairs(db, row.id, version);
      } catch (error) {
        // Not fatal: a query that meets a missing pair computes it itself.
        log.warn({ err: error, modelId: row.id }, 'search pairs of a model could not be settled');
      }
    }
  }

  const written = await db.transaction().execute(async (trx) => {
    const current = await lockModel(trx, row.id);
    if (!current || current.version !== version) return undefined;
    await deps.lifecycle.complete(
      row.id,
      version,
      {
        state: o.state,
        stateReason: o.reason,
        facts: o.geometry?.facts ?? null,
        viewerKey: keys.viewer,
        thumbnailKey: keys.thumbnail,
        isAssembly: o.isAssembly ?? false,
        partCount: o.partCount ?? null,
        missingParts: o.missing ?? null,
        stepReferences: o.references ?? null,
        assemblyTree: o.tree ? { type: 'assemblyTree', modelId: row.id, children: o.tree } : null,
      },
      trx,
    );
    await trx.deleteFrom('assembly_links').where('assembly_id', '=', row.id).execute();
    const links = o.links ?? [];
    if (links.length) {
      await trx
        .insertInto('assembly_links')
        .values(links.map((l) => ({ assembly_id: row.id, part_id: l.partId, ref_name: l.refName })))
        .onConflict((c) => c.columns(['assembly_id', 'ref_name']).doNothing())
        .execute();
    }
    // Search descriptors change with the state, unless stored above (none without geometry).
    if (!storedEarly) await storeSearchFeatures(trx, row, search);
    // Image search: the model's view descriptors, likewise.
    await storeModelViews(trx, row.id, version, o.geometry?.views);
    return current;
  });

  if (!written) {
    if (keys.viewer && keys.thumbnail) await Promise.all([blobs.delete(keys.viewer), blobs.delete(keys.thumbnail)]).catch(() => {});
    return { kind: 'stale' };
  }
  const old = [written.viewer_key, written.thumbnail_key].filter(
    (k): k is string => k !== null && k !== keys.viewer && k !== keys.thumbnail,
  );
  await Promise.all(old.map((k) => blobs.delete(k))).catch(() => {});

  // Models ingested at the same moment cannot settle their pair while each sees the other still
  // processing; once searchable, a second pass stores what the first could not (the later of the
  // two finds the other searchable). Part-in-part too: an assembly and its parts usually arrive in
  // one batch, and "used in" reads only stored pairs. Pairs stored by the first pass are read, not
  // computed again, so the second pass costs only the pairs the first could not see.
  if (storedEarly && (o.state === 'finished' || o.state === 'finished-incomplete')) {
    await settleExactPairs(db, row.id).catch((error: unknown) =>
      log.warn({ err: error, modelId: row.id }, 'search pairs of a model could not be settled'),
    );
  }
  await wakeWaitingAssemblies(deps, row, o);
  return {
    kind: 'done',
    state: o.state,
    reason: o.reason,
    fileType: row.file_type,
    ...(o.cpuMs !== undefined ? { cpuMs: o.cpuMs } : {}),
    ...(o.geometry ? { timings: o.geometry.timings } : {}),
    ...(o.geometry?.facts.reader ? { reader: o.geometry.facts.reader } : {}),
  };
}

/**
 * Part arrival (rules 2–4): assemblies of the tenant in this model's folder or any folder above
 * it that miss this file name, or reference it without being linked to this very model, are
 * processed again. And if a part this assembly missed appeared while it was being processed, the
 * assembly itself goes round once more (its own check and the part's check cannot both miss).
 */
async function wakeWaitingAssemblies(deps: IngestDeps, row: ModelRow, o: Outcome) {
  const { db } = deps;
  const name = row.file_name_lower;
  const folders = await folderAncestry(db, row.tenant_id, row.folder_id);
  for (const id of await assembliesWaitingFor(db, row.tenant_id, folders, name, row.id))
    await deps.lifecycle.reprocess(id, { reason: 'part-arrived' });

  if (o.missing?.length) {
    const subtree = await folderSubtree(db, row.tenant_id, row.folder_id);
    const unreadable = o.unreadable ?? [];
    const arrived = await storedFilesNamed(db, row.tenant_id, [...subtree.keys()], o.missing, [row.id, ...unreadable]);
    if (arrived.length) await deps.lifecycle.reprocess(row.id, { reason: 'part-arrived' });
  }
}

function missingReason(missing: string[]): string {
  const list = missing.slice(0, 20).join(', ') + (missing.length > 20 ? `, and ${missing.length - 20} more` : '');
  return `${missing.length === 1 ? 'A part file is' : `${missing.length} part files are`} missing: ${list}. Upload ${missing.length === 1 ? 'it' : 'them'} into the assembly's folder or a subfolder of it; the assembly is then processed again.`;
}

function countLeaves(node: ProductNode): number {
  if (node.children.length === 0) return node.triangleCount > 0 ? 1 : 0;
  return node.children.reduce((n, c) => n + countLeaves(c), node.triangleCount > 0 ? 1 : 0);
}

/** OpenCascade's product structure of a single-file assembly; it has already placed every mesh. */
function embeddedTree(root: ProductNode): AssemblyTreeNode[] {
  const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const toNode = (n: ProductNode): AssemblyTreeNode =>
    n.children.length
      ? { type: 'subAssembly', modelId: null, name: n.name, transform: IDENTITY, children: n.children.map(toNode) }
      : { type: 'part', modelId: null, name: n.name, transform: IDENTITY };
  // The unnamed document root is not a product; its children are the top level.
  return root.children.length ? root.children.map(toNode) : [toNode(root)];
}

/** The stored declared unit, if it is one the service takes (a value from an older or hand-edited row is ignored). */
function declaredUnitOf(value: string | null): DeclaredUnit | null {
  return (declaredUnitChoices as readonly string[]).includes(value ?? '') ? (value as DeclaredUnit) : null;
}
