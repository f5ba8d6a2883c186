import { useCallback, useId, useState, useSyncExternalStore } from 'react';
import { ApiError, errorMessage } from '../../api/client';
import { useImageMatches, useUploadImage } from '../../api/images';
import { IMAGES_PER_SEARCH } from '../../contract/images';
import { imageScoreNote } from '../../contract/score-scale';
import { uploadName } from './image-checks';
import { ImageGuidance } from './image-guidance';
import { ImagePicker } from './image-picker';
import { SelectedImages } from './selected-images';
import { searchImages, selectionChanged, MAX_LISTED, type SelectionState } from './selection';
import { imageSearchSession, type SelectionStore } from './selection-store';
import './image-search.css';
import { PageHeader } from '../../ui/page-header';
import { PictureMatchResults, RESULTS_PER_PAGE, useFolderFilter } from '../../ui/picture-match-results';

/** The matches of the searched images (the shared results, asked by image ids). */
function ImageMatchResults({
  ids,
  ...rest
}: { ids: readonly string[] } & Omit<
  Parameters<typeof PictureMatchResults>[0],
  'matches' | 'searchKey' | 'subject' | 'emptyHint' | 'scoreNote'
>) {
  const { page, threshold, folderId } = rest;
  const filter = useFolderFilter(folderId);
  const matches = useImageMatches({ ids, page, perPage: RESULTS_PER_PAGE, filter, threshold });
  return (
    <PictureMatchResults
      {...rest}
      matches={matches}
      searchKey={ids.join(',')}
      scoreNote={imageScoreNote}
      subject={ids.length === 1 ? 'this image' : `these ${ids.length} images`}
      emptyHint="Only models that have finished processing are searched. Lower the threshold, try a photo that follows the guidance above, or add photos from other sides."
    />
  );
}

/** Worth sending again on the next search: the connection, a busy service. Not: the image itself (or the request) was refused. */
function retryable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

function summary(state: SelectionState): string {
  const usable = searchImages(state).length;
  const total = state.images.length;
  if (total === 0) return `Add 1 to ${IMAGES_PER_SEARCH} images of the part you are looking for.`;
  const unusable = total - usable;
  if (usable === 0) return total === 1 ? 'This image cannot be used; it says why.' : 'None of these images can be used; each says why.';
  const used = `${usable} ${usable === 1 ? 'image' : 'images'} will be used`;
  return unusable > 0 ? `${used}; ${unusable} cannot be used (each says why).` : `${used}.`;
}

export function ImageSearchPage() {
  return <ImageSearchWorkspace store={imageSearchSession} />;
}

export function ImageSearchWorkspace({ store }: { store: SelectionStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState);
  const upload = useUploadImage();
  const [sending, setSending] = useState(false);
  const [searchProblem, setSearchProblem] = useState<string | null>(null);
  const guidanceId = useId();
  const headingId = useId();

  const onFiles = useCallback((files: File[]) => store.addFiles(files), [store]);

  const search = async () => {
    const targets = searchImages(store.getState());
    if (targets.length === 0) return;
    setSending(true);
    setSearchProblem(null);
    await Promise.all(
      targets
        .filter((image) => image.upload.kind !== 'sent')
        .map(async (image) => {
          store.dispatch({ type: 'sending', key: image.key, loaded: 0, total: image.size });
          try {
            const imageId = await upload.mutateAsync({
              file: image.file,
              filename: uploadName(image),
              onProgress: (loaded, total) => store.dispatch({ type: 'sending', key: image.key, loaded, total }),
            });
            store.dispatch({ type: 'sent', key: image.key, imageId });
          } catch (error) {
            store.dispatch({ type: 'failed', key: image.key, message: errorMessage(error), retryable: retryable(error) });
          }
        }),
    );
    setSending(false);
    // Images removed while they were being sent drop out here.
    const now = store.getState().images;
    const ids = targets.flatMap((target) => {
      const image = now.find((candidate) => candidate.key === target.key);
      return image?.upload.kind === 'sent' ? [image.upload.imageId] : [];
    });
    if (ids.length > 0) store.dispatch({ type: 'searched', ids });
    else
      setSearchProblem(
        targets.length === 1 ? 'The image could not be used; see why above.' : 'None of the images could be used; see why above.',
      );
  };

  const usable = searchImages(state);
  const changed = selectionChanged(state);
  const canSearch = !sending && usable.length > 0;

  return (
    <div className="page image-search">
      <PageHeader title="Image search">
        <p className="lead">
          Find the CAD model of a part from photos or pictures of it. Use several images of the same object to make the search more certain.
        </p>
      </PageHeader>

      <section className="card image-search__input" aria-labelledby={headingId}>
        <h2 id={headingId} className="visually-hidden">
          Images to search with
        </h2>
        <div className="image-search__pick">
          <ImagePicker onFiles={onFiles} disabled={sending} describedBy={guidanceId} />
          <ImageGuidance id={guidanceId} />
        </div>

        {state.notAdded > 0 && (
          <p className="warning image-search__not-added" role="alert">
            {state.notAdded} {state.notAdded === 1 ? 'file was' : 'files were'} not added: at most {MAX_LISTED} images can be listed. Remove
            some first.
          </p>
        )}

        <SelectedImages state={state} onRemove={(key) => store.dispatch({ type: 'remove', key })} busy={sending} />

        <div className="image-search__bar">
          <p className="image-search__summary" aria-live="polite">
            {summary(state)}
          </p>
          <div className="actions image-search__actions">
            {state.images.length > 0 && (
              <button type="button" className="button" onClick={() => store.dispatch({ type: 'clear' })} disabled={sending}>
                Clear all
              </button>
            )}
            <button
              type="button"
              className="button button--primary image-search__go"
              onClick={() => void search()}
              disabled={!canSearch}
              aria-busy={sending}
            >
              {sending ? (
                <>
                  <span className="spinner spinner--light" aria-hidden="true" /> Sending images…
                </>
              ) : (
                'Search'
              )}
            </button>
          </div>
        </div>
        {searchProblem && (
          <p className="form-error" role="alert">
            {searchProblem}
          </p>
        )}
        {state.searchedIds && changed && usable.length > 0 && !sending && (
          <p className="muted image-search__stale">The images changed since the last search. Search again to update the results.</p>
        )}
      </section>

      {state.searchedIds ? (
        <ImageMatchResults
          ids={state.searchedIds}
          page={state.page}
          folderId={state.folderId}
          threshold={state.threshold}
          onPage={(page) => store.dispatch({ type: 'page', page })}
          onFolder={(folderId) => store.dispatch({ type: 'folder', folderId })}
          onThreshold={(threshold) => store.dispatch({ type: 'threshold', threshold })}
        />
      ) : (
        <section className="image-search__intro" aria-label="How it works">
          <ol className="image-steps">
            <li>
              <strong>Add images</strong>
              <span className="muted">Drop, paste or pick photos — or take one with your phone.</span>
            </li>
            <li>
              <strong>Search</strong>
              <span className="muted">The images are compared with the shape of every processed model.</span>
            </li>
            <li>
              <strong>Open a match</strong>
              <span className="muted">Results are ranked by score; filter them by folder.</span>
            </li>
          </ol>
        </section>
      )}
    </div>
  );
}
