import type { Model } from '../contract/models';
import { addToCompareSet, COMPARE_SET_MAX, removeFromCompareSet, useCompareSet } from './compare-set';

/** "Add to comparison" / "In comparison", for a model's page; says so when the set is full. */
export function CompareSetToggle({ model }: { model: Pick<Model, 'id' | 'name'> }) {
  const picked = useCompareSet();
  const inSet = picked.some((p) => p.id === model.id);
  const full = !inSet && picked.length >= COMPARE_SET_MAX;
  return (
    <button
      type="button"
      className="button"
      aria-pressed={inSet}
      disabled={full}
      title={full ? `The comparison holds ${COMPARE_SET_MAX} models: remove one first.` : undefined}
      onClick={() => (inSet ? removeFromCompareSet(model.id) : addToCompareSet(model))}
    >
      {inSet ? 'In comparison' : full ? `Comparison full (${COMPARE_SET_MAX})` : 'Add to comparison'}
    </button>
  );
}
