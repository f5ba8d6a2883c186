import { scoreBand } from '../contract/score-scale';

/**
 * A score 0–100 as a labelled bar (the number is always written, the bar only helps the eye).
 * Part-to-part scores also name their band (contract/score-scale.ts). Every bar of a list has the
 * same length, whatever its label, so bars compare at a glance.
 */
export function ScoreBar({
  label,
  value,
  emphasis = false,
  band = false,
}: {
  label: string;
  value: number;
  emphasis?: boolean;
  band?: boolean;
}) {
  const rounded = Math.round(value * 10) / 10;
  return (
    <div className={`score${emphasis ? ' score--emphasis' : ''}`}>
      <span className="score__label">{label}</span>
      <span className="score__track" aria-hidden="true">
        <span className="score__fill" style={{ width: `${Math.max(0, Math.min(100, value))}%` }} />
      </span>
      <span className="score__value">{rounded}%</span>
      {band && <span className="score__band">{scoreBand(value).label}</span>}
    </div>
  );
}
