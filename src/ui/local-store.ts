// A value kept in this browser (localStorage), the same on every page and tab, for
// useSyncExternalStore. Without storage (private mode) it lasts until the page is left.
export interface LocalStore<T> {
  get: () => T;
  set: (value: T) => void;
  subscribe: (listener: () => void) => () => void;
}

export function localStore<T>(key: string, parse: (text: string | null) => T): LocalStore<T> {
  const listeners = new Set<() => void>();
  let current: { value: T } | null = null;
  const read = (): T => {
    try {
      return parse(localStorage.getItem(key));
    } catch {
      return parse(null);
    }
  };
  return {
    get: () => {
      current ??= { value: read() };
      return current.value;
    },
    set: (value) => {
      try {
        localStorage.setItem(key, JSON.stringify(value));
      } catch {
        // No storage: kept in memory only.
      }
      current = { value };
      for (const listener of [...listeners]) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      const onStorage = (event: StorageEvent) => {
        if (event.key !== key) return;
        current = { value: read() };
        listener();
      };
      window.addEventListener('storage', onStorage);
      return () => {
        listeners.delete(listener);
        window.removeEventListener('storage', onStorage);
      };
    },
  };
}
