/** A score 0–100 as a labelled bar (the number is always written, the bar only helps the eye). */
export function ScoreBar({ label, value, emphasis = false }: { label: string; value: number; emphasis?: boolean }) {
  const rounded = Math.round(value * 10) / 10;
  return (
    <div className={`score${emphasis ? ' score--emphasis' : ''}`}>
      <span className="score__label">{label}</span>
      <span className="score__track" aria-hidden="true">
        <span className="score__fill" style={{ width: `${Math.max(0, Math.min(100, value))}%` }} />
      </span>
      <span className="score__value">{rounded}%</span>
    </div>
  );
}
