// The one vocabulary of match scores: every page's legend, band words and default thresholds come
// from here, so a 72.6 means the same on the matches page, the duplicates page and the clean-up.
// The bands are those the part-to-part scale is calibrated to (src/geometry/README.md).

export interface ScoreBand {
  /** Lowest score of the band (inclusive); the band runs up to the next band's minimum. */
  min: number;
  label: string;
  /** What a designer may expect of two models in this band. */
  meaning: string;
}

/** Highest first; together they cover 0–100 without a gap. */
export const scoreBands: readonly ScoreBand[] = [
  { min: 98, label: 'Same part', meaning: 'surfaces agree within 0.4 % of the part’s size once turned and moved' },
  { min: 90, label: 'Small changes', meaning: 'the same part with a hole, fillet, length or thickness changed' },
  { min: 80, label: 'Same family', meaning: 'a variant of the same design' },
  { min: 60, label: 'Similar shape', meaning: 'alike in outline and proportions, another design' },
  { min: 0, label: 'Unrelated', meaning: 'nothing in common worth a look' },
];

export function scoreBand(score: number): ScoreBand {
  return scoreBands.find((b) => score >= b.min) ?? scoreBands[scoreBands.length - 1]!;
}

/** "90–98" for a band (the top band is "98–100"). */
export function bandRange(band: ScoreBand): string {
  const i = scoreBands.indexOf(band);
  return `${band.min}–${i <= 0 ? 100 : scoreBands[i - 1]!.min}`;
}

/** Where each list opens. */
export const defaultThresholds = {
  /** Match lists: from the start of "Same family", so variants are listed, not only duplicates. */
  matches: 80,
  /** Duplicates of a folder and the clean-up review: "Same part". */
  duplicates: 98,
  /** Image search scores a picture against a model's views: a scale of its own (imageScoreNote). */
  imageSearch: 50,
  /**
   * A drawing matches its part's views less closely than a photo does: on the dev split's sketches
   * (npm run bench:sketch) the sketched part scores 57.7 at the median, other parts 36.2.
   */
  sketchSearch: 40,
} as const;

/** What a sketch-search score is, for the page that shows one. */
export const sketchScoreNote =
  'Sketch scores compare the drawing’s outline and inner lines with views of each model: a scale of their own, not the part-to-part bands. 40 or more is worth a look; the best candidate is listed first.';

/** What an image-search score is, for the page that shows one. */
export const imageScoreNote =
  'Picture scores compare the photo’s outline with views of each model: a scale of their own, not the part-to-part bands. 50 or more is worth a look; the best candidate is listed first.';
