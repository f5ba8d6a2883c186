// The models picked for a side-by-side comparison, from any page (the "compare cart"). Kept in
// this browser, so it survives navigation and reloads.
import { useSyncExternalStore } from 'react';
import { localStore } from './local-store';

export const COMPARE_SET_MAX = 4;

export interface PickedModel {
  id: string;
  name: string;
}

/** The stored list as far as it is readable: at most {@link COMPARE_SET_MAX} distinct models. */
export function parsePicked(text: string | null): PickedModel[] {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '[]');
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const picked: PickedModel[] = [];
  for (const item of value) {
    const { id, name } = (item ?? {}) as Partial<PickedModel>;
    if (typeof id === 'string' && typeof name === 'string' && !picked.some((p) => p.id === id)) picked.push({ id, name });
  }
  return picked.slice(0, COMPARE_SET_MAX);
}

const store = localStore('gsw:compare-set', parsePicked);

/** Adds a model; false when the set is full (it is not added then). */
export function addToCompareSet(model: PickedModel): boolean {
  const picked = store.get();
  if (picked.some((p) => p.id === model.id)) return true;
  if (picked.length >= COMPARE_SET_MAX) return false;
  store.set([...picked, { id: model.id, name: model.name }]);
  return true;
}

export function removeFromCompareSet(id: string): void {
  store.set(store.get().filter((p) => p.id !== id));
}

export function setCompareSet(models: readonly PickedModel[]): void {
  store.set(models.slice(0, COMPARE_SET_MAX).map(({ id, name }) => ({ id, name })));
}

export function useCompareSet(): readonly PickedModel[] {
  return useSyncExternalStore(store.subscribe, store.get, () => []);
}
