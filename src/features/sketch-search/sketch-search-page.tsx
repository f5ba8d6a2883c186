import { lazy, Suspense, useId, useState } from 'react';
import { useDropzone } from 'react-dropzone';
import { IMAGE_MAX_BYTES, imageTypes } from '../../contract/images';
import { defaultThresholds } from '../../contract/score-scale';
import { formatBytes } from '../../ui/format-bytes';
import { PageHeader } from '../../ui/page-header';
import { emptyDrawing, isBlank, PAD, paint, PEN_WIDTHS, undo, type Drawing } from './drawing';
import { SketchPad } from './sketch-pad';
import './sketch-search.css';

import type { ResultsState, Searched } from './sketch-results';

// The results (cards with 3D previews: three.js) load with the first search, so drawing starts
// without them.
const SketchResults = lazy(() => import('./sketch-results'));

/** The strokes as a PNG data address, drawn afresh at the pad's size: the page needs no handle on the pad's canvas. */
function drawingPng(drawing: Drawing): string {
  const canvas = document.createElement('canvas');
  canvas.width = PAD.width;
  canvas.height = PAD.height;
  const ctx = canvas.getContext('2d');
  if (ctx) paint(ctx, drawing.strokes);
  return canvas.toDataURL('image/png');
}

const accepted = [...new Set(Object.values(imageTypes))];

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** Search by sketch: draw the part (or upload a drawing or scan) and find the models that look like it. */
export function SketchSearchPage() {
  const padLabel = useId();
  const padHelp = useId();
  const [drawing, setDrawing] = useState<Drawing>(emptyDrawing);
  const [penWidth, setPenWidth] = useState<number>(PEN_WIDTHS[1].width);
  const [upload, setUpload] = useState<{ name: string; dataUrl: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [searched, setSearched] = useState<Searched | null>(null);
  const [searches, setSearches] = useState(0);
  const [results, setResults] = useState<ResultsState>({ page: 1, folderId: null, threshold: defaultThresholds.sketchSearch });

  const { getRootProps, getInputProps, open, isDragActive } = useDropzone({
    noClick: true,
    noKeyboard: true,
    multiple: false,
    useFsAccessApi: false,
    onDrop: (files) => void takeFile(files[0]),
  });

  async function takeFile(file: File | undefined) {
    if (!file) return;
    setProblem(null);
    if (!accepted.includes(file.type as (typeof accepted)[number]))
      return setProblem(`“${file.name}” is not a PNG, JPEG or WebP image; scan or photograph the drawing as one of those.`);
    if (file.size > IMAGE_MAX_BYTES)
      return setProblem(`“${file.name}” is ${formatBytes(file.size)}; drawings up to ${formatBytes(IMAGE_MAX_BYTES)} are taken.`);
    try {
      setUpload({ name: file.name, dataUrl: await readAsDataUrl(file) });
    } catch (error) {
      setProblem(`“${file.name}” could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const canSearch = upload !== null || !isBlank(drawing);
  function search() {
    if (!canSearch) return setProblem('Draw the part first, or upload a drawing.');
    setProblem(null);
    const next = searches + 1;
    setSearches(next);
    setSearched(
      upload
        ? { image: upload.dataUrl, filename: upload.name, drawingKey: String(next) }
        : { image: drawingPng(drawing), filename: 'sketch.png', drawingKey: String(next) },
    );
    setResults((r) => ({ ...r, page: 1 }));
  }

  return (
    <div className="page sketch-search" {...getRootProps()}>
      <input {...getInputProps()} aria-label="Drawing file" data-testid="sketch-file" />
      <PageHeader title="Search by sketch">
        <p className="muted">
          Draw the part as you see it from one side — its outline, then the main edges inside it — or upload a drawing, a scan or a photo of
          a sketch on paper.
        </p>
      </PageHeader>

      <section className={`card sketch-search__work${isDragActive ? ' sketch-search__work--drop' : ''}`} aria-labelledby={padLabel}>
        <h2 id={padLabel} className="sketch-search__title">
          {upload ? 'Uploaded drawing' : 'Your sketch'}
        </h2>
        <div className="sketch-tools" role="toolbar" aria-label="Drawing tools">
          <fieldset className="sketch-tools__pens" disabled={upload !== null}>
            <legend className="sketch-tools__legend">Line</legend>
            {PEN_WIDTHS.map((p) => (
              <label key={p.width} className="sketch-tools__pen">
                <input type="radio" name="pen" checked={penWidth === p.width} onChange={() => setPenWidth(p.width)} />
                <span className="sketch-tools__swatch" style={{ height: `${Math.max(2, p.width / 2)}px` }} aria-hidden="true" />
                {p.label}
              </label>
            ))}
          </fieldset>
          <button
            type="button"
            className="button button--small"
            onClick={() => setDrawing(undo(drawing))}
            disabled={upload !== null || isBlank(drawing)}
          >
            Undo
          </button>
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              setDrawing(emptyDrawing);
              setUpload(null);
              setProblem(null);
            }}
            disabled={upload === null && isBlank(drawing)}
          >
            Clear
          </button>
          <button type="button" className="button button--small" onClick={open}>
            Upload a drawing…
          </button>
        </div>

        {upload ? (
          <figure className="sketch-upload">
            <img src={upload.dataUrl} alt={`The uploaded drawing ${upload.name}`} className="sketch-upload__img" />
            <figcaption className="muted">
              {upload.name} —{' '}
              <button type="button" className="button button--small" onClick={() => setUpload(null)}>
                Draw instead
              </button>
            </figcaption>
          </figure>
        ) : (
          <SketchPad drawing={drawing} onChange={setDrawing} penWidth={penWidth} labelledBy={padLabel} describedBy={padHelp} />
        )}
        <p id={padHelp} className="muted sketch-search__help">
          Draw with a mouse, pen or finger; or focus the sketch and use the arrow keys to move the pen, Space to put it down or lift it,
          Ctrl+Z to undo. Join the outline’s ends: its inside is taken as the part.
        </p>
        {problem && (
          <p className="form-error" role="alert">
            {problem}
          </p>
        )}
        <div className="sketch-search__actions">
          <button type="button" className="button button--primary" onClick={search} disabled={!canSearch}>
            Search
          </button>
        </div>
      </section>

      {searched && (
        <Suspense fallback={<p className="muted">Loading the results…</p>}>
          <SketchResults
            searched={searched}
            {...results}
            onPage={(page) => setResults((r) => ({ ...r, page }))}
            onFolder={(folderId) => setResults((r) => ({ ...r, folderId, page: 1 }))}
            onThreshold={(threshold) => setResults((r) => ({ ...r, threshold, page: 1 }))}
          />
        </Suspense>
      )}
    </div>
  );
}
