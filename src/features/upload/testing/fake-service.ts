// An in-memory stand-in for the service, implementing Transport, for the engine's tests and
// benchmarks: record creation with the contract's rules, signed addresses that expire, PUT
// with progress, processing with assemblies relinked when their parts arrive, and injectable
// failures and latency. Runs on the given clock (fake timers in tests).
import { systemClock, sleep, type Clock } from '../engine/clock';
import { fileNameOf, filePathProblem, folderOf } from '../../../contract/file-paths';
import { extensionOf } from '../../../contract/file-types';
import { createModelsResponseSchema, type Model } from '../../../contract/models';
import {
  TransportError,
  type CreatedModel,
  type CreateModelInput,
  type ModelRecord,
  type PutOptions,
  type Transport,
} from '../engine/transport';

export interface FakeModel {
  id: string;
  filePath: string;
  name: string;
  state: string;
  stateReason: string | null;
  missingParts: string[];
  isAssembly: boolean;
  stored: boolean;
  createdAt: number;
}

type Latency = number | ((what: string) => number);

export interface FakeServiceOptions {
  clock: Clock;
  createLatencyMs: Latency;
  /** Per file path. */
  putLatencyMs: Latency;
  listLatencyMs: number;
  deleteLatencyMs: number;
  /** Per file path. */
  processingMs: Latency;
  /** State a part ends in (assemblies are worked out from their parts). */
  finalState: (filePath: string) => string;
  /** Assemblies: filePath -> file names of their parts. */
  assemblies: Record<string, string[]>;
  addressTtlMs: number;
  /** Progress callbacks per PUT. */
  progressSteps: number;
  /** Answer shape of POST /v2/models. */
  responseShape: 'flat' | 'nested' | 'both';
  /** Return an error to fail a call instead of answering. */
  failCreate?: (call: { n: number; models: CreateModelInput[] }) => Error | undefined;
  failPut?: (call: { filePath: string; n: number; url: string }) => Error | undefined;
  failList?: (call: { n: number; ids: string[] }) => Error | undefined;
  failDelete?: (call: { id: string }) => Error | undefined;
}

export function httpError(status: number, message = `HTTP ${status}`, retryAfterMs?: number): TransportError {
  const code =
    status === 0
      ? 'network_error'
      : status === 403
        ? 'forbidden'
        : status === 409
          ? 'conflict'
          : status >= 500
            ? 'internal_error'
            : `http_${status}`;
  return new TransportError(status, code, message, retryAfterMs);
}

export class FakeService implements Transport {
  readonly options: FakeServiceOptions;
  readonly models = new Map<string, FakeModel>();
  readonly calls = {
    create: [] as CreateModelInput[][],
    put: [] as string[],
    delete: [] as string[],
    list: [] as { at: number; ids: string[] }[],
  };
  inFlightPuts = 0;
  maxInFlightPuts = 0;
  private nextId = 1;
  private readonly addresses = new Map<string, { modelId: string; headers: Record<string, string>; issuedAt: number; used: boolean }>();
  private readonly putsPerPath = new Map<string, number>();

  constructor(options: Partial<FakeServiceOptions> = {}) {
    this.options = {
      clock: systemClock,
      createLatencyMs: 50,
      putLatencyMs: 100,
      listLatencyMs: 20,
      deleteLatencyMs: 10,
      processingMs: 500,
      finalState: () => 'finished',
      assemblies: {},
      addressTtlMs: 15 * 60_000,
      progressSteps: 2,
      responseShape: 'both',
      ...options,
    };
  }

  private latency(l: Latency, what: string): number {
    return typeof l === 'function' ? l(what) : l;
  }

  byPath(filePath: string): FakeModel | undefined {
    const key = filePath.toLowerCase();
    return [...this.models.values()].find((m) => m.filePath.toLowerCase() === key);
  }

  private record(m: FakeModel): ModelRecord {
    return {
      id: m.id,
      filePath: m.filePath,
      state: m.state,
      stateReason: m.stateReason,
      missingParts: [...m.missingParts],
      isAssembly: m.isAssembly,
    };
  }

  /** The record as the service answers it (the contract's Model). */
  private fullRecord(m: FakeModel): Model {
    const at = new Date(m.createdAt).toISOString();
    const fileName = fileNameOf(m.filePath);
    return {
      ...this.record(m),
      filePath: m.filePath,
      name: m.name,
      fileName,
      fileType: extensionOf(fileName),
      folderId: 1,
      isAssembly: m.isAssembly,
      metadata: [],
      createdAt: at,
      updatedAt: at,
    };
  }

  async createModels(models: CreateModelInput[], _options: { createMissingFolders: boolean }): Promise<CreatedModel[]> {
    const n = this.calls.create.push(models.map((m) => ({ ...m })));
    await sleep(this.options.clock, this.latency(this.options.createLatencyMs, 'create'));
    const injected = this.options.failCreate?.({ n, models });
    if (injected) throw injected;
    if (models.length === 0 || models.length > 100) throw httpError(413, `models: 1..100 items, got ${models.length}`);
    const seen = new Set<string>();
    for (const [i, m] of models.entries()) {
      const problem = filePathProblem(m.filePath);
      if (problem) throw httpError(400, `models[${i}].filePath: ${problem}`);
      const key = m.filePath.toLowerCase();
      if (seen.has(key) || this.byPath(m.filePath)) throw httpError(409, `models[${i}].filePath: '${m.filePath}' already exists`);
      seen.add(key);
    }
    const now = this.options.clock.now();
    const entries = models.map((m, i) => {
      const id = `m${this.nextId++}`;
      const model: FakeModel = {
        id,
        filePath: m.filePath,
        name: m.name,
        state: 'incomplete-upload',
        stateReason: null,
        missingParts: [],
        isAssembly: m.filePath in this.options.assemblies,
        stored: false,
        createdAt: now,
      };
      this.models.set(id, model);
      const uploadUrl = `https://files.example/upload/${id}?sig=${now}-${i}`;
      const headers = { 'x-upload-signature': `sig-${id}-${now}`, 'content-type': 'application/octet-stream' };
      this.addresses.set(uploadUrl, { modelId: id, headers, issuedAt: now, used: false });
      const record = this.fullRecord(model);
      const shape = this.options.responseShape;
      if (shape === 'flat') return { model: record, uploadUrl, headers };
      if (shape === 'nested') return { model: record, uploadInfo: { uploadUrl, headers } };
      return { model: record, uploadUrl, headers, uploadInfo: { uploadUrl, headers } };
    });
    // Through the contract's schema, as the page's transport does, so both answer shapes are exercised.
    return createModelsResponseSchema.parse({ models: entries }).models;
  }

  async deleteModel(id: string): Promise<void> {
    this.calls.delete.push(id);
    await sleep(this.options.clock, this.options.deleteLatencyMs);
    const injected = this.options.failDelete?.({ id });
    if (injected) throw injected;
    if (!this.models.delete(id)) throw httpError(404, `model ${id} not found`);
  }

  async put(url: string, headers: Record<string, string>, body: Blob, options: PutOptions): Promise<void> {
    const address = this.addresses.get(url);
    const model = address ? this.models.get(address.modelId) : undefined;
    const filePath = model?.filePath ?? url;
    const n = (this.putsPerPath.get(filePath) ?? 0) + 1;
    this.putsPerPath.set(filePath, n);
    this.calls.put.push(filePath);
    this.inFlightPuts++;
    this.maxInFlightPuts = Math.max(this.maxInFlightPuts, this.inFlightPuts);
    try {
      const { clock } = this.options;
      const total = body.size;
      const latency = this.latency(this.options.putLatencyMs, filePath);
      const steps = Math.max(1, this.options.progressSteps);
      await new Promise<void>((resolve, reject) => {
        let step = 0;
        let timer: unknown;
        const onAbort = () => {
          clock.clearTimeout(timer);
          reject(new DOMException('The upload was aborted.', 'AbortError'));
        };
        if (options.signal.aborted) return onAbort();
        options.signal.addEventListener('abort', onAbort, { once: true });
        const next = () => {
          step++;
          if (step < steps) options.onProgress?.(Math.round((total * step) / steps), total);
          if (step >= steps) {
            options.signal.removeEventListener('abort', onAbort);
            resolve();
          } else timer = clock.setTimeout(next, latency / steps);
        };
        timer = clock.setTimeout(next, latency / steps);
      });
      const injected = this.options.failPut?.({ filePath, n, url });
      if (injected) throw injected;
      if (!address || !model) throw httpError(403, 'The upload address is not valid.');
      if (clock.now() - address.issuedAt > this.options.addressTtlMs) throw httpError(403, 'The upload address has expired.');
      for (const [k, v] of Object.entries(address.headers)) {
        if (headers[k] !== v) throw httpError(403, `The upload header ${k} is missing or changed.`);
      }
      if (address.used) throw httpError(409, 'This address was already used.');
      address.used = true;
      options.onProgress?.(total, total);
      model.stored = true;
      model.state = 'processing';
      this.scheduleProcessing(model);
    } finally {
      this.inFlightPuts--;
    }
  }

  async storedPaths(filePaths: readonly string[]): Promise<Set<string>> {
    return new Set(filePaths.filter((p) => this.byPath(p) && this.byPath(p)!.state !== 'incomplete-upload').map((p) => p.toLowerCase()));
  }

  async listModelsById(ids: string[]): Promise<ModelRecord[]> {
    const n = this.calls.list.push({ at: this.options.clock.now(), ids: [...ids] });
    await sleep(this.options.clock, this.options.listLatencyMs);
    const injected = this.options.failList?.({ n, ids });
    if (injected) throw injected;
    if (ids.length > 100) throw httpError(400, 'perPage: at most 100');
    return ids.flatMap((id) => {
      const m = this.models.get(id);
      return m ? [this.record(m)] : [];
    });
  }

  /** Processing: parts end in finalState; assemblies in finished(-incomplete) by their parts. */
  private scheduleProcessing(model: FakeModel): void {
    const { clock } = this.options;
    clock.setTimeout(
      () => {
        if (!this.models.has(model.id)) return;
        const parts = this.options.assemblies[model.filePath];
        if (parts) {
          model.missingParts = parts.filter((p) => !this.partPresent(model, p));
          model.state = model.missingParts.length > 0 ? 'finished-incomplete' : 'finished';
          model.stateReason = model.missingParts.length > 0 ? `Missing parts: ${model.missingParts.join(', ')}` : null;
        } else {
          model.state = this.options.finalState(model.filePath);
        }
        this.relinkAssembliesWaitingFor(model);
      },
      this.latency(this.options.processingMs, model.filePath),
    );
  }

  private partPresent(assembly: FakeModel, name: string): boolean {
    const folder = folderOf(assembly.filePath).toLowerCase();
    return [...this.models.values()].some((m) => {
      const f = folderOf(m.filePath).toLowerCase();
      return (
        m.stored &&
        m.state !== 'processing' &&
        fileNameOf(m.filePath).toLowerCase() === name.toLowerCase() &&
        (f === folder || f.startsWith(`${folder}/`))
      );
    });
  }

  /** A processed part gets the settled assemblies missing it reprocessed. */
  private relinkAssembliesWaitingFor(part: FakeModel): void {
    const name = fileNameOf(part.filePath).toLowerCase();
    for (const a of this.models.values()) {
      if (a === part || a.state === 'processing' || !a.stored) continue;
      if (!a.missingParts.some((p) => p.toLowerCase() === name)) continue;
      if (!this.partPresent(a, name)) continue;
      a.state = 'processing';
      this.scheduleProcessing(a);
    }
  }
}
