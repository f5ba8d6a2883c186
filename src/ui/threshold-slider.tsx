import { useEffect, useEffectEvent, useId, useState } from 'react';

/** How long the slider waits after the last change before asking the service. */
export const thresholdDebounceMs = 300;

/**
 * A 0–100 slider (native range input: arrow keys, Page Up/Down, Home/End) whose value is
 * committed after the user pauses, so sliding does not send a request per step.
 */
export function ThresholdSlider({
  value,
  onCommit,
  label,
  hint,
}: {
  value: number;
  onCommit: (value: number) => void;
  label: string;
  hint?: string;
}) {
  const id = useId();
  const [local, setLocal] = useState(value);
  const [shownValue, setShownValue] = useState(value);
  const commit = useEffectEvent((next: number) => onCommit(next));
  // A new value from outside (back button, another tab's link) replaces the local one.
  if (shownValue !== value) {
    setShownValue(value);
    setLocal(value);
  }
  useEffect(() => {
    if (local === value) return;
    const timer = setTimeout(() => commit(local), thresholdDebounceMs);
    return () => clearTimeout(timer);
  }, [local, value]);

  return (
    <div className="threshold">
      <label htmlFor={id} className="threshold__label">
        {label}
      </label>
      <input
        id={id}
        type="range"
        min={0}
        max={100}
        step={1}
        value={local}
        aria-valuetext={`${local} percent`}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => setLocal(Number(e.target.value))}
      />
      <output htmlFor={id} className="threshold__value" data-testid="threshold-value">
        {local}%
      </output>
      {hint && (
        <span id={`${id}-hint`} className="threshold__hint muted">
          {hint}
        </span>
      )}
    </div>
  );
}
