// Where the batch (engine.toJSON(): plan, model ids, states — no bytes) is kept across
// reloads. IndexedDB in the browser; tests use the in-memory store.

export interface BatchStore {
  load(): Promise<unknown>;
  save(state: unknown): Promise<void>;
  clear(): Promise<void>;
}

export function memoryBatchStore(initial: unknown = null): BatchStore & { readonly value: unknown; readonly saves: number } {
  let value: unknown = initial === null ? null : structuredClone(initial);
  let saves = 0;
  return {
    get value() {
      return value;
    },
    get saves() {
      return saves;
    },
    load: async () => (value === null ? null : structuredClone(value)),
    save: async (state) => {
      saves++;
      value = structuredClone(state);
    },
    clear: async () => {
      value = null;
    },
  };
}

const DB_NAME = 'gsw-upload';
const STORE = 'batches';
const KEY = 'current';

function promisify<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

export function indexedDbBatchStore(factory: IDBFactory | undefined = globalThis.indexedDB): BatchStore {
  let db: Promise<IDBDatabase> | null = null;
  const open = () => {
    if (!factory) return Promise.reject(new Error('IndexedDB is not available'));
    db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened'));
    }).catch((error: unknown) => {
      db = null;
      throw error;
    });
    return db;
  };
  const run = async <T>(mode: IDBTransactionMode, fn: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const database = await open();
    return promisify(fn(database.transaction(STORE, mode).objectStore(STORE)));
  };
  return {
    load: async () => (await run('readonly', (s) => s.get(KEY))) ?? null,
    save: async (state) => {
      await run('readwrite', (s) => s.put(state, KEY));
    },
    clear: async () => {
      await run('readwrite', (s) => s.delete(KEY));
    },
  };
}

/**
 * Saves at most every `ms` (the latest state wins); `flush()` saves a pending state now. Saves
 * never overlap, so an older state cannot land after a newer one.
 */
export function throttledSaver(store: BatchStore, getState: () => unknown, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = -Infinity;
  let chain: Promise<void> = Promise.resolve();
  const save = () => {
    timer = undefined;
    last = Date.now();
    const state = getState();
    chain = chain.then(() => store.save(state)).catch(() => undefined);
    return chain;
  };
  return {
    request(): void {
      if (timer !== undefined) return;
      const wait = last + ms - Date.now();
      if (wait <= 0) void save();
      else timer = setTimeout(() => void save(), wait);
    },
    flush(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer);
      return save();
    },
    cancel(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      return chain;
    },
  };
}
