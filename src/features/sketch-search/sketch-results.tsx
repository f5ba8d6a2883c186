import { useSketchMatches } from '../../api/sketches';
import { sketchScoreNote } from '../../contract/score-scale';
import { PictureMatchResults, RESULTS_PER_PAGE, useFolderFilter } from '../../ui/picture-match-results';

/** A drawing as sent: its bytes as a data address, its name, and which search it was. */
export interface Searched {
  image: string;
  filename: string;
  drawingKey: string;
}

export interface ResultsState {
  page: number;
  folderId: number | null;
  threshold: number;
}
interface ResultsActions {
  onPage: (page: number) => void;
  onFolder: (folderId: number | null) => void;
  onThreshold: (threshold: number) => void;
}

/** The searched drawing's matches: image search's cards, threshold, folder filter and paging. */
export default function SketchResults({ searched, ...rest }: { searched: Searched } & ResultsState & ResultsActions) {
  const filter = useFolderFilter(rest.folderId);
  const matches = useSketchMatches({ ...searched, page: rest.page, perPage: RESULTS_PER_PAGE, filter, threshold: rest.threshold });
  return (
    <PictureMatchResults
      {...rest}
      matches={matches}
      searchKey={searched.drawingKey}
      scoreNote={sketchScoreNote}
      subject={searched.filename === 'sketch.png' ? 'this sketch' : `“${searched.filename}”`}
      emptyHint="Only models that have finished processing are searched. Lower the threshold, or draw the part’s outline as seen from one side, with its main edges inside it."
    />
  );
}
