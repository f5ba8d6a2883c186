import { useSyncExternalStore } from 'react';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  message: string;
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function dismissToast(id: number) {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

/** Shows a short message in the corner; identical messages shown at once are merged. */
export function showToast(message: string, kind: Toast['kind'] = 'info') {
  if (toasts.some((t) => t.message === message)) return;
  const toast = { id: nextId++, kind, message };
  toasts = [...toasts.slice(-3), toast];
  emit();
  setTimeout(() => dismissToast(toast.id), 8000);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function Toaster() {
  const items = useSyncExternalStore(
    subscribe,
    () => toasts,
    () => toasts,
  );
  return (
    <div className="toaster" role="region" aria-label="Notifications">
      {items.map((t) => (
        <div key={t.id} className={`toast toast--${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.message}</span>
          <button type="button" className="toast__close" aria-label="Dismiss notification" onClick={() => dismissToast(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
