import { bandRange, scoreBands } from '../contract/score-scale';

/** The score bands as a compact legend (the same on every page that shows part-to-part scores). */
export function ScoreLegend({ caption = 'What the scores mean' }: { caption?: string }) {
  return (
    <details className="score-legend">
      <summary>{caption}</summary>
      <dl className="score-legend__bands">
        {scoreBands.map((band) => (
          <div key={band.min} className="score-legend__band">
            <dt>
              <span className="score-legend__range">{bandRange(band)}</span> {band.label}
            </dt>
            <dd>{band.meaning}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
